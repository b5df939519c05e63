# breaks: "In order: zero the gradients"
# how: clears the gradients of the optimizer's first parameter group only: with several groups the others keep the
#      gradients of the previous step
import torch


def scaled_train_step(model, x, y, optimizer, scaler, criterion, device_type,
                      dtype=torch.float16, max_norm=None) -> float:
    for p in optimizer.param_groups[0]["params"]:
        p.grad = None
    with torch.autocast(device_type=device_type, dtype=dtype):
        loss = criterion(model(x), y)
    scaler.scale(loss).backward()
    if max_norm is not None:
        scaler.unscale_(optimizer)
        torch.nn.utils.clip_grad_norm_(model.parameters(), max_norm)
    scaler.step(optimizer)
    scaler.update()
    return loss.item()
