# breaks: "return the mean loss per example (a float)."
# how: averages the batch losses, so a short last batch weighs as much as a full one.
def train_one_epoch(model, loader, optimizer, criterion, device) -> float:
    model.train()
    losses = []
    for x, y in loader:
        x = x.to(device, non_blocking=True)
        y = y.to(device, non_blocking=True)
        optimizer.zero_grad()
        loss = criterion(model(x), y)
        loss.backward()
        optimizer.step()
        losses.append(loss.item())
    return sum(losses) / len(losses)
