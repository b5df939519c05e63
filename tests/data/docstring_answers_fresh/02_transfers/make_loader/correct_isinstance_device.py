# reading: a string is parsed with torch.device (so "cuda:1" pins too); train is used as a bool.
# how: normalises the device first, then one DataLoader call with keyword expressions.
from torch.utils.data import DataLoader


def make_loader(dataset, batch_size, device, train=True, num_workers=2) -> DataLoader:
    dev = device if isinstance(device, torch.device) else torch.device(device)
    is_cuda = dev.type == "cuda"
    keep_alive = num_workers != 0
    return DataLoader(dataset, batch_size, shuffle=bool(train), drop_last=bool(train), pin_memory=is_cuda,
                      num_workers=num_workers, persistent_workers=keep_alive)
