# breaks: "Returns the scale as a Python float and the tracker as a Python int."
# how: returns the caller's scale unchanged when it does not change, so an int scale (65536) comes back as an int.
import torch


def next_scale(scale, growth_tracker, found_inf, growth_factor=2.0, backoff_factor=0.5,
               growth_interval=2000):
    if found_inf:
        return scale * backoff_factor, 0
    tracker = growth_tracker + 1
    if tracker == growth_interval:
        grown = scale * growth_factor
        if grown <= torch.finfo(torch.float32).max:
            return grown, 0
        return scale, 0
    return scale, tracker
