# breaks: "forward and loss under torch.autocast(device_type, dtype=torch.bfloat16)"
# how: relies on autocast's default dtype: bfloat16 on the CPU (the demo) but float16 on CUDA
import torch


def bf16_train_step(model, x, y, optimizer, criterion, device_type) -> float:
    optimizer.zero_grad()
    with torch.autocast(device_type):
        loss = criterion(model(x), y)
    loss.backward()
    optimizer.step()
    return loss.item()
