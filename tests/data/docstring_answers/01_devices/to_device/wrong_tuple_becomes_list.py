# breaks: "a tuple as a new tuple"
# how: treats lists and tuples alike and always builds a list.
def to_device(obj, device, non_blocking=False):
    if isinstance(obj, torch.Tensor):
        return obj.to(device, non_blocking=non_blocking)
    if isinstance(obj, (list, tuple)):
        return [to_device(v, device, non_blocking) for v in obj]
    if isinstance(obj, dict):
        return {k: to_device(v, device, non_blocking) for k, v in obj.items()}
    return obj
