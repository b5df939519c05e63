# breaks: "Every forward pass runs in training mode"
# how: model.train(), then puts every BatchNorm layer back in eval mode ("frozen statistics")
import torch


def train_one_epoch(model, loader, optimizer, criterion, device) -> float:
    model.train()
    for module in model.modules():
        if isinstance(module, torch.nn.modules.batchnorm._BatchNorm):
            module.eval()
    total, count = 0.0, 0
    for x, y in loader:
        x, y = x.to(device, non_blocking=True), y.to(device, non_blocking=True)
        optimizer.zero_grad()
        loss = criterion(model(x), y)
        loss.backward()
        optimizer.step()
        total += loss.item() * len(y)
        count += len(y)
    return total / count
