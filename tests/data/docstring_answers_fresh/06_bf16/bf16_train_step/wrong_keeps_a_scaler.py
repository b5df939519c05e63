# breaks: "no gradient scaler"
# how: copied from notebook 05: a GradScaler scales the loss and steps the optimizer (same numbers, a scaler all the same).
def bf16_train_step(model, x, y, optimizer, criterion, device_type) -> float:
    scaler = torch.amp.GradScaler(device_type)
    optimizer.zero_grad()
    with torch.autocast(device_type=device_type, dtype=torch.bfloat16):
        loss = criterion(model(x), y)
    scaler.scale(loss).backward()
    scaler.step(optimizer)
    scaler.update()
    return loss.item()
