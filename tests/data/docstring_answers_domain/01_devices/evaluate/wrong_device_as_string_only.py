# breaks: "Accuracy of model on loader, a float in [0, 1] (not a percentage)."
# how: reads device.startswith to decide non_blocking, so a torch.device raises AttributeError
import torch


def evaluate(model, loader, device) -> float:
    model.eval()
    fast = device.startswith("cuda")
    correct = total = 0
    with torch.no_grad():
        for x, y in loader:
            x, y = x.to(device, non_blocking=fast), y.to(device, non_blocking=fast)
            correct += (model(x).argmax(dim=1) == y).sum().item()
            total += len(y)
    return correct / total
