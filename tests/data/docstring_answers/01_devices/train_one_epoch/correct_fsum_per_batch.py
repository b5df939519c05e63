# reading: model.train() before every batch (the mode left afterwards is free); zeroing right before backward.
# how: zero_grad placed between the forward and the backward, exact summation with math.fsum.
import math


def train_one_epoch(model, loader, optimizer, criterion, device) -> float:
    weighted = []
    seen = 0
    for batch in loader:
        x, y = (t.to(device, non_blocking=True) for t in batch)
        model.train()
        loss = criterion(model(x), y)
        optimizer.zero_grad()
        loss.backward()
        optimizer.step()
        n = len(x)
        weighted.append(loss.item() * n)
        seen += n
    return math.fsum(weighted) / seen
