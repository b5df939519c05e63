# breaks: "other objects (numbers, strings, None) are returned as they are."
# how: deep-copies every object that is not a tensor or a container (an object() comes back as a copy)
def to_device(obj, device, non_blocking=False):
    if isinstance(obj, torch.Tensor):
        return obj.to(device, non_blocking=non_blocking)
    if isinstance(obj, dict):
        return {k: to_device(v, device, non_blocking) for k, v in obj.items()}
    if isinstance(obj, (list, tuple)):
        return type(obj)(to_device(v, device, non_blocking) for v in obj)
    import copy
    return copy.deepcopy(obj)
