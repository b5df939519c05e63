# breaks: "pin_memory=True exactly when device names a CUDA device ("cuda", "cuda:0", torch.device("cuda"), ...)"
# how: compares str(device) with "cuda", so "cuda:0" and torch.device("cuda", 1) are not pinned.
from torch.utils.data import DataLoader


def make_loader(dataset, batch_size, device, train=True, num_workers=2) -> DataLoader:
    return DataLoader(dataset, batch_size=batch_size, shuffle=train, drop_last=train,
                      num_workers=num_workers, pin_memory=str(device) == "cuda",
                      persistent_workers=num_workers > 0)
