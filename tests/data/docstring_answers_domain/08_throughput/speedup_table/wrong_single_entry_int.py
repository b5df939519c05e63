# breaks: "the numbers are Python floats even when results holds ints"
# how: a table of one configuration is answered at once, with the speed as given and an int speed-up of 1
def speedup_table(results, baseline):
    if len(results) == 1:
        return [(baseline, results[baseline], 1)]
    base = float(results[baseline])
    return [(name, float(eps), float(eps) / base) for name, eps in results.items()]
