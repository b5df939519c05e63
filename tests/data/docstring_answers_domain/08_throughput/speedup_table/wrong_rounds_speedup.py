# breaks: "[(name, examples_per_second, speedup_vs_baseline), ...]"
# how: rounds each speed-up to two decimals (as a table would print it)
def speedup_table(results, baseline):
    base = float(results[baseline])
    return [(name, float(eps), round(float(eps) / base, 2)) for name, eps in results.items()]
