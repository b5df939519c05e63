# breaks: "Return obj with every tensor inside (nested lists, tuples, dicts) moved to device."
# how: understands a device given as a str only; a torch.device sends the tensors to the CPU
def to_device(obj, device, non_blocking=False):
    if isinstance(obj, torch.Tensor):
        return obj.to(device if isinstance(device, str) else 'cpu', non_blocking=non_blocking)
    if isinstance(obj, dict):
        return {k: to_device(v, device, non_blocking) for k, v in obj.items()}
    if isinstance(obj, (list, tuple)):
        return type(obj)(to_device(v, device, non_blocking) for v in obj)
    return obj
