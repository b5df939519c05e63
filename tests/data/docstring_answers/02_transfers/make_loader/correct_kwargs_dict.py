# reading: pin_memory decided by torch.device(device).type; a bool() of train for both flags.
# how: options collected in a dict first, then DataLoader(**options).
from torch.utils.data import DataLoader


def make_loader(dataset, batch_size, device, train=True, num_workers=2) -> DataLoader:
    is_cuda = torch.device(device).type == "cuda"
    options = dict(batch_size=batch_size, num_workers=num_workers,
                   shuffle=bool(train), drop_last=bool(train),
                   pin_memory=is_cuda, persistent_workers=num_workers > 0)
    return DataLoader(dataset, **options)
