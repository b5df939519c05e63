# reading: arithmetic in float32, as GradScaler keeps its scale, then returned as Python float/int
# how: computes with 0-d float32 tensors; a match statement picks the branch
import torch


def next_scale(scale, growth_tracker, found_inf, growth_factor=2.0, backoff_factor=0.5,
               growth_interval=2000):
    s = torch.tensor(float(scale), dtype=torch.float32)
    counted = int(growth_tracker) + 1
    match (bool(found_inf), counted >= growth_interval):
        case (True, _):
            s, counted = s * backoff_factor, 0
        case (False, True):
            s, counted = s * growth_factor, 0
    return float(s.item()), int(counted)
