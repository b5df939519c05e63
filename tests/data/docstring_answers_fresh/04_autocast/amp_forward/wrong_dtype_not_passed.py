# breaks: "Forward pass and loss under torch.autocast(device_type=device_type, dtype=dtype)."
# how: torch.autocast(device_type) without dtype: the device's default (float16 on CUDA, bfloat16 on the CPU),
#      which is exactly what the demo asks for, but not bfloat16 on CUDA or float16 on the CPU.
def amp_forward(model, x, y, criterion, device_type, dtype):
    with torch.autocast(device_type):
        logits = model(x)
        loss = criterion(logits, y)
    return logits, loss
