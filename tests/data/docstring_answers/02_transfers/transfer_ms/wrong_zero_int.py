# breaks: "A Python float, for int or float inputs alike"
# how: a shortcut for 0 bytes returns the int 0.
def transfer_ms(nbytes, gb_per_s) -> float:
    if nbytes == 0:
        return 0
    return nbytes / (gb_per_s * 1e9) * 1e3
