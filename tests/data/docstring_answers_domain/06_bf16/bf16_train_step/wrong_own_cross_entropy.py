# breaks: "forward and loss under torch.autocast(device_type, dtype=torch.bfloat16)"
# how: computes the loss with F.cross_entropy (mean) instead of the criterion it is given: right for
#      nn.CrossEntropyLoss(), wrong for a summed or smoothed criterion
import torch
import torch.nn.functional as F


def bf16_train_step(model, x, y, optimizer, criterion, device_type) -> float:
    optimizer.zero_grad()
    with torch.autocast(device_type=device_type, dtype=torch.bfloat16):
        loss = F.cross_entropy(model(x), y)
    loss.backward()
    optimizer.step()
    return loss.item()
