# breaks: "num_workers worker processes, persistent_workers=True exactly when num_workers > 0."
# how: hard-codes 2 workers (the default), ignoring the argument.
from torch.utils.data import DataLoader


def make_loader(dataset, batch_size, device, train=True, num_workers=2) -> DataLoader:
    return DataLoader(dataset, batch_size=batch_size, shuffle=train, drop_last=train,
                      num_workers=2, pin_memory=torch.device(device).type == "cuda",
                      persistent_workers=True)
