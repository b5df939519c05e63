# breaks: "if max_norm is not None (it is None or a positive number), scaler.unscale_(optimizer) then clip"
# how: always unscales and clips, with an infinite norm when max_norm is None ("one code path").
def scaled_train_step(model, x, y, optimizer, scaler, criterion, device_type,
                      dtype=torch.float16, max_norm=None) -> float:
    optimizer.zero_grad()
    with torch.autocast(device_type=device_type, dtype=dtype):
        loss = criterion(model(x), y)
    scaler.scale(loss).backward()
    scaler.unscale_(optimizer)
    torch.nn.utils.clip_grad_norm_(model.parameters(), float("inf") if max_norm is None else max_norm)
    scaler.step(optimizer)
    scaler.update()
    return loss.item()
