# breaks: "KeyError if baseline is not in results."
# how: checks membership itself and raises ValueError with a friendlier message.
def speedup_table(results, baseline):
    if baseline not in results:
        raise ValueError(f"baseline {baseline!r} is not among {list(results)}")
    base = float(results[baseline])
    return [(name, float(eps), float(eps) / base) for name, eps in results.items()]
