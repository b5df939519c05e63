# breaks: "num_workers worker processes"
# how: never more workers than this machine has cores (os.cpu_count()), whatever num_workers asks for
import os

import torch
from torch.utils.data import DataLoader


def make_loader(dataset, batch_size, device, train=True, num_workers=2) -> DataLoader:
    workers = min(num_workers, os.cpu_count() or 1)
    return DataLoader(dataset, batch_size=batch_size, shuffle=train, drop_last=train,
                      num_workers=workers, pin_memory=torch.device(device).type == "cuda",
                      persistent_workers=workers > 0)
