# breaks: "scaler.unscale_(optimizer) then clip the gradients' total norm to max_norm"
# how: clips the parameters of the optimizer's first group only: with several groups the total norm can stay above
#      max_norm
import torch


def scaled_train_step(model, x, y, optimizer, scaler, criterion, device_type,
                      dtype=torch.float16, max_norm=None) -> float:
    optimizer.zero_grad()
    with torch.autocast(device_type=device_type, dtype=dtype):
        loss = criterion(model(x), y)
    scaler.scale(loss).backward()
    if max_norm is not None:
        scaler.unscale_(optimizer)
        torch.nn.utils.clip_grad_norm_(optimizer.param_groups[0]["params"], max_norm)
    scaler.step(optimizer)
    scaler.update()
    return loss.item()
