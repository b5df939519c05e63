# breaks: "Every forward pass runs in eval mode with autograd off"
# how: turns autograd off but never calls model.eval(), so dropout/batch-norm stay in training mode
import torch


def evaluate(model, loader, device) -> float:
    correct = total = 0
    with torch.no_grad():
        for x, y in loader:
            x, y = x.to(device), y.to(device)
            correct += (model(x).argmax(dim=1) == y).sum().item()
            total += len(y)
    return correct / total
