# breaks: "Every forward pass runs in eval mode with autograd off"
# how: switches to eval mode but forgets torch.no_grad(), so every forward builds a graph.
def evaluate(model, loader, device) -> float:
    model.eval()
    correct = total = 0
    for x, y in loader:
        x, y = x.to(device), y.to(device)
        pred = model(x).argmax(dim=1)
        correct += (pred == y).sum().item()
        total += y.numel()
    return correct / total
