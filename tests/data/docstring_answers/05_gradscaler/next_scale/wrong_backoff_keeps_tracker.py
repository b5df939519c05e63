# breaks: "found_inf: (scale * backoff_factor, 0)."
# how: backs off but keeps the tracker's count.
import torch


def next_scale(scale, growth_tracker, found_inf, growth_factor=2.0, backoff_factor=0.5,
               growth_interval=2000):
    if found_inf:
        return float(scale * backoff_factor), int(growth_tracker)
    tracker = growth_tracker + 1
    if tracker == growth_interval:
        grown = scale * growth_factor
        if grown <= torch.finfo(torch.float32).max:
            return float(grown), 0
        return float(scale), 0
    return float(scale), int(tracker)
