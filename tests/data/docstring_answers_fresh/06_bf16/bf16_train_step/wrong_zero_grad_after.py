# breaks: "One training step: optimizer.zero_grad(), forward and loss under torch.autocast(...)"
# how: zeroes after the step instead of before, so gradients the model arrived with are added into this step.
def bf16_train_step(model, x, y, optimizer, criterion, device_type) -> float:
    with torch.autocast(device_type=device_type, dtype=torch.bfloat16):
        loss = criterion(model(x), y)
    loss.backward()
    optimizer.step()
    optimizer.zero_grad()
    return loss.item()
