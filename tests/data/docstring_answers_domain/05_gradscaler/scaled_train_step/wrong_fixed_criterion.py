# breaks: "forward and loss under torch.autocast(device_type=device_type, dtype=dtype)"
# how: computes the loss with F.cross_entropy, whatever criterion it is given
import torch
import torch.nn.functional as F


def scaled_train_step(model, x, y, optimizer, scaler, criterion, device_type,
                      dtype=torch.float16, max_norm=None) -> float:
    optimizer.zero_grad(set_to_none=True)
    with torch.autocast(device_type=device_type, dtype=dtype):
        loss = F.cross_entropy(model(x), y)
    scaler.scale(loss).backward()
    if max_norm is not None:
        scaler.unscale_(optimizer)
        torch.nn.utils.clip_grad_norm_(model.parameters(), max_norm)
    scaler.step(optimizer)
    scaler.update()
    return loss.item()
