# breaks: "found_inf: (scale * backoff_factor, 0)."
# how: backs the scale off but leaves the tracker where it was
def next_scale(scale, growth_tracker, found_inf, growth_factor=2.0, backoff_factor=0.5,
               growth_interval=2000):
    if found_inf:
        return float(scale) * backoff_factor, int(growth_tracker)
    growth_tracker += 1
    if growth_tracker >= growth_interval:
        return float(scale) * growth_factor, 0
    return float(scale), int(growth_tracker)
