# reading: autocast used as a decorator on an inner function is the same context.
# how: torch.autocast(...) decorating a local closure.
def amp_forward(model, x, y, criterion, device_type, dtype):
    @torch.autocast(device_type=device_type, dtype=dtype)
    def forward_and_loss():
        out = model(x)
        return out, criterion(out, y)
    return forward_and_loss()
