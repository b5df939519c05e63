# breaks: "loss.backward(), optimizer.step(); no gradient scaler"
# how: clips the gradients' norm to 1.0 between backward and step, "for safety" without a scaler: large gradients
#      are shrunk, so the step is not the loss's own
import torch


def bf16_train_step(model, x, y, optimizer, criterion, device_type) -> float:
    optimizer.zero_grad()
    with torch.autocast(device_type=device_type, dtype=torch.bfloat16):
        loss = criterion(model(x), y)
    loss.backward()
    torch.nn.utils.clip_grad_norm_(model.parameters(), max_norm=1.0)
    optimizer.step()
    return loss.item()
