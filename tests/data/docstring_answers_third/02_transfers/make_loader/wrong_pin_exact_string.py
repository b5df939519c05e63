# breaks: "pin_memory=True exactly when device names a CUDA device (\"cuda\", \"cuda:0\", torch.device(\"cuda\"), ...)"
# how: compares str(device) with "cuda", missing "cuda:0" and torch.device("cuda:1")
from torch.utils.data import DataLoader


def make_loader(dataset, batch_size, device, train=True, num_workers=2) -> DataLoader:
    return DataLoader(dataset, batch_size=batch_size, shuffle=train, drop_last=train,
                      pin_memory=str(device) == "cuda", num_workers=num_workers,
                      persistent_workers=num_workers > 0)
