# reading: the documented one-call form (non_blocking=True converts on the device); arithmetic with torch.sub/div.
# how: x_uint8.to(device, torch.float32, non_blocking=True), then torch.div(torch.sub(x / 255, mean), std).
def normalize_on_device(x_uint8, device, mean, std):
    x = x_uint8.to(device, torch.float32, non_blocking=True)
    return torch.div(torch.sub(torch.div(x, 255), mean), std)
