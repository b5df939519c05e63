# breaks: "if max_norm is not None (it is None or a positive number), scaler.unscale_(optimizer) then clip"
# how: clips only when max_norm is a float: an int max_norm (max_norm=1) is ignored
import torch


def scaled_train_step(model, x, y, optimizer, scaler, criterion, device_type,
                      dtype=torch.float16, max_norm=None) -> float:
    optimizer.zero_grad(set_to_none=True)
    with torch.autocast(device_type=device_type, dtype=dtype):
        loss = criterion(model(x), y)
    scaler.scale(loss).backward()
    if isinstance(max_norm, float):
        scaler.unscale_(optimizer)
        torch.nn.utils.clip_grad_norm_(model.parameters(), max_norm)
    scaler.step(optimizer)
    scaler.update()
    return loss.item()
