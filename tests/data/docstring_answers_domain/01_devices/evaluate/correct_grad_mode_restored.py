# reading: "autograd off" inside only: the caller's grad mode is given back as it was, whatever it was
# how: torch.set_grad_enabled with try/finally, every module switched by apply, predictions gathered with torch.cat
import torch


def evaluate(model, loader, device) -> float:
    model.apply(lambda m: m.train(False))
    previous = torch.is_grad_enabled()
    torch.set_grad_enabled(False)
    try:
        predicted, labels = [], []
        for x, y in loader:
            predicted.append(model(x.to(device)).argmax(dim=-1))
            labels.append(y.to(device))
        hits = torch.cat(predicted).eq(torch.cat(labels))
    finally:
        torch.set_grad_enabled(previous)
    return hits.double().mean().item()
