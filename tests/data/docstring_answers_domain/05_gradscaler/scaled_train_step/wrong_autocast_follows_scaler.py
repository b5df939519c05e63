# breaks: "forward and loss under torch.autocast(device_type=device_type, dtype=dtype)"
# how: turns autocast on only while the scaler is enabled: with a disabled scaler (GradScaler(enabled=False), as
#      often with bfloat16) the forward runs in float32
import torch


def scaled_train_step(model, x, y, optimizer, scaler, criterion, device_type,
                      dtype=torch.float16, max_norm=None) -> float:
    optimizer.zero_grad(set_to_none=True)
    with torch.autocast(device_type=device_type, dtype=dtype, enabled=scaler.is_enabled()):
        loss = criterion(model(x), y)
    scaler.scale(loss).backward()
    if max_norm is not None:
        scaler.unscale_(optimizer)
        torch.nn.utils.clip_grad_norm_(model.parameters(), max_norm)
    scaler.step(optimizer)
    scaler.update()
    return loss.item()
