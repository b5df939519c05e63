# reading: torch.amp.autocast (the same class) entered through an ExitStack; enabled given explicitly.
# how: contextlib.ExitStack and a result tuple built after the block.
import contextlib


def amp_forward(model, x, y, criterion, device_type, dtype):
    with contextlib.ExitStack() as stack:
        stack.enter_context(torch.amp.autocast(device_type, dtype=dtype, enabled=True))
        logits = model(x)
        loss = criterion(logits, y)
    result = (logits, loss)
    return result
