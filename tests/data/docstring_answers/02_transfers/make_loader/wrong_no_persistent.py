# breaks: "persistent_workers=True exactly when num_workers > 0."
# how: leaves persistent_workers at its default (False).
from torch.utils.data import DataLoader


def make_loader(dataset, batch_size, device, train=True, num_workers=2) -> DataLoader:
    return DataLoader(dataset, batch_size=batch_size, shuffle=train, drop_last=train,
                      num_workers=num_workers, pin_memory=torch.device(device).type == "cuda")
