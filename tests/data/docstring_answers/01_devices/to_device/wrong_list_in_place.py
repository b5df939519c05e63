# breaks: "obj itself and the containers inside it are not modified."
# how: replaces the elements of lists (and values of dicts) in place and returns the same objects.
def to_device(obj, device, non_blocking=False):
    if isinstance(obj, torch.Tensor):
        return obj.to(device, non_blocking=non_blocking)
    if isinstance(obj, list):
        for i, v in enumerate(obj):
            obj[i] = to_device(v, device, non_blocking)
        return list(obj)
    if isinstance(obj, tuple):
        return tuple(to_device(v, device, non_blocking) for v in obj)
    if isinstance(obj, dict):
        for k in obj:
            obj[k] = to_device(obj[k], device, non_blocking)
        return dict(obj)
    return obj
