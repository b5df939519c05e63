# breaks: "gradients are zeroed before each backward, so the model's leftover gradients never reach a step."
# how: zeroes after each step ("clean up"), so gradients the model arrived with are added into the first step.
def train_one_epoch(model, loader, optimizer, criterion, device) -> float:
    model.train()
    total, count = 0.0, 0
    for x, y in loader:
        x, y = x.to(device, non_blocking=True), y.to(device, non_blocking=True)
        loss = criterion(model(x), y)
        loss.backward()
        optimizer.step()
        optimizer.zero_grad()
        total += loss.item() * x.size(0)
        count += x.size(0)
    return total / count
