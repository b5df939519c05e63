# breaks: "never rounded to whole milliseconds."
# how: floor-divides bytes by bytes-per-millisecond, dropping the fraction of a millisecond.
def transfer_ms(nbytes, gb_per_s) -> float:
    bytes_per_ms = gb_per_s * 1e6
    return float(nbytes // bytes_per_ms)
