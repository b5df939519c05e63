# breaks: "no gradient scaler"
# how: wraps backward and step in a fresh GradScaler "just in case" (same numbers almost always)
import torch


def bf16_train_step(model, x, y, optimizer, criterion, device_type) -> float:
    scaler = torch.amp.GradScaler(device_type)
    optimizer.zero_grad()
    with torch.autocast(device_type, dtype=torch.bfloat16):
        loss = criterion(model(x), y)
    scaler.scale(loss).backward()
    scaler.step(optimizer)
    scaler.update()
    return loss.item()
