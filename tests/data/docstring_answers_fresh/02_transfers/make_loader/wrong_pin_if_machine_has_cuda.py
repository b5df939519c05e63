# breaks: "pin_memory=True exactly when device names a CUDA device (...), whatever this machine has."
# how: pins when this machine has CUDA, so make_loader(ds, 32, "cpu") pins on a GPU machine and
#      make_loader(ds, 32, "cuda") does not pin on a CPU-only grader.
from torch.utils.data import DataLoader


def make_loader(dataset, batch_size, device, train=True, num_workers=2) -> DataLoader:
    return DataLoader(dataset, batch_size=batch_size, shuffle=train, drop_last=train,
                      pin_memory=torch.cuda.is_available(), num_workers=num_workers,
                      persistent_workers=num_workers > 0)
