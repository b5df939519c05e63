# breaks: "return the mean loss per example (a float)."
# how: reports each batch's loss recomputed after the optimizer step (a second forward), not the loss it trained on
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
        with torch.no_grad():
            loss = criterion(model(x), y)  # the loss of the updated model
        total += loss.item() * len(y)
        count += len(y)
    return total / count
