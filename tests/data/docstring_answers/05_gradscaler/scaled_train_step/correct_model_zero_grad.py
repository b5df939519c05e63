# reading: model.zero_grad() zeroes the same gradients; the backward runs inside the autocast block (allowed, it changes nothing).
# how: torch.amp.autocast spelling, get_total_norm-free clip via clip_grad_norm_ on model.parameters().
def scaled_train_step(model, x, y, optimizer, scaler, criterion, device_type,
                      dtype=torch.float16, max_norm=None) -> float:
    model.zero_grad()
    with torch.amp.autocast(device_type, dtype=dtype):
        loss = criterion(model(x), y)
        scaler.scale(loss).backward()
    clip = max_norm is not None
    if clip:
        scaler.unscale_(optimizer)
        torch.nn.utils.clip_grad_norm_(list(model.parameters()), float(max_norm))
    loss_value = loss.item()
    scaler.step(optimizer)
    scaler.update()
    return loss_value
