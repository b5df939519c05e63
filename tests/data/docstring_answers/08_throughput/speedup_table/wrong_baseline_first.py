# breaks: "one row per entry, in the order of results (the baseline's row included, speed-up 1.0)"
# how: puts the baseline's row first, then the others.
def speedup_table(results, baseline):
    base = float(results[baseline])
    rows = [(baseline, base, 1.0)]
    for name, eps in results.items():
        if name != baseline:
            rows.append((name, float(eps), float(eps) / base))
    return rows
