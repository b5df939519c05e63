# breaks: "train=True: shuffle and drop_last; train=False: neither."
# how: drops the last batch only when the data set holds more than one batch, so training never sees zero batches
import torch
from torch.utils.data import DataLoader


def make_loader(dataset, batch_size, device, train=True, num_workers=2) -> DataLoader:
    drop = train and len(dataset) > batch_size
    return DataLoader(dataset, batch_size=batch_size, shuffle=train, drop_last=drop,
                      num_workers=num_workers, pin_memory=torch.device(device).type == "cuda",
                      persistent_workers=num_workers > 0)
