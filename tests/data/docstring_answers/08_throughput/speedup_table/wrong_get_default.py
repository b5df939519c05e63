# breaks: "KeyError if baseline is not in results."
# how: results.get(baseline, 1.0) makes a missing baseline a silent 1 example/s.
def speedup_table(results, baseline):
    base = float(results.get(baseline, 1.0))
    return [(name, float(eps), float(eps) / base) for name, eps in results.items()]
