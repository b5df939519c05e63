# breaks: "One training step: optimizer.zero_grad()"
# how: clears the gradients of the optimizer's first parameter group only: with several groups, the others step
#      with their stale gradients added in
import torch


def bf16_train_step(model, x, y, optimizer, criterion, device_type) -> float:
    for p in optimizer.param_groups[0]["params"]:
        p.grad = None
    with torch.autocast(device_type=device_type, dtype=torch.bfloat16):
        loss = criterion(model(x), y)
    loss.backward()
    optimizer.step()
    return loss.item()
