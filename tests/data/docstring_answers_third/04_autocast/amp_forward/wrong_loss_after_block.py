# breaks: "the loss is criterion(logits, y) as computed under autocast (float32 for cross-entropy)"
# how: computes the loss after the autocast block, on the low-precision logits (a float16/bfloat16 loss)
import torch


def amp_forward(model, x, y, criterion, device_type, dtype):
    with torch.autocast(device_type=device_type, dtype=dtype):
        logits = model(x)
    loss = criterion(logits, y)
    return logits, loss
