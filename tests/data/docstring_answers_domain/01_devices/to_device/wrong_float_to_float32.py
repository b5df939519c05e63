# breaks: "Return obj with every tensor inside (nested lists, tuples, dicts) moved to device."
# how: moves floating tensors as float32 (a float16 or bfloat16 batch changes dtype)
def to_device(obj, device, non_blocking=False):
    if isinstance(obj, torch.Tensor):
        return obj.to(device, non_blocking=non_blocking) if not obj.is_floating_point() else obj.to(device, torch.float32, non_blocking=non_blocking)
    if isinstance(obj, dict):
        return {k: to_device(v, device, non_blocking) for k, v in obj.items()}
    if isinstance(obj, (list, tuple)):
        return type(obj)(to_device(v, device, non_blocking) for v in obj)
    return obj
