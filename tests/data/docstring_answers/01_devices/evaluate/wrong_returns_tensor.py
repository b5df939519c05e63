# breaks: "Accuracy of model on loader, a float in [0, 1] (not a percentage)."
# how: counts on the device and returns a 0-d tensor instead of a Python float.
def evaluate(model, loader, device) -> float:
    model.eval()
    correct = torch.zeros((), device=device)
    total = 0
    with torch.no_grad():
        for x, y in loader:
            x, y = x.to(device), y.to(device)
            correct += (model(x).argmax(dim=1) == y).sum()
            total += len(y)
    return correct / total
