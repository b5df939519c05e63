# breaks: "one row per entry, in the order of results"
# how: finds each row's name by the index of its speed in the list of speeds: two configurations equally fast get the first one's name
def speedup_table(results, baseline):
    names, speeds = list(results), list(results.values())
    base = float(results[baseline])
    return [(names[speeds.index(eps)], float(eps), float(eps) / base) for eps in speeds]
