# breaks: "Returns the scale as a Python float (also when it is given as an int)"
# how: returns the given scale object unchanged on the clean, no-growth path (an int stays an int)
def next_scale(scale, growth_tracker, found_inf, growth_factor=2.0, backoff_factor=0.5,
               growth_interval=2000):
    if found_inf:
        return scale * backoff_factor, 0
    tracker = growth_tracker + 1
    if tracker == growth_interval:
        return scale * growth_factor, 0
    return scale, tracker
