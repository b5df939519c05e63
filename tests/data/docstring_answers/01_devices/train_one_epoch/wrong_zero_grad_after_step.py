# breaks: "gradients are zeroed before each backward, so the model's leftover gradients never reach a step."
# how: zeroes after each step, so gradients the model already had reach the first step.
def train_one_epoch(model, loader, optimizer, criterion, device) -> float:
    model.train()
    total, count = 0.0, 0
    for x, y in loader:
        x = x.to(device, non_blocking=True)
        y = y.to(device, non_blocking=True)
        loss = criterion(model(x), y)
        loss.backward()
        optimizer.step()
        optimizer.zero_grad()
        total += loss.item() * len(x)
        count += len(x)
    return total / count
