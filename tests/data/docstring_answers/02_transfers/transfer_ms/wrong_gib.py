# breaks: "(1 GB = 1e9 bytes)"
# how: uses binary gigabytes (2**30 bytes).
def transfer_ms(nbytes, gb_per_s) -> float:
    return nbytes / (gb_per_s * 2**30) * 1000.0
