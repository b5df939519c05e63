# breaks: "Returns the batch's loss, from before the step, as a float."
# how: measures the loss to return in a forward pass of its own (no_grad) before the training forward: the model
#      runs twice, so dropout draws another mask and BatchNorm's running statistics move twice
import torch


def bf16_train_step(model, x, y, optimizer, criterion, device_type) -> float:
    optimizer.zero_grad()
    with torch.autocast(device_type=device_type, dtype=torch.bfloat16):
        with torch.no_grad():
            value = criterion(model(x), y).item()
        loss = criterion(model(x), y)
    loss.backward()
    optimizer.step()
    return value
