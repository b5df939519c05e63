# breaks: "A list comes back as a new list, a tuple as a new tuple, a dict as a new dict"
# how: a shortcut returns an empty container itself (the same object), not a new one.
def to_device(obj, device, non_blocking=False):
    if isinstance(obj, torch.Tensor):
        return obj.to(device, non_blocking=non_blocking)
    if isinstance(obj, (list, tuple, dict)) and len(obj) == 0:
        return obj  # nothing to move
    if isinstance(obj, dict):
        return {k: to_device(v, device, non_blocking) for k, v in obj.items()}
    if isinstance(obj, list):
        return [to_device(v, device, non_blocking) for v in obj]
    if isinstance(obj, tuple):
        return tuple(to_device(v, device, non_blocking) for v in obj)
    return obj
