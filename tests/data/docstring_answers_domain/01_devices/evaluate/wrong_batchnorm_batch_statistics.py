# breaks: "Every forward pass runs in eval mode with autograd off"
# how: model.eval(), then puts every BatchNorm layer back in training mode to use each batch's own statistics
import torch


def evaluate(model, loader, device) -> float:
    model.eval()
    for module in model.modules():
        if isinstance(module, torch.nn.modules.batchnorm._BatchNorm):
            module.train()
    correct = total = 0
    with torch.no_grad():
        for x, y in loader:
            x, y = x.to(device), y.to(device)
            correct += (model(x).argmax(dim=1) == y).sum().item()
            total += len(y)
    return correct / total
