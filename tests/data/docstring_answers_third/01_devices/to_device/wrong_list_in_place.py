# breaks: "obj itself and the containers inside it are not modified."
# how: rewrites list elements in place (slice assignment) and returns the same list object
import torch


def to_device(obj, device, non_blocking=False):
    if isinstance(obj, torch.Tensor):
        return obj.to(device, non_blocking=non_blocking)
    if isinstance(obj, list):
        obj[:] = [to_device(v, device, non_blocking) for v in obj]
        return obj
    if isinstance(obj, tuple):
        return tuple(to_device(v, device, non_blocking) for v in obj)
    if isinstance(obj, dict):
        return {k: to_device(v, device, non_blocking) for k, v in obj.items()}
    return obj
