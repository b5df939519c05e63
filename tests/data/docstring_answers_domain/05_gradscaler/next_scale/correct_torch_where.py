# reading: the scale computed in float32, as GradScaler keeps it (allowed to a relative 1e-5)
# how: 0-d float32 tensors and torch.where for the branch, the tracker by Python arithmetic
import torch


def next_scale(scale, growth_tracker, found_inf, growth_factor=2.0, backoff_factor=0.5,
               growth_interval=2000):
    s = torch.tensor(scale, dtype=torch.float32)
    grows = (not found_inf) and growth_tracker + 1 == growth_interval
    factor = torch.where(torch.tensor(bool(found_inf)), torch.tensor(float(backoff_factor)),
                         torch.tensor(float(growth_factor) if grows else 1.0))
    tracker = 0 if (found_inf or grows) else growth_tracker + 1
    return (s * factor).item(), int(tracker)
