# breaks: "num_workers worker processes, persistent_workers=True exactly when num_workers > 0."
# how: keeps workers alive only when there are several of them: one worker is restarted every epoch
import torch
from torch.utils.data import DataLoader


def make_loader(dataset, batch_size, device, train=True, num_workers=2) -> DataLoader:
    return DataLoader(dataset, batch_size=batch_size, shuffle=train, drop_last=train,
                      num_workers=num_workers, pin_memory=torch.device(device).type == "cuda",
                      persistent_workers=num_workers > 1)
