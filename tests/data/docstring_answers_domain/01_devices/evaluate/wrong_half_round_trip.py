# breaks: "Parameters unchanged."
# how: evaluates in float16 for speed and gives the weights back as float32: same dtype, values rounded to float16
import torch


def evaluate(model, loader, device) -> float:
    model.eval().half()
    correct = total = 0
    with torch.no_grad():
        for x, y in loader:
            x, y = x.to(device).half(), y.to(device)
            correct += (model(x).argmax(dim=1) == y).sum().item()
            total += len(y)
    model.float()
    return correct / total
