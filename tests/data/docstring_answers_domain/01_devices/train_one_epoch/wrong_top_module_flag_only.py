# breaks: "Every forward pass runs in training mode"
# how: sets model.training = True on the top module only; its dropout and BatchNorm layers stay in eval mode
def train_one_epoch(model, loader, optimizer, criterion, device) -> float:
    model.training = True
    total, count = 0.0, 0
    for x, y in loader:
        x, y = x.to(device, non_blocking=True), y.to(device, non_blocking=True)
        optimizer.zero_grad()
        loss = criterion(model(x), y)
        loss.backward()
        optimizer.step()
        total += loss.item() * x.shape[0]
        count += x.shape[0]
    return total / count
