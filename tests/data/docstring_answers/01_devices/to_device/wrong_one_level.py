# breaks: "Return obj with every tensor inside (nested lists, tuples, dicts) moved to device."
# how: moves the tensors of the outer container only; containers inside it are copied but their tensors stay.
def to_device(obj, device, non_blocking=False):
    def move(v):
        return v.to(device, non_blocking=non_blocking) if isinstance(v, torch.Tensor) else v
    if isinstance(obj, torch.Tensor):
        return move(obj)
    if isinstance(obj, list):
        return [move(v) for v in obj]
    if isinstance(obj, tuple):
        return tuple(move(v) for v in obj)
    if isinstance(obj, dict):
        return {k: move(v) for k, v in obj.items()}
    return obj
