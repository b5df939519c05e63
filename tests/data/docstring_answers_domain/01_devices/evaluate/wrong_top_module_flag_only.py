# breaks: "Every forward pass runs in eval mode with autograd off"
# how: sets model.training = False on the top module only; its dropout and BatchNorm layers stay in training mode
import torch


def evaluate(model, loader, device) -> float:
    model.training = False
    correct = total = 0
    with torch.no_grad():
        for x, y in loader:
            x, y = x.to(device), y.to(device)
            correct += (model(x).argmax(dim=1) == y).sum().item()
            total += len(y)
    return correct / total
