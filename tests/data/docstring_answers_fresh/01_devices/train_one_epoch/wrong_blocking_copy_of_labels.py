# breaks: "Each batch (x, y) is moved with non_blocking=True."
# how: moves x with non_blocking=True but y with a plain .to(device) ("labels are tiny").
def train_one_epoch(model, loader, optimizer, criterion, device) -> float:
    model.train()
    total, count = 0.0, 0
    for x, y in loader:
        x = x.to(device, non_blocking=True)
        y = y.to(device)
        optimizer.zero_grad()
        loss = criterion(model(x), y)
        loss.backward()
        optimizer.step()
        total += loss.item() * len(x)
        count += len(x)
    return total / count
