# breaks: "Accuracy of model on loader, a float in [0, 1] (not a percentage)."
# how: returns 100 * correct / total.
def evaluate(model, loader, device) -> float:
    model.eval()
    correct = total = 0
    with torch.no_grad():
        for x, y in loader:
            x, y = x.to(device), y.to(device)
            correct += (model(x).argmax(dim=1) == y).sum().item()
            total += len(y)
    return 100.0 * correct / total
