# breaks: "A Python float, for int or float inputs alike"
# how: computes exactly with fractions.Fraction and returns the Fraction.
from fractions import Fraction


def transfer_ms(nbytes, gb_per_s) -> float:
    return Fraction(nbytes) * 1000 / (Fraction(gb_per_s) * 10**9)
