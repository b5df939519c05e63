# reading: the mode left afterwards is free; this one restores the caller's mode (and returns 0-d float()).
# how: inference_mode, max(dim=1).indices, counts kept in a device tensor and read once.
def evaluate(model, loader, device) -> float:
    was_training = model.training
    model.eval()
    hits = torch.zeros((), dtype=torch.long, device=device)
    seen = 0
    try:
        with torch.inference_mode():
            for x, y in loader:
                scores = model(x.to(device, non_blocking=True))
                hits += (scores.max(dim=1).indices == y.to(device)).sum()
                seen += len(x)
    finally:
        model.train(was_training)
    return float(hits.item()) / seen
