# reading: the mode left afterwards is free: this one gives the model back in the mode it came in
# how: model.zero_grad(set_to_none=True), losses and sizes kept in lists, math.fsum at the end, try/finally
import math


def train_one_epoch(model, loader, optimizer, criterion, device) -> float:
    came_training = model.training
    model.train(True)
    parts, sizes = [], []
    try:
        for inputs, targets in loader:
            inputs = inputs.to(str(device), non_blocking=True)
            targets = targets.to(str(device), non_blocking=True)
            model.zero_grad(set_to_none=True)
            optimizer.zero_grad(set_to_none=True)
            loss = criterion(model(inputs), targets)
            loss.backward()
            optimizer.step()
            parts.append(float(loss) * len(targets))
            sizes.append(len(targets))
    finally:
        model.train(came_training)
    return math.fsum(parts) / sum(sizes)
