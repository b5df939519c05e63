# breaks: "Otherwise the tracker counts one more clean step; when it reaches growth_interval: (scale * growth_factor, 0)"
# how: compares the tracker BEFORE counting the step (growth_tracker >= growth_interval), so growth comes one step late.
def next_scale(scale, growth_tracker, found_inf, growth_factor=2.0, backoff_factor=0.5,
               growth_interval=2000):
    if found_inf:
        return float(scale * backoff_factor), 0
    if growth_tracker >= growth_interval:
        return float(scale * growth_factor), 0
    return float(scale), int(growth_tracker + 1)
