# reading: the baseline's speed-up written as the literal 1.0 (equal to its ratio).
# how: a loop with an explicit branch for the baseline, lookup with [] first so a missing one raises KeyError.
def speedup_table(results, baseline):
    reference = float(results[baseline])
    table = []
    for name in results:
        rate = float(results[name])
        ratio = 1.0 if name == baseline else rate / reference
        table.append((name, rate, ratio))
    return table
