# breaks: "Return obj with every tensor inside (nested lists, tuples, dicts) moved to device."
# how: moves a complex tensor's real part only
def to_device(obj, device, non_blocking=False):
    if isinstance(obj, torch.Tensor):
        return obj.to(device, non_blocking=non_blocking) if not obj.is_complex() else obj.real.to(device)
    if isinstance(obj, dict):
        return {k: to_device(v, device, non_blocking) for k, v in obj.items()}
    if isinstance(obj, (list, tuple)):
        return type(obj)(to_device(v, device, non_blocking) for v in obj)
    return obj
