# breaks: "Train model for one pass over loader on device"
# how: treats device as a string (device.startswith), so a torch.device raises AttributeError
import torch


def train_one_epoch(model, loader, optimizer, criterion, device) -> float:
    model.train()
    total, count = 0.0, 0
    for x, y in loader:
        x, y = x.to(device, non_blocking=True), y.to(device, non_blocking=True)
        optimizer.zero_grad()
        loss = criterion(model(x), y)
        loss.backward()
        optimizer.step()
        total += loss.item() * len(y)
        count += len(y)
    if device.startswith("cuda"):
        torch.cuda.synchronize()  # every step done before returning
    return total / count
