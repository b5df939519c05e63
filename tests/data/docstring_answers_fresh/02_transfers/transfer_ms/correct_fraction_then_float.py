# reading: exact rational arithmetic, one rounding to the nearest float at the end.
# how: fractions.Fraction for the computation, float() of the result.
from fractions import Fraction


def transfer_ms(nbytes, gb_per_s) -> float:
    return float(Fraction(nbytes) / (Fraction(gb_per_s) * 1_000_000))
