# reading: inference_mode counts as "autograd off"; the argmax taken with topk(1) on the last dimension.
# how: torch.inference_mode, topk, integer counts, Python division.
def evaluate(model, loader, device) -> float:
    model.eval()
    hits, seen = 0, 0
    with torch.inference_mode():
        for x, y in loader:
            logits = model(x.to(device, non_blocking=True))
            top1 = logits.topk(1, dim=-1).indices.squeeze(-1)
            hits += int(top1.eq(y.to(device)).sum())
            seen += int(y.shape[0])
    return hits / seen
