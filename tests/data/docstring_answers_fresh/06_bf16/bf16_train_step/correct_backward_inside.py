# reading: backward may run inside the autocast block (autocast does not affect the backward's dtypes).
# how: backward inside the with block, the optimizer step after it; loss.detach().item() after the step.
def bf16_train_step(model, x, y, optimizer, criterion, device_type) -> float:
    optimizer.zero_grad()
    with torch.autocast(device_type=device_type, dtype=torch.bfloat16):
        loss = criterion(model(x), y)
        loss.backward()
    optimizer.step()
    return loss.detach().item()
