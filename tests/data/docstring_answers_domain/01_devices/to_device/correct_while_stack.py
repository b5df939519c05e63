# reading: a device in either spelling is turned into a torch.device first
# how: torch.device(device) and bool(non_blocking) passed by keyword
def to_device(obj, device, non_blocking=False):
    if isinstance(obj, torch.Tensor):
        return obj.to(device=torch.device(device), non_blocking=bool(non_blocking))
    if isinstance(obj, dict):
        return {k: to_device(v, device, non_blocking) for k, v in obj.items()}
    if isinstance(obj, (list, tuple)):
        return type(obj)(to_device(v, device, non_blocking) for v in obj)
    return obj
