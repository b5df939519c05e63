# reading: the loss sum may stay on the device (one sync at the end); examples counted by len(y).
# how: model.zero_grad(set_to_none=True) instead of the optimizer's, float64 accumulator, float() at the end.
def train_one_epoch(model, loader, optimizer, criterion, device) -> float:
    model.train()
    loss_sum = torch.zeros((), dtype=torch.float64, device=device)
    examples = 0
    for x, y in loader:
        x = x.to(device, non_blocking=True)
        y = y.to(device, non_blocking=True)
        model.zero_grad(set_to_none=True)
        logits = model(x)
        batch_loss = criterion(logits, y)
        batch_loss.backward()
        optimizer.step()
        loss_sum += batch_loss.detach().double() * y.shape[0]
        examples += y.shape[0]
    return float(loss_sum.item() / examples)
