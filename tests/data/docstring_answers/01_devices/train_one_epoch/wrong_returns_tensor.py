# breaks: "return the mean loss per example (a float)."
# how: accumulates on the device to avoid a sync per batch and returns the 0-d tensor, not a Python float.
def train_one_epoch(model, loader, optimizer, criterion, device) -> float:
    model.train()
    total = torch.zeros((), device=device)
    count = 0
    for x, y in loader:
        x = x.to(device, non_blocking=True)
        y = y.to(device, non_blocking=True)
        optimizer.zero_grad()
        loss = criterion(model(x), y)
        loss.backward()
        optimizer.step()
        total += loss.detach() * len(x)
        count += len(x)
    return total / count
