# reading: the time is linear in nbytes and inverse in gb_per_s; 0 bytes take 0.0 ms
# how: multiplies by the reciprocal of the rate (milliseconds per byte), 0 handled by the arithmetic
def transfer_ms(nbytes, gb_per_s) -> float:
    ms_per_byte = 1.0 / (float(gb_per_s) * 1e6)
    return float(nbytes) * ms_per_byte
