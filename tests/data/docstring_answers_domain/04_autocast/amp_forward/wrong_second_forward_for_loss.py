# breaks: "the loss is criterion(logits, y) as computed under autocast"
# how: runs the model a second time for the loss: with dropout that loss belongs to other logits than those returned
#      (and BatchNorm counts the batch twice)
import torch


def amp_forward(model, x, y, criterion, device_type, dtype):
    with torch.autocast(device_type=device_type, dtype=dtype):
        logits = model(x)
        loss = criterion(model(x), y)
    return logits, loss
