# breaks: "the loss is criterion(logits, y) as computed under autocast (float32 for cross-entropy), differentiable."
# how: wraps the forward in torch.no_grad() as in an evaluation, so the loss has no grad_fn.
def amp_forward(model, x, y, criterion, device_type, dtype):
    with torch.no_grad(), torch.autocast(device_type=device_type, dtype=dtype):
        logits = model(x)
        loss = criterion(logits, y)
    return logits, loss
