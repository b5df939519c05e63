# breaks: "Returns the batch's loss, from before the step, as a float."
# how: returns loss.detach() (no host sync), a 0-d float32 tensor rather than a Python float.
def bf16_train_step(model, x, y, optimizer, criterion, device_type) -> float:
    optimizer.zero_grad()
    with torch.autocast(device_type=device_type, dtype=torch.bfloat16):
        loss = criterion(model(x), y)
    loss.backward()
    optimizer.step()
    return loss.detach()
