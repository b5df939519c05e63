# breaks: "Returns the scale as a Python float and the tracker as a Python int."
# how: computes in a float32 tensor like GradScaler and returns the tensor.
import torch


def next_scale(scale, growth_tracker, found_inf, growth_factor=2.0, backoff_factor=0.5,
               growth_interval=2000):
    s = torch.tensor(scale, dtype=torch.float32)
    if found_inf:
        return s * backoff_factor, 0
    tracker = growth_tracker + 1
    if tracker == growth_interval:
        grown = s * growth_factor
        return (grown if torch.isfinite(grown) else s), 0
    return s, tracker
