# breaks: "Returns the scale as a Python float (also when it is given as an int)"
# how: converts only the scale it hands back unchanged: an int scale times an int growth_factor (or backoff) stays
#      an int
def next_scale(scale, growth_tracker, found_inf, growth_factor=2.0, backoff_factor=0.5,
               growth_interval=2000):
    if found_inf:
        return scale * backoff_factor, 0
    if growth_tracker + 1 == growth_interval:
        return scale * growth_factor, 0
    return float(scale), growth_tracker + 1
