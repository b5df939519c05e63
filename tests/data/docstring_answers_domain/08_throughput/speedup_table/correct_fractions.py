# reading: a speed-up is the exact ratio rounded once to a float
# how: fractions.Fraction for the ratio; the KeyError comes from an explicit membership test
from fractions import Fraction


def speedup_table(results, baseline):
    if baseline not in results:
        raise KeyError(f"baseline {baseline!r} not measured")
    reference = Fraction(results[baseline])
    table = []
    for name in results.keys():
        value = results[name]
        table.append((name, float(value), float(Fraction(value) / reference)))
    return table
