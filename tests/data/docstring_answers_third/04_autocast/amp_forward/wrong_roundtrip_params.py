# breaks: "The model's parameters are not modified (still float32)"
# how: casts the model to dtype for the forward and back to float32 afterwards: dtype restored, values rounded
import torch


def amp_forward(model, x, y, criterion, device_type, dtype):
    model.to(dtype)
    try:
        with torch.autocast(device_type=device_type, dtype=dtype):
            logits = model(x.to(dtype))
            loss = criterion(logits, y)
    finally:
        model.float()
    return logits, loss
