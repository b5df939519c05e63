# breaks: "gradients are zeroed before each backward, so the model's leftover gradients never reach a step."
# how: zeroes after optimizer.step() instead of before backward, so gradients left on the model reach the first step
import torch


def train_one_epoch(model, loader, optimizer, criterion, device) -> float:
    model.train()
    total, n = 0.0, 0
    for x, y in loader:
        x = x.to(device, non_blocking=True)
        y = y.to(device, non_blocking=True)
        loss = criterion(model(x), y)
        loss.backward()
        optimizer.step()
        optimizer.zero_grad()
        total += loss.item() * len(y)
        n += len(y)
    return total / n
