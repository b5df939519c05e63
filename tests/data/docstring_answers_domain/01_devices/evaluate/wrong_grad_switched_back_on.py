# breaks: "Every forward pass runs in eval mode with autograd off"
# how: torch.set_grad_enabled(False), then True at the end: under the caller's torch.no_grad() it turns autograd on
import torch


def evaluate(model, loader, device) -> float:
    model.eval()
    torch.set_grad_enabled(False)
    correct = total = 0
    for x, y in loader:
        x, y = x.to(device), y.to(device)
        correct += (model(x).argmax(dim=1) == y).sum().item()
        total += len(y)
    torch.set_grad_enabled(True)
    return correct / total
