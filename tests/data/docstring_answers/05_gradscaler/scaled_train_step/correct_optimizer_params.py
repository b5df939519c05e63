# reading: the clipped parameters are the optimizer's (the ones unscale_ unscaled); zero_grad(set_to_none=True).
# how: parameters gathered from optimizer.param_groups; loss read with float(loss.detach()) before the step.
def scaled_train_step(model, x, y, optimizer, scaler, criterion, device_type,
                      dtype=torch.float16, max_norm=None) -> float:
    optimizer.zero_grad(set_to_none=True)
    with torch.autocast(device_type=device_type, dtype=dtype):
        output = model(x)
        loss = criterion(output, y)
    scaler.scale(loss).backward()
    if max_norm is not None:
        scaler.unscale_(optimizer)
        params = [p for group in optimizer.param_groups for p in group["params"]]
        torch.nn.utils.clip_grad_norm_(params, max_norm=max_norm)
    value = float(loss.detach())
    scaler.step(optimizer)
    scaler.update()
    return value
