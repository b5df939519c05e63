# breaks: "A list comes back as a new list, a tuple as a new tuple, a dict as a new dict with the same keys in the same order"
# how: handles list and tuple in one branch and always rebuilds a list
import torch


def to_device(obj, device, non_blocking=False):
    if isinstance(obj, torch.Tensor):
        return obj.to(device, non_blocking=non_blocking)
    if isinstance(obj, (list, tuple)):
        return [to_device(v, device, non_blocking) for v in obj]
    if isinstance(obj, dict):
        return {k: to_device(v, device, non_blocking) for k, v in obj.items()}
    return obj
