# reading: with max_norm None, unscale_ then a clip to an infinite norm (allowed: it changes nothing); the loss follows the autocast block (allowed), so it is computed on the low-precision logits
# how: always unscale_; clip limit float("inf") when max_norm is None; loss read before backward
import math

import torch


def scaled_train_step(model, x, y, optimizer, scaler, criterion, device_type,
                      dtype=torch.float16, max_norm=None) -> float:
    optimizer.zero_grad(set_to_none=True)
    with torch.autocast(device_type=device_type, dtype=dtype):
        prediction = model(x)
    loss = criterion(prediction, y)
    value = float(loss.detach().float().cpu())
    scaler.scale(loss).backward()
    scaler.unscale_(optimizer)
    limit = math.inf if max_norm is None else float(max_norm)
    torch.nn.utils.clip_grad_norm_([p for p in model.parameters() if p.grad is not None], limit)
    scaler.step(optimizer)
    scaler.update()
    return value
