# breaks: "the tracker counts one more clean step; when it reaches growth_interval: (scale * growth_factor, 0)"
# how: compares the old tracker (before counting this step) with growth_interval
def next_scale(scale, growth_tracker, found_inf, growth_factor=2.0, backoff_factor=0.5,
               growth_interval=2000):
    if found_inf:
        return float(scale * backoff_factor), 0
    if growth_tracker >= growth_interval:
        return float(scale * growth_factor), 0
    return float(scale), int(growth_tracker + 1)
