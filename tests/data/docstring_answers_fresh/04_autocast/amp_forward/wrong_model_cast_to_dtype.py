# breaks: "The model's parameters are not modified (still float32)"
# how: casts the model to dtype as well "so that autocast has nothing to cast" (model.to(dtype) is in place).
def amp_forward(model, x, y, criterion, device_type, dtype):
    model.to(dtype)
    with torch.autocast(device_type=device_type, dtype=dtype):
        logits = model(x)
        loss = criterion(logits, y)
    return logits, loss
