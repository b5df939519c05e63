# reading: the loss follows the autocast block (allowed): only the forward runs under autocast
# how: autocast used as a decorator on a local forward function; loss value read before the step
import torch


def bf16_train_step(model, x, y, optimizer, criterion, device_type) -> float:
    @torch.autocast(device_type, dtype=torch.bfloat16)
    def forward(inputs):
        return model(inputs)

    optimizer.zero_grad(set_to_none=False)
    logits = forward(x)
    loss = criterion(logits, y)
    loss.backward()
    before = float(loss.detach())
    optimizer.step()
    return before
