# breaks: "pin_memory=True exactly when device names a CUDA device (\"cuda\", \"cuda:0\", torch.device(\"cuda\"), ...)"
# how: pins for the names listed in the docstring (as torch.devices, so every spelling of them works), not "cuda:1"
import torch
from torch.utils.data import DataLoader

_CUDA = (torch.device("cuda"), torch.device("cuda", 0))


def make_loader(dataset, batch_size, device, train=True, num_workers=2) -> DataLoader:
    return DataLoader(dataset, batch_size=batch_size, shuffle=train, drop_last=train,
                      num_workers=num_workers, pin_memory=torch.device(device) in _CUDA,
                      persistent_workers=num_workers > 0)
