# reading: "training mode" is every submodule's training flag; "zero the gradients" is all of the optimizer's groups
# how: sets each module's flag by hand, clears every group's gradients to None, sums the weighted loss in a tensor
import torch


def train_one_epoch(model, loader, optimizer, criterion, device) -> float:
    device = torch.device(device)
    for module in model.modules():
        module.training = True
    weighted, seen = torch.zeros((), dtype=torch.float64), 0
    for x, y in loader:
        x = x.to(device=device, non_blocking=True)
        y = y.to(device=device, non_blocking=True)
        for group in optimizer.param_groups:
            for p in group["params"]:
                p.grad = None
        batch_loss = criterion(model(x), y)
        batch_loss.backward()
        optimizer.step()
        weighted += batch_loss.detach().to("cpu", torch.float64) * y.shape[0]
        seen += y.shape[0]
    return weighted.item() / seen
