# reading: zeroing = setting every parameter's .grad to None, before the forward; the mode is re-set each batch.
# how: explicit p.grad = None loop, model.train(True) inside the loop, math.fsum over per-batch sums.
import math


def train_one_epoch(model, loader, optimizer, criterion, device) -> float:
    sums, sizes = [], []
    for x, y in loader:
        model.train(True)
        for p in model.parameters():
            p.grad = None
        x = x.to(device=device, non_blocking=True)
        y = y.to(device=device, non_blocking=True)
        loss = criterion(model(x), y)
        loss.backward()
        optimizer.step()
        sums.append(loss.item() * int(x.shape[0]))
        sizes.append(int(x.shape[0]))
    return math.fsum(sums) / sum(sizes)
