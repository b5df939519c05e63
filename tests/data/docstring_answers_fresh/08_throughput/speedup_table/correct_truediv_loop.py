# reading: a zero-speed baseline is not considered (it would divide by zero).
# how: operator.truediv on floats in a loop; the baseline is looked up with [] first (KeyError).
import operator


def speedup_table(results, baseline):
    reference = float(results[baseline])
    rows = []
    for label in results:
        speed = float(results[label])
        rows.append((label, speed, operator.truediv(speed, reference)))
    return rows
