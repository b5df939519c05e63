# breaks: "the loss is criterion(logits, y) as computed under autocast (float32 for cross-entropy)"
# how: casts the loss to float32 always: a criterion that autocast leaves in 16 bits comes back in another dtype
import torch


def amp_forward(model, x, y, criterion, device_type, dtype):
    with torch.autocast(device_type=device_type, dtype=dtype):
        logits = model(x)
        loss = criterion(logits, y)
    return logits, loss.float()
