# reading: torch.amp.autocast (the same object as torch.autocast) used as a decorator on an inner function.
# how: the autocast region is the inner function's body; it ends when the function returns.
def amp_forward(model, x, y, criterion, device_type, dtype):
    @torch.amp.autocast(device_type=device_type, dtype=dtype)
    def forward_and_loss():
        out = model(x)
        return out, criterion(out, y)

    return forward_and_loss()
