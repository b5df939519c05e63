# reading: zero_grad(set_to_none=False) still zeroes; backward inside the autocast block is allowed.
# how: torch.amp.autocast, backward in the block, loss.detach().item() at the end.
def bf16_train_step(model, x, y, optimizer, criterion, device_type) -> float:
    optimizer.zero_grad(set_to_none=False)
    with torch.amp.autocast(device_type, dtype=torch.bfloat16):
        loss = criterion(model(x), y)
        loss.backward()
    optimizer.step()
    return loss.detach().item()
