# reading: (x - 255*mean) / (255*std) equals (x/255 - mean)/std up to float32 rounding.
# how: converts during the copy and folds 255 into the constants, in place on the new tensor.
def normalize_on_device(x_uint8, device, mean, std):
    x = x_uint8.to(device, torch.float32, non_blocking=True)
    return x.sub_(255.0 * mean).div_(255.0 * std)
