# breaks: "accuracy = correct predictions / examples the loader yielded"
# how: averages per-batch accuracies, so a short last batch is over-weighted.
def evaluate(model, loader, device) -> float:
    model.eval()
    accs = []
    with torch.no_grad():
        for x, y in loader:
            x, y = x.to(device), y.to(device)
            accs.append((model(x).argmax(dim=1) == y).float().mean().item())
    return sum(accs) / len(accs)
