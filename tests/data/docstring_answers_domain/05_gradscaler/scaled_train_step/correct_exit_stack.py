# reading: "zero the gradients": every parameter the optimizer updates, group by group; the clip over the same
#          parameters (they are the model's)
# how: an ExitStack for the autocast block, a closure for forward and loss, grads set to None by hand
import contextlib

import torch


def scaled_train_step(model, x, y, optimizer, scaler, criterion, device_type,
                      dtype=torch.float16, max_norm=None) -> float:
    params = [p for group in optimizer.param_groups for p in group["params"]]
    for p in params:
        p.grad = None

    def forward_and_loss():
        return criterion(model(x), y)

    with contextlib.ExitStack() as stack:
        stack.enter_context(torch.autocast(device_type=device_type, dtype=dtype))
        loss = forward_and_loss()
    value = float(loss.detach().cpu())
    scaler.scale(loss).backward()
    if max_norm is not None:
        scaler.unscale_(optimizer)
        torch.nn.utils.clip_grad_norm_(params, max_norm=float(max_norm))
    scaler.step(optimizer)
    scaler.update()
    return value
