# breaks: "(the baseline's row included, speed-up 1.0)"
# how: leaves the baseline's own row out ("its speed-up is 1.0 anyway").
def speedup_table(results, baseline):
    base = float(results[baseline])
    return [(name, float(v), float(v) / base) for name, v in results.items() if name != baseline]
