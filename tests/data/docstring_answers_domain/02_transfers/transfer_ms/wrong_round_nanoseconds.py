# breaks: "never rounded to whole milliseconds."
# how: rounds to a millionth of a millisecond (whole nanoseconds): the tiniest copies come out as 0.0 or off by far
def transfer_ms(nbytes, gb_per_s) -> float:
    return round(nbytes / (gb_per_s * 1e9) * 1e3, 6)
