# breaks: "when it reaches growth_interval: (scale * growth_factor, 0)"
# how: caps the scale at 2**24 when it grows (a ceiling some scalers have), far inside float32's range
def next_scale(scale, growth_tracker, found_inf, growth_factor=2.0, backoff_factor=0.5,
               growth_interval=2000):
    if found_inf:
        return float(scale) * backoff_factor, 0
    if growth_tracker + 1 == growth_interval:
        return min(float(scale) * growth_factor, 2.0**24), 0
    return float(scale), growth_tracker + 1
