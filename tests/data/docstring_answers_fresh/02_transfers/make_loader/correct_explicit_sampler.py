# reading: "shuffle" may be an explicit RandomSampler (train) / SequentialSampler (eval) instead of shuffle=.
# how: passes sampler= and builds the kwargs in a dict; the device type decides pinning.
from torch.utils.data import DataLoader, RandomSampler, SequentialSampler


def make_loader(dataset, batch_size, device, train=True, num_workers=2) -> DataLoader:
    options = {
        "batch_size": batch_size,
        "sampler": RandomSampler(dataset) if train else SequentialSampler(dataset),
        "drop_last": bool(train),
        "pin_memory": torch.device(device).type == "cuda",
        "num_workers": num_workers,
    }
    if num_workers > 0:
        options["persistent_workers"] = True
    return DataLoader(dataset, **options)
