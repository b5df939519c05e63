# reading: computed in float32, exactly as GradScaler does, with its own kernel torch._amp_update_scale_.
# how: builds the 1-element tensors GradScaler keeps and reads them back as float and int.
def next_scale(scale, growth_tracker, found_inf, growth_factor=2.0, backoff_factor=0.5,
               growth_interval=2000):
    s = torch.full((1,), float(scale), dtype=torch.float32)
    tracker = torch.full((1,), int(growth_tracker), dtype=torch.int32)
    inf = torch.full((1,), 1.0 if found_inf else 0.0, dtype=torch.float32)
    torch._amp_update_scale_(s, tracker, inf, growth_factor, backoff_factor, growth_interval)
    return float(s.item()), int(tracker.item())
