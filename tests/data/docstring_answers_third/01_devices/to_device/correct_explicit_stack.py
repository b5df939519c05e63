# reading: exact types only (type(obj) is list/tuple/dict), matching "only the built-in list, tuple and dict count"
# how: dispatch table keyed by exact type; dict rebuilt with dict(zip(keys, values)) to keep order
import torch


def _move_tensor(t, device, nb):
    return t.to(device=device, non_blocking=nb)


def to_device(obj, device, non_blocking=False):
    if torch.is_tensor(obj):
        return _move_tensor(obj, device, non_blocking)
    kind = type(obj)
    if kind is dict:
        keys = list(obj.keys())
        return dict(zip(keys, (to_device(obj[k], device, non_blocking) for k in keys)))
    if kind is list or kind is tuple:
        moved = [to_device(v, device, non_blocking) for v in obj]
        return moved if kind is list else tuple(moved)
    return obj
