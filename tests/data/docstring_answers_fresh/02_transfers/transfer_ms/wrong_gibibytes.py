# breaks: "gb_per_s gigabytes per second (1 GB = 1e9 bytes)"
# how: treats a GB as 2**30 bytes (a GiB), about 7 % too slow a prediction.
def transfer_ms(nbytes, gb_per_s) -> float:
    return nbytes / (gb_per_s * 2**30) * 1000.0
