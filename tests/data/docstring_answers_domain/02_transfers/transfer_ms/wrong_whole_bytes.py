# breaks: "A Python float, for int or float inputs alike"
# how: a byte count is whole, so int(nbytes): a float nbytes such as 2.5 (an average) loses its fraction
def transfer_ms(nbytes, gb_per_s) -> float:
    return int(nbytes) / (gb_per_s * 1e6)
