# breaks: "Predicted milliseconds to move nbytes bytes at gb_per_s gigabytes per second (1 GB = 1e9 bytes)."
# how: reads "a small copy takes a small time, not 0" as "never 0": 0 bytes take a nanosecond
def transfer_ms(nbytes, gb_per_s) -> float:
    return max(nbytes / (gb_per_s * 1e9) * 1e3, 1e-6)
