# breaks: "return the mean loss per example (a float)."
# how: accumulates detached loss tensors (avoids a sync per batch) and returns a 0-d tensor, not a float.
def train_one_epoch(model, loader, optimizer, criterion, device) -> float:
    model.train()
    total, count = 0, 0
    for x, y in loader:
        x, y = x.to(device, non_blocking=True), y.to(device, non_blocking=True)
        optimizer.zero_grad()
        loss = criterion(model(x), y)
        loss.backward()
        optimizer.step()
        total = total + loss.detach() * len(y)
        count += len(y)
    return total / count
