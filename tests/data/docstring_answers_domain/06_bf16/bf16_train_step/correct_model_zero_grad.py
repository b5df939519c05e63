# reading: optimizer.zero_grad() clears what model.zero_grad() clears when the optimizer holds the model's
#          parameters; the loss may follow the block, in float32
# how: model.zero_grad(set_to_none=False), autocast entered through contextlib.ExitStack, the loss on float32
#      logits after the block
import contextlib

import torch


def bf16_train_step(model, x, y, optimizer, criterion, device_type) -> float:
    model.zero_grad(set_to_none=False)
    with contextlib.ExitStack() as stack:
        stack.enter_context(torch.autocast(device_type=device_type, dtype=torch.bfloat16))
        logits = model(x)
    loss = criterion(logits.float(), y)
    loss.backward()
    optimizer.step()
    return loss.detach().cpu().item()
