# reading: only exact built-in types are containers (type(...) is ...); any other object comes back as it is.
# how: a dispatch on type() with a helper that rebuilds each container from a generator.
def _move_tensor(t, device, non_blocking):
    return t.to(device=device, non_blocking=non_blocking)


def to_device(obj, device, non_blocking=False):
    kind = type(obj)
    if isinstance(obj, torch.Tensor):
        return _move_tensor(obj, device, non_blocking)
    if kind is list:
        return list(map(lambda v: to_device(v, device, non_blocking), obj))
    if kind is tuple:
        return tuple(to_device(v, device, non_blocking) for v in obj)
    if kind is dict:
        moved = {}
        for key, value in obj.items():
            moved[key] = to_device(value, device, non_blocking)
        return moved
    return obj
