# breaks: "the numbers are Python floats even when results holds ints"
# how: passes examples_per_second through unchanged (an int stays an int; the speed-up is a float anyway)
def speedup_table(results, baseline):
    base = results[baseline]
    return [(name, eps, eps / base) for name, eps in results.items()]
