# reading: a device names CUDA when its text before any ":" is "cuda".
# how: parses str(device) and branches on train with two explicit constructor calls.
from torch.utils.data import DataLoader


def make_loader(dataset, batch_size, device, train=True, num_workers=2) -> DataLoader:
    pin = str(device).split(":", 1)[0].strip() == "cuda"
    keep_workers = True if num_workers > 0 else False
    if train:
        return DataLoader(dataset, batch_size, True, num_workers=num_workers, pin_memory=pin,
                          drop_last=True, persistent_workers=keep_workers)
    return DataLoader(dataset, batch_size, False, num_workers=num_workers, pin_memory=pin,
                      drop_last=False, persistent_workers=keep_workers)
