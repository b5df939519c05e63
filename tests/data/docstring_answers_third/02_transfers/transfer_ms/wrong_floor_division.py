# breaks: "never rounded to whole milliseconds."
# how: floor-divides by bytes-per-millisecond, so the result is a whole number of ms (as a float)
def transfer_ms(nbytes, gb_per_s) -> float:
    bytes_per_ms = gb_per_s * 1e6
    return float(nbytes // bytes_per_ms)
