# reading: float arithmetic in a different order (bytes to MB first) is within any sensible tolerance.
# how: float(nbytes) * 1e-6 / gb_per_s.
def transfer_ms(nbytes, gb_per_s) -> float:
    megabytes = float(nbytes) * 1e-6
    return megabytes / float(gb_per_s)
