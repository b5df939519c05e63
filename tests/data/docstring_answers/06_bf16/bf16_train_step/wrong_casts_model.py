# breaks: "the parameters stay float32 (no model.bfloat16())."
# how: casts the model to bfloat16 so "everything" runs in bfloat16.
def bf16_train_step(model, x, y, optimizer, criterion, device_type) -> float:
    model.to(torch.bfloat16)
    optimizer.zero_grad()
    with torch.autocast(device_type, dtype=torch.bfloat16):
        loss = criterion(model(x.to(torch.bfloat16)), y)
    loss.backward()
    optimizer.step()
    return loss.item()
