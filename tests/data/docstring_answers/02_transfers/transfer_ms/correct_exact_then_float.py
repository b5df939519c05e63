# reading: exact rational arithmetic, converted to a float once at the end.
# how: fractions.Fraction for the ratio, float() on return.
from fractions import Fraction


def transfer_ms(nbytes, gb_per_s) -> float:
    seconds = Fraction(nbytes) / (Fraction(gb_per_s) * 10**9)
    return float(seconds * 1000)
