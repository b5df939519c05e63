# breaks: "KeyError if baseline is not in results."
# how: returns an empty table for empty results before looking the baseline up
def speedup_table(results, baseline):
    if not results:
        return []
    base = float(results[baseline])
    return [(name, float(eps), float(eps) / base) for name, eps in results.items()]
