# reading: the mean is a float64 Python float; an empty loader is outside the contract (would divide by zero)
# how: accumulates the weighted loss in a float64 tensor on the device, one .item() at the end; zero_grad(set_to_none=False)
import torch


def train_one_epoch(model, loader, optimizer, criterion, device) -> float:
    acc = None
    seen = 0
    for x, y in loader:
        model.train(True)
        x, y = x.to(device, non_blocking=True), y.to(device, non_blocking=True)
        optimizer.zero_grad(set_to_none=False)
        out = model(x)
        batch_loss = criterion(out, y)
        batch_loss.backward()
        optimizer.step()
        part = batch_loss.detach().double() * y.shape[0]
        acc = part if acc is None else acc + part
        seen += int(y.shape[0])
    return float(acc.item() / seen)
