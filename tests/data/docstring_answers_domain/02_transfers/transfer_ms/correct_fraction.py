# reading: the exact quotient, rounded once to a float at the end
# how: fractions.Fraction of both inputs (exact for ints and floats alike), then float()
from fractions import Fraction


def transfer_ms(nbytes, gb_per_s) -> float:
    return float(Fraction(nbytes) * 1000 / (Fraction(gb_per_s) * 10**9))
