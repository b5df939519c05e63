# breaks: "forward and loss under torch.autocast(device_type, dtype=torch.bfloat16)"
# how: torch.autocast(device_type) without dtype: bfloat16 on the CPU (the demo), float16 on CUDA.
def bf16_train_step(model, x, y, optimizer, criterion, device_type) -> float:
    optimizer.zero_grad()
    with torch.autocast(device_type):
        loss = criterion(model(x), y)
    loss.backward()
    optimizer.step()
    return loss.item()
