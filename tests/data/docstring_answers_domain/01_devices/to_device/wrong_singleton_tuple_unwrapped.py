# breaks: "a tuple as a new tuple"
# how: a tuple of one item comes back as the item alone
def to_device(obj, device, non_blocking=False):
    if isinstance(obj, torch.Tensor):
        return obj.to(device, non_blocking=non_blocking)
    if isinstance(obj, dict):
        return {k: to_device(v, device, non_blocking) for k, v in obj.items()}
    if type(obj) is tuple and len(obj) == 1:
        return to_device(obj[0], device, non_blocking)
    if isinstance(obj, (list, tuple)):
        return type(obj)(to_device(v, device, non_blocking) for v in obj)
    return obj
