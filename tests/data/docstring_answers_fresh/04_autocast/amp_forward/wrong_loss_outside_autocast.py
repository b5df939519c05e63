# breaks: "the loss is criterion(logits, y) as computed under autocast (float32 for cross-entropy)"
# how: only the model runs under autocast; the loss is computed after the block, on the 16-bit logits, so it comes out 16-bit.
def amp_forward(model, x, y, criterion, device_type, dtype):
    with torch.autocast(device_type=device_type, dtype=dtype):
        logits = model(x)
    loss = criterion(logits, y)
    return logits, loss
