# breaks: "the model's matmuls run in dtype, so the logits are in dtype"
# how: returns the logits cast back to float32 for the caller's convenience.
def amp_forward(model, x, y, criterion, device_type, dtype):
    with torch.autocast(device_type=device_type, dtype=dtype):
        logits = model(x)
        loss = criterion(logits, y)
    return logits.float(), loss
