# reading: "zero the gradients" may set every parameter's .grad to None; the loss is read after update().
# how: p.grad = None loop, float(loss.detach()) at the end, clip via clip_grad_norm_ with foreach.
def scaled_train_step(model, x, y, optimizer, scaler, criterion, device_type,
                      dtype=torch.float16, max_norm=None) -> float:
    for p in model.parameters():
        p.grad = None
    with torch.autocast(device_type=device_type, dtype=dtype):
        logits = model(x)
        loss = criterion(logits, y)
    scaler.scale(loss).backward()
    if max_norm is not None:
        scaler.unscale_(optimizer)
        torch.nn.utils.clip_grad_norm_([p for p in model.parameters()], max_norm, foreach=None)
    scaler.step(optimizer)
    scaler.update()
    return float(loss.detach())
