# breaks: "pin_memory=True exactly when device names a CUDA device (...), whatever this machine has."
# how: pins when the machine has CUDA, ignoring the device argument.
from torch.utils.data import DataLoader


def make_loader(dataset, batch_size, device, train=True, num_workers=2) -> DataLoader:
    return DataLoader(dataset, batch_size=batch_size, shuffle=train, drop_last=train,
                      num_workers=num_workers, pin_memory=torch.cuda.is_available(),
                      persistent_workers=num_workers > 0)
