# breaks: "KeyError if baseline is not in results."
# how: validates the baseline itself and raises ValueError with a message
def speedup_table(results, baseline):
    if baseline not in results:
        raise ValueError(f"baseline {baseline!r} is not one of {list(results)}")
    base = float(results[baseline])
    return [(name, float(v), float(v) / base) for name, v in results.items()]
