# breaks: "Returns the loss before the step (not scaled) as a Python float"
# how: reads the loss to return from a second forward, under no_grad before the step: with dropout it is another
#      sample than the loss the step used (and BatchNorm counts the batch twice)
import torch


def scaled_train_step(model, x, y, optimizer, scaler, criterion, device_type,
                      dtype=torch.float16, max_norm=None) -> float:
    optimizer.zero_grad(set_to_none=True)
    with torch.no_grad(), torch.autocast(device_type=device_type, dtype=dtype):
        before = criterion(model(x), y).item()
    with torch.autocast(device_type=device_type, dtype=dtype):
        loss = criterion(model(x), y)
    scaler.scale(loss).backward()
    if max_norm is not None:
        scaler.unscale_(optimizer)
        torch.nn.utils.clip_grad_norm_(model.parameters(), max_norm)
    scaler.step(optimizer)
    scaler.update()
    return before
