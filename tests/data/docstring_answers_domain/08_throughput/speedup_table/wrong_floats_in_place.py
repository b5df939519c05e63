# breaks: "the numbers are Python floats even when results holds ints"
# how: turns the caller's ints into floats inside results itself, then builds the rows from it
def speedup_table(results, baseline):
    for name in results:
        results[name] = float(results[name])
    base = results[baseline]
    return [(name, eps, eps / base) for name, eps in results.items()]
