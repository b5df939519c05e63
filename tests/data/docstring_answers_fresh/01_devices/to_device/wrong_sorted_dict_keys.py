# breaks: "a dict as a new dict with the same keys in the same order"
# how: rebuilds the dict over sorted(obj) (deterministic, the student thought), which reorders keys
#      that were not inserted in sorted order.
def to_device(obj, device, non_blocking=False):
    if isinstance(obj, torch.Tensor):
        return obj.to(device, non_blocking=non_blocking)
    if isinstance(obj, dict):
        return {k: to_device(obj[k], device, non_blocking) for k in sorted(obj, key=str)}
    if isinstance(obj, list):
        return [to_device(v, device, non_blocking) for v in obj]
    if isinstance(obj, tuple):
        return tuple(to_device(v, device, non_blocking) for v in obj)
    return obj
