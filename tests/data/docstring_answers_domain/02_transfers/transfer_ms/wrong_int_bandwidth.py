# breaks: "Predicted milliseconds to move nbytes bytes at gb_per_s gigabytes per second (1 GB = 1e9 bytes)."
# how: keeps the bytes per second an exact integer with int(gb_per_s): a fractional bandwidth (15.75) is truncated
def transfer_ms(nbytes, gb_per_s) -> float:
    bytes_per_second = int(gb_per_s) * 10**9
    return nbytes * 1000 / bytes_per_second
