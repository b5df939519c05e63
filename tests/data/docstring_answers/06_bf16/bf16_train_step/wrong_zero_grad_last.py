# breaks: "One training step: optimizer.zero_grad(), forward and loss under torch.autocast(...), loss.backward(), optimizer.step()"
# how: zeroes after the step, so gradients already on the model reach this step.
def bf16_train_step(model, x, y, optimizer, criterion, device_type) -> float:
    with torch.autocast(device_type, dtype=torch.bfloat16):
        loss = criterion(model(x), y)
    loss.backward()
    optimizer.step()
    optimizer.zero_grad()
    return loss.item()
