# breaks: "gradients are zeroed before each backward, so the model's leftover gradients never reach a step."
# how: clears the gradients of the optimizer's first parameter group only; a second group keeps its leftovers
def train_one_epoch(model, loader, optimizer, criterion, device) -> float:
    model.train()
    params = optimizer.param_groups[0]["params"]
    total, count = 0.0, 0
    for x, y in loader:
        x, y = x.to(device, non_blocking=True), y.to(device, non_blocking=True)
        for p in params:
            p.grad = None
        loss = criterion(model(x), y)
        loss.backward()
        optimizer.step()
        total += loss.item() * len(x)
        count += len(x)
    return total / count
