# breaks: "A Python float, for int or float inputs alike"
# how: exact arithmetic with fractions.Fraction, returned as a Fraction (it formats with :.2f, so the demo prints).
from fractions import Fraction


def transfer_ms(nbytes, gb_per_s) -> float:
    return Fraction(nbytes) * 1000 / (Fraction(gb_per_s) * 10**9)
