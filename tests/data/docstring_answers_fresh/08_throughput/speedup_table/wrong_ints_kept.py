# breaks: "the numbers are Python floats even when results holds ints"
# how: the examples per second are passed through as given (ints stay ints); only the division makes a float.
def speedup_table(results, baseline):
    base = results[baseline]
    return [(name, eps, eps / base) for name, eps in results.items()]
