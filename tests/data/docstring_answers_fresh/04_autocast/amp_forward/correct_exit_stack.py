# reading: any way of entering torch.autocast with both arguments that is left before returning.
# how: contextlib.ExitStack enters the autocast context; the tuple is built after the stack closes.
import contextlib


def amp_forward(model, x, y, criterion, device_type, dtype):
    with contextlib.ExitStack() as stack:
        stack.enter_context(torch.autocast(device_type=device_type, dtype=dtype))
        logits = model(x)
        loss = criterion(logits, y)
    return (logits, loss)
