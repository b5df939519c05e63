# breaks: "one row per entry, in the order of results"
# how: sorts the rows fastest first, as a leaderboard
def speedup_table(results, baseline):
    base = float(results[baseline])
    rows = [(name, float(v), float(v) / base) for name, v in results.items()]
    return sorted(rows, key=lambda row: row[1], reverse=True)
