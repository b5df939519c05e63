# breaks: "forward and loss under torch.autocast(device_type=device_type, dtype=dtype)"
# how: torch.autocast(device_type) with the device's default dtype: right for ("cuda", float16), not for a
#      bfloat16 request on CUDA or float16 on the CPU.
def scaled_train_step(model, x, y, optimizer, scaler, criterion, device_type,
                      dtype=torch.float16, max_norm=None) -> float:
    optimizer.zero_grad()
    with torch.autocast(device_type):
        loss = criterion(model(x), y)
    scaler.scale(loss).backward()
    if max_norm is not None:
        scaler.unscale_(optimizer)
        torch.nn.utils.clip_grad_norm_(model.parameters(), max_norm)
    scaler.step(optimizer)
    scaler.update()
    return loss.item()
