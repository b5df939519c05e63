# reading: the loss is summed on the device and read once at the end (one sync); grads set to None.
# how: model.zero_grad(set_to_none=True) instead of optimizer.zero_grad; y.shape[0] counts examples.
def train_one_epoch(model, loader, optimizer, criterion, device) -> float:
    model.train()
    loss_sum = torch.zeros((), dtype=torch.float64, device=device)
    seen = 0
    for batch in loader:
        x, y = (t.to(device, non_blocking=True) for t in batch)
        model.zero_grad(set_to_none=True)
        batch_loss = criterion(model(x), y)
        batch_loss.backward()
        optimizer.step()
        n = y.shape[0]
        loss_sum += batch_loss.detach().double() * n
        seen += n
    return float(loss_sum.item() / seen)
