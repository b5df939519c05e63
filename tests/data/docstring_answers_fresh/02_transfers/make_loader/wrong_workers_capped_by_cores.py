# breaks: "num_workers worker processes"
# how: caps the workers at os.cpu_count() - 1 ("leave one core for training"): on a 2-core machine the
#      default 2 becomes 1.
import os

from torch.utils.data import DataLoader


def make_loader(dataset, batch_size, device, train=True, num_workers=2) -> DataLoader:
    workers = min(num_workers, max(0, (os.cpu_count() or 1) - 1))
    return DataLoader(dataset, batch_size=batch_size, shuffle=train, drop_last=train,
                      pin_memory=torch.device(device).type == "cuda", num_workers=workers,
                      persistent_workers=workers > 0)
