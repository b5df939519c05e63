# reading: zero_grad with set_to_none=False (zeros, not None) is still optimizer.zero_grad().
# how: torch.amp.autocast with positional arguments; float(loss) read before the step.
def bf16_train_step(model, x, y, optimizer, criterion, device_type) -> float:
    optimizer.zero_grad(set_to_none=False)
    with torch.amp.autocast(device_type, torch.bfloat16):
        logits = model(x)
        batch_loss = criterion(logits, y)
    value = float(batch_loss.detach())
    batch_loss.backward()
    optimizer.step()
    return value
