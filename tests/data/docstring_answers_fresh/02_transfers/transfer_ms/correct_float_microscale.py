# reading: floats throughout; no special case for zero bytes (0.0 ms).
# how: bytes -> megabytes first (1e-6), then divides by GB/s, which is MB per ms.
def transfer_ms(nbytes, gb_per_s) -> float:
    megabytes = float(nbytes) * 1e-6
    return megabytes / float(gb_per_s)
