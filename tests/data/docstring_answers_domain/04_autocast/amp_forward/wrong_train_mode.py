# breaks: "The model's parameters are not modified (still float32)"
# how: puts the model in training mode for the forward pass (it is a training forward, after all) and leaves it so:
#      a model the caller had in eval mode comes back in training mode
import torch


def amp_forward(model, x, y, criterion, device_type, dtype):
    model.train()
    with torch.autocast(device_type=device_type, dtype=dtype):
        logits = model(x)
        loss = criterion(logits, y)
    return logits, loss
