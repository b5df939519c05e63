# reading: a growth that would overflow float32 keeps the scale and resets the tracker (GradScaler's kernel).
# how: mirrors the kernel in float32 tensors, then .item() and int().
import torch


def next_scale(scale, growth_tracker, found_inf, growth_factor=2.0, backoff_factor=0.5,
               growth_interval=2000):
    current = torch.tensor(float(scale), dtype=torch.float32)
    if bool(found_inf):
        return float((current * backoff_factor).item()), 0
    successful = int(growth_tracker) + 1
    if successful == growth_interval:
        candidate = current * growth_factor
        if torch.isfinite(candidate):
            current = candidate
        return float(current.item()), 0
    return float(current.item()), successful
