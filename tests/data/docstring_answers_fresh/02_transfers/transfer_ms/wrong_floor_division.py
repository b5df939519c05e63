# breaks: "A Python float, for int or float inputs alike; never rounded to whole milliseconds."
# how: keeps to integers as exercise 1 taught, with a floor division: whole milliseconds (an int for int inputs).
def transfer_ms(nbytes, gb_per_s) -> float:
    return nbytes * 1000 // (gb_per_s * 10**9)
