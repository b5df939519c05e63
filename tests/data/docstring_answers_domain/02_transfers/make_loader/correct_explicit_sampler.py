# reading: "shuffle" is a random order of every example each epoch, whichever sampler gives it; evaluation keeps order
# how: a SubsetRandomSampler over every index for training, the plain index range for evaluation; `data` names the
# torch.utils.data module
import torch
from torch.utils import data


def make_loader(dataset, batch_size, device, train=True, num_workers=2) -> data.DataLoader:
    is_cuda = getattr(device, "type", None) == "cuda" or torch.device(str(device)).type == "cuda"
    order = data.SubsetRandomSampler(range(len(dataset))) if train else range(len(dataset))
    return data.DataLoader(dataset, batch_size=batch_size, sampler=order, drop_last=bool(train),
                           num_workers=num_workers, pin_memory=is_cuda, persistent_workers=bool(num_workers))
