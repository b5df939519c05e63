# reading: the mode left afterwards is free: this one gives the model back in the mode it came in
# how: torch.device(device), inference_mode, torch.max(...).indices, counts in ints, restores model.training
import torch


def evaluate(model, loader, device) -> float:
    target = torch.device(device)
    came_training = model.training
    model.eval()
    right, seen = 0, 0
    try:
        with torch.inference_mode():
            for inputs, labels in loader:
                scores = model(inputs.to(device=target, non_blocking=True))
                right += int((torch.max(scores, dim=1).indices == labels.to(target)).sum())
                seen += int(labels.shape[0])
    finally:
        model.train(came_training)
    return right / seen
