# breaks: "The mean is over the examples the loader yielded"
# how: averages the batch losses without weighting them, so a short last batch counts as much as a full one.
def train_one_epoch(model, loader, optimizer, criterion, device) -> float:
    model.train()
    losses = []
    for x, y in loader:
        x, y = x.to(device, non_blocking=True), y.to(device, non_blocking=True)
        optimizer.zero_grad()
        loss = criterion(model(x), y)
        loss.backward()
        optimizer.step()
        losses.append(loss.item())
    return sum(losses) / len(losses)
