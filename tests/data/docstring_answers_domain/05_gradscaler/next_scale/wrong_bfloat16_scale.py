# breaks: "Scales are compared with GradScaler's (float32) to a relative 1e-5"
# how: keeps the scale in a bfloat16 tensor (8 significant bits): exact for powers of two, off by up to 0.4 % for
#      other factors
import torch


def next_scale(scale, growth_tracker, found_inf, growth_factor=2.0, backoff_factor=0.5,
               growth_interval=2000):
    s = torch.tensor(float(scale), dtype=torch.bfloat16)
    if found_inf:
        return float(s * backoff_factor), 0
    if growth_tracker + 1 == growth_interval:
        return float(s * growth_factor), 0
    return float(s), growth_tracker + 1
