# reading: the loss may follow the autocast block: computed on the output cast to float32; gradients zeroed to zeros
# how: model.zero_grad(set_to_none=False), the loss outside the block, clip_grad_norm_ with a parameter generator
import torch


def scaled_train_step(model, x, y, optimizer, scaler, criterion, device_type,
                      dtype=torch.float16, max_norm=None) -> float:
    model.zero_grad(set_to_none=False)
    with torch.autocast(device_type, dtype=dtype):
        out = model(x)
    loss = criterion(out.float(), y)
    scaled = scaler.scale(loss)
    scaled.backward()
    if max_norm is not None:
        scaler.unscale_(optimizer)
        torch.nn.utils.clip_grad_norm_((p for p in model.parameters() if p.grad is not None), max_norm)
    scaler.step(optimizer)
    scaler.update()
    return loss.detach().item()
