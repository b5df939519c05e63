# reading: a CUDA device is one whose str() is "cuda" or starts with "cuda:"
# how: str(device).partition(":")[0]; options collected per branch in a dict
from torch.utils.data import DataLoader


def make_loader(dataset, batch_size, device, train=True, num_workers=2) -> DataLoader:
    options = {"num_workers": num_workers, "persistent_workers": num_workers > 0,
               "pin_memory": str(device).partition(":")[0] == "cuda"}
    if train:
        options.update(shuffle=True, drop_last=True)
    return DataLoader(dataset, batch_size, **options)
