# breaks: "The mean is over the examples the loader yielded, which may be fewer than len(loader.dataset)."
# how: sums loss*batch and divides by len(loader.dataset) (wrong with drop_last or a sampler)
import torch


def train_one_epoch(model, loader, optimizer, criterion, device) -> float:
    model.train()
    total = 0.0
    for x, y in loader:
        x = x.to(device, non_blocking=True)
        y = y.to(device, non_blocking=True)
        optimizer.zero_grad()
        loss = criterion(model(x), y)
        loss.backward()
        optimizer.step()
        total += loss.item() * x.shape[0]
    return total / len(loader.dataset)
