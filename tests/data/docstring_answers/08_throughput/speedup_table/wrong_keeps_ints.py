# breaks: "the numbers are Python floats even when results holds ints"
# how: passes the examples-per-second value through as given (an int stays an int).
def speedup_table(results, baseline):
    base = results[baseline]
    return [(name, eps, eps / base) for name, eps in results.items()]
