# breaks: "persistent_workers=True exactly when num_workers > 0."
# how: keeps workers alive only for training loaders ("evaluation runs once per epoch anyway").
from torch.utils.data import DataLoader


def make_loader(dataset, batch_size, device, train=True, num_workers=2) -> DataLoader:
    return DataLoader(dataset, batch_size=batch_size, shuffle=train, drop_last=train,
                      pin_memory=torch.device(device).type == "cuda", num_workers=num_workers,
                      persistent_workers=train and num_workers > 0)
