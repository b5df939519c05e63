# reading: in-place arithmetic is allowed on the new float32 tensor (never on x_uint8).
# how: explicit uint8 move, .to(dtype=torch.float32) on the device, then div_/sub_/div_ in place
#      (the dtype change always makes a new tensor, so x_uint8 is never written).
def normalize_on_device(x_uint8, device, mean, std):
    on_device = x_uint8.to(device=device, non_blocking=True)
    out = on_device.to(dtype=torch.float32)
    return out.div_(255).sub_(mean).div_(std)
