# breaks: "For every batch: zero the gradients, forward, loss, backward, optimizer step"
# how: skips a batch of one example (BatchNorm cannot train on one): a last batch of one is not trained on or counted
def train_one_epoch(model, loader, optimizer, criterion, device) -> float:
    model.train()
    total, count = 0.0, 0
    for x, y in loader:
        if len(y) < 2:
            continue  # batch statistics need two examples or more
        x, y = x.to(device, non_blocking=True), y.to(device, non_blocking=True)
        optimizer.zero_grad()
        loss = criterion(model(x), y)
        loss.backward()
        optimizer.step()
        total += loss.item() * len(y)
        count += len(y)
    return total / count
