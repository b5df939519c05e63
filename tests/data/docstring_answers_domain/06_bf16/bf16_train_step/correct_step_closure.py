# reading: optimizer.step may run the step's closure (SGD and AdamW call it once), the loss from before the step
# how: zero_grad, autocast forward and backward inside a closure handed to optimizer.step(closure)
import torch


def bf16_train_step(model, x, y, optimizer, criterion, device_type) -> float:
    def closure():
        optimizer.zero_grad()
        with torch.autocast(device_type, dtype=torch.bfloat16):
            batch_loss = criterion(model(x), y)
        batch_loss.backward()
        return batch_loss

    return float(optimizer.step(closure))
