# breaks: "Parameters unchanged."
# how: turns requires_grad off on every parameter to save memory, and leaves it off (the next epoch cannot train)
import torch


def evaluate(model, loader, device) -> float:
    model.eval()
    for p in model.parameters():
        p.requires_grad_(False)
    correct = total = 0
    with torch.no_grad():
        for x, y in loader:
            x, y = x.to(device), y.to(device)
            correct += (model(x).argmax(dim=1) == y).sum().item()
            total += len(y)
    return correct / total
