# breaks: "forward and loss under torch.autocast(device_type, dtype=torch.bfloat16)"
# how: if the bfloat16 step raises, it runs the step again in float32: the model's or the criterion's error never
#      reaches the caller, and the forward runs twice
import torch


def bf16_train_step(model, x, y, optimizer, criterion, device_type) -> float:
    optimizer.zero_grad()
    try:
        with torch.autocast(device_type=device_type, dtype=torch.bfloat16):
            loss = criterion(model(x), y)
    except RuntimeError:
        optimizer.zero_grad()
        loss = criterion(model(x), y)
    loss.backward()
    optimizer.step()
    return loss.item()
