# breaks: "Forward pass and loss under torch.autocast(device_type=device_type, dtype=dtype)."
# how: omits dtype, so autocast uses the device's default (float16 on CUDA, bfloat16 on CPU) whatever dtype says
import torch


def amp_forward(model, x, y, criterion, device_type, dtype):
    with torch.autocast(device_type=device_type):
        logits = model(x)
        loss = criterion(logits, y)
    return logits, loss
