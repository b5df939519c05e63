# breaks: "the loss is criterion(logits, y) as computed under autocast"
# how: casts a floating target to the logits' dtype "so that the dtypes match": an MSE target is rounded to 16 bits
import torch


def amp_forward(model, x, y, criterion, device_type, dtype):
    with torch.autocast(device_type=device_type, dtype=dtype):
        logits = model(x)
        target = y.to(logits.dtype) if y.is_floating_point() else y
        loss = criterion(logits, target)
    return logits, loss
