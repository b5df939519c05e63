# breaks: "found_inf: (scale * backoff_factor, 0)."
# how: backs off the scale but leaves the tracker as it was (only growth "resets" it).
def next_scale(scale, growth_tracker, found_inf, growth_factor=2.0, backoff_factor=0.5,
               growth_interval=2000):
    scale = float(scale)
    if found_inf:
        return scale * backoff_factor, int(growth_tracker)
    growth_tracker += 1
    if growth_tracker >= growth_interval:
        return scale * growth_factor, 0
    return scale, int(growth_tracker)
