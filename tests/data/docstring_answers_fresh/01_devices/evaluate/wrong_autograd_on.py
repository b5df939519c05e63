# breaks: "Every forward pass runs in eval mode with autograd off"
# how: eval mode but no no_grad/inference_mode: every forward builds a graph (results are still right).
def evaluate(model, loader, device) -> float:
    model.eval()
    correct, total = 0, 0
    for x, y in loader:
        x, y = x.to(device), y.to(device)
        correct += (model(x).argmax(dim=1) == y).sum().item()
        total += y.numel()
    return correct / total
