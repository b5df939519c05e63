# breaks: "and never grown beyond float32's range."
# how: Python floats go to 1.8e308, so the scale keeps growing past float32's maximum.
def next_scale(scale, growth_tracker, found_inf, growth_factor=2.0, backoff_factor=0.5,
               growth_interval=2000):
    if found_inf:
        return float(scale) * backoff_factor, 0
    tracker = growth_tracker + 1
    if tracker >= growth_interval:
        return float(scale) * growth_factor, 0
    return float(scale), tracker
