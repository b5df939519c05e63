# breaks: "Returns the batch's loss, from before the step, as a float."
# how: reports the loss re-evaluated after the step ("the loss the model has now")
import torch


def bf16_train_step(model, x, y, optimizer, criterion, device_type) -> float:
    optimizer.zero_grad()
    with torch.autocast(device_type, dtype=torch.bfloat16):
        loss = criterion(model(x), y)
    loss.backward()
    optimizer.step()
    with torch.no_grad(), torch.autocast(device_type, dtype=torch.bfloat16):
        return float(criterion(model(x), y))
