# breaks: "train=True: shuffle and drop_last; train=False: neither."
# how: always shuffles (only drop_last follows train)
import torch
from torch.utils.data import DataLoader


def make_loader(dataset, batch_size, device, train=True, num_workers=2) -> DataLoader:
    return DataLoader(dataset, batch_size=batch_size, shuffle=True, drop_last=train,
                      pin_memory=torch.device(device).type == "cuda", num_workers=num_workers,
                      persistent_workers=num_workers > 0)
