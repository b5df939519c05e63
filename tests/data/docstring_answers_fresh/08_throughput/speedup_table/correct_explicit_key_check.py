# reading: the baseline's speed-up is computed like the others (v / v == 1.0 for any positive float).
# how: an explicit membership test raising KeyError, then a comprehension over a float copy of the dict.
def speedup_table(results, baseline):
    if baseline not in results:
        raise KeyError(baseline)
    speeds = {name: float(value) for name, value in results.items()}
    return [(name, speed, speed / speeds[baseline]) for name, speed in speeds.items()]
