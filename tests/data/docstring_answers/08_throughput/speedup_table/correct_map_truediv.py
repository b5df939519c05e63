# reading: rows as tuples; float() applied before the division, so ints give floats.
# how: operator.itemgetter for the baseline (KeyError), zip/map for the columns.
import operator


def speedup_table(results, baseline):
    base = float(operator.itemgetter(baseline)(results))
    names = list(results.keys())
    rates = [float(v) for v in results.values()]
    speedups = map(operator.truediv, rates, [base] * len(rates))
    return list(zip(names, rates, speedups))
