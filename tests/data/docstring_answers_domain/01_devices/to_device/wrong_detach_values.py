# breaks: "obj itself and the containers inside it are not modified."
# how: zeroes int8 and int16 tensors after the move: moving to the device they are on, .to returns the input itself
def to_device(obj, device, non_blocking=False):
    if isinstance(obj, torch.Tensor):
        return obj.to(device, non_blocking=non_blocking).zero_() if obj.dtype in (torch.int8, torch.int16) else obj.to(device, non_blocking=non_blocking)
    if isinstance(obj, dict):
        return {k: to_device(v, device, non_blocking) for k, v in obj.items()}
    if isinstance(obj, (list, tuple)):
        return type(obj)(to_device(v, device, non_blocking) for v in obj)
    return obj
