# reading: the loss value is read right after the forward (a sync then, not after update); set_to_none zeroing.
# how: optimizer.zero_grad(set_to_none=True), value read before backward, clipping in a helper.
def _clip(scaler, optimizer, model, max_norm):
    scaler.unscale_(optimizer)
    torch.nn.utils.clip_grad_norm_(model.parameters(), max_norm=max_norm)


def scaled_train_step(model, x, y, optimizer, scaler, criterion, device_type,
                      dtype=torch.float16, max_norm=None) -> float:
    optimizer.zero_grad(set_to_none=True)
    with torch.autocast(device_type=device_type, dtype=dtype):
        loss = criterion(model(x), y)
    value = loss.item()
    scaler.scale(loss).backward()
    if max_norm is not None:
        _clip(scaler, optimizer, model, max_norm)
    scaler.step(optimizer)
    scaler.update()
    return value
