# reading: restores nothing (the mode left is free); "autograd off" via torch.inference_mode
# how: prediction via argmax(keepdim) then squeeze, counts kept as Python ints, result built with float division
import torch


def evaluate(model, loader, device) -> float:
    hits, count = 0, 0
    with torch.inference_mode():
        for xb, yb in loader:
            model.eval()
            pred = model(xb.to(device)).argmax(dim=-1, keepdim=True).squeeze(-1)
            hits += int(pred.eq(yb.to(device)).sum())
            count += yb.numel()
    return float(hits) / float(count)
