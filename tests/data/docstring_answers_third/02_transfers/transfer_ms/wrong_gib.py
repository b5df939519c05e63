# breaks: "at gb_per_s gigabytes per second (1 GB = 1e9 bytes)"
# how: uses 2**30 bytes per GB
def transfer_ms(nbytes, gb_per_s) -> float:
    return float(nbytes / (gb_per_s * 2**30) * 1000)
