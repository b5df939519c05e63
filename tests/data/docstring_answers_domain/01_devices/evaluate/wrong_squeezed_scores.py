# breaks: "accuracy = correct predictions / examples the loader yielded"
# how: squeezes the scores before the argmax: a batch of one example loses its batch dimension and raises
import torch


def evaluate(model, loader, device) -> float:
    model.eval()
    correct = total = 0
    with torch.no_grad():
        for x, y in loader:
            scores = model(x.to(device)).squeeze()
            correct += (scores.argmax(dim=1) == y.to(device)).sum().item()
            total += len(y)
    return correct / total
