# breaks: "Every forward pass runs in training mode (the mode left afterwards is free)."
# how: never calls model.train(); a freshly built model is in training mode already, one left in eval is not.
def train_one_epoch(model, loader, optimizer, criterion, device) -> float:
    total, count = 0.0, 0
    for x, y in loader:
        x = x.to(device, non_blocking=True)
        y = y.to(device, non_blocking=True)
        optimizer.zero_grad()
        loss = criterion(model(x), y)
        loss.backward()
        optimizer.step()
        total += loss.item() * len(x)
        count += len(x)
    return total / count
