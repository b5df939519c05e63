# breaks: "train=True: shuffle and drop_last"
# how: a RandomSampler with replacement: an epoch draws len(dataset) examples at random, some twice, some never
import torch
from torch.utils.data import DataLoader, RandomSampler


def make_loader(dataset, batch_size, device, train=True, num_workers=2) -> DataLoader:
    sampler = RandomSampler(dataset, replacement=True) if train else None
    return DataLoader(dataset, batch_size=batch_size, sampler=sampler, drop_last=train,
                      num_workers=num_workers, pin_memory=torch.device(device).type == "cuda",
                      persistent_workers=num_workers > 0)
