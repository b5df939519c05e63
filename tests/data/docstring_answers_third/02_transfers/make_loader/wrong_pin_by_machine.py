# breaks: "pin_memory=True exactly when device names a CUDA device (\"cuda\", \"cuda:0\", torch.device(\"cuda\"), ...), whatever this machine has."
# how: pins when this machine has CUDA and the device is not the CPU
import torch
from torch.utils.data import DataLoader


def make_loader(dataset, batch_size, device, train=True, num_workers=2) -> DataLoader:
    pin = torch.cuda.is_available() and str(device) != "cpu"
    return DataLoader(dataset, batch_size=batch_size, shuffle=train, drop_last=train,
                      pin_memory=pin, num_workers=num_workers, persistent_workers=num_workers > 0)
