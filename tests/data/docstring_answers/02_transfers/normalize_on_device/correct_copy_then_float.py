# reading: the uint8 tensor crosses, the float conversion happens after it on the device.
# how: copy, then torch.div/sub/div with out-of-place functional calls and an explicit dtype.
def normalize_on_device(x_uint8, device, mean, std):
    on_device = x_uint8.to(device=device, non_blocking=True)
    scaled = torch.div(on_device.to(torch.float32), 255)
    return torch.div(torch.sub(scaled, mean), std)
