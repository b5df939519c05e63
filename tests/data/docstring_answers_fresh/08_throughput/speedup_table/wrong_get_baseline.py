# breaks: "KeyError if baseline is not in results."
# how: results.get(baseline): a missing baseline gives None and then a TypeError, not a KeyError.
def speedup_table(results, baseline):
    base = results.get(baseline)
    table = []
    for name, value in results.items():
        table.append((name, float(value), float(value) / base))
    return table
