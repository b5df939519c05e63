# breaks: "found_inf: (scale * backoff_factor, 0)."
# how: never backs the scale off below 1.0 (a floor some scalers have): a scale of 1.0 or less stays where it is
def next_scale(scale, growth_tracker, found_inf, growth_factor=2.0, backoff_factor=0.5,
               growth_interval=2000):
    if found_inf:
        return max(float(scale) * backoff_factor, 1.0), 0
    if growth_tracker + 1 == growth_interval:
        return float(scale) * growth_factor, 0
    return float(scale), growth_tracker + 1
