# reading: the loss value is read before optimizer.step() (same value as after: the tensor is not changed by the step).
# how: keyword spelling of autocast, float(loss) stored before the step.
def bf16_train_step(model, x, y, optimizer, criterion, device_type) -> float:
    optimizer.zero_grad()
    with torch.autocast(device_type=device_type, dtype=torch.bfloat16, enabled=True):
        predictions = model(x)
        loss = criterion(predictions, y)
    loss.backward()
    value = float(loss)
    optimizer.step()
    return value
