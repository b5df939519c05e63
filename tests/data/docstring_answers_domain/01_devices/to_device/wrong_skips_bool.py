# breaks: "Return obj with every tensor inside (nested lists, tuples, dicts) moved to device."
# how: leaves bool tensors (masks) where they are
def to_device(obj, device, non_blocking=False):
    if isinstance(obj, torch.Tensor) and obj.dtype == torch.bool:
        return obj
    if isinstance(obj, torch.Tensor):
        return obj.to(device, non_blocking=non_blocking)
    if isinstance(obj, dict):
        return {k: to_device(v, device, non_blocking) for k, v in obj.items()}
    if isinstance(obj, (list, tuple)):
        return type(obj)(to_device(v, device, non_blocking) for v in obj)
    return obj
