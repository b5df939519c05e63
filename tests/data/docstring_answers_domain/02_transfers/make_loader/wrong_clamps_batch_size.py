# breaks: "A DataLoader over dataset with batch_size, for device (a string or a torch.device)."
# how: clamps batch_size to len(dataset) so that a small data set still gives one full batch when training
import torch
from torch.utils.data import DataLoader


def make_loader(dataset, batch_size, device, train=True, num_workers=2) -> DataLoader:
    return DataLoader(dataset, batch_size=min(batch_size, len(dataset)), shuffle=train, drop_last=train,
                      num_workers=num_workers, pin_memory=torch.device(device).type == "cuda",
                      persistent_workers=num_workers > 0)
