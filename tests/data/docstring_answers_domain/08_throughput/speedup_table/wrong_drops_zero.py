# breaks: "one row per entry"
# how: leaves out a configuration that processed nothing (0 examples per second)
def speedup_table(results, baseline):
    base = float(results[baseline])
    return [(name, float(eps), float(eps) / base) for name, eps in results.items() if eps > 0]
