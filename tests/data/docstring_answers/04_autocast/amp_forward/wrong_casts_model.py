# breaks: "The model's parameters are not modified (still float32)"
# how: casts the model to dtype as well, "to be sure" the matmuls run in it.
def amp_forward(model, x, y, criterion, device_type, dtype):
    model.to(dtype)
    with torch.autocast(device_type=device_type, dtype=dtype):
        logits = model(x.to(dtype))
        loss = criterion(logits, y)
    return logits, loss
