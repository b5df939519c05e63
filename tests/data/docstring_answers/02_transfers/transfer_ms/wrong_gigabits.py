# breaks: "Predicted milliseconds to move nbytes bytes at gb_per_s gigabytes per second"
# how: reads the rate as gigabits per second (counts 8 bits per byte).
def transfer_ms(nbytes, gb_per_s) -> float:
    bits = nbytes * 8
    return bits / (gb_per_s * 1e9) * 1e3
