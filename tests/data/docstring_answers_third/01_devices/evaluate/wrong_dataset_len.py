# breaks: "accuracy = correct predictions / examples the loader yielded (fewer than len(loader.dataset) with drop_last)"
# how: divides by len(loader.dataset)
import torch


def evaluate(model, loader, device) -> float:
    model.eval()
    correct = 0
    with torch.no_grad():
        for x, y in loader:
            x, y = x.to(device), y.to(device)
            correct += (model(x).argmax(dim=1) == y).sum().item()
    return correct / len(loader.dataset)
