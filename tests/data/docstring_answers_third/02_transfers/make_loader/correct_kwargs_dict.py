# reading: "names a CUDA device" = torch.device(device).type == "cuda", any index
# how: builds a kwargs dict step by step and passes train as bools explicitly
import torch
from torch.utils.data import DataLoader


def make_loader(dataset, batch_size, device, train=True, num_workers=2) -> DataLoader:
    kind = device.type if isinstance(device, torch.device) else torch.device(device).type
    options = {"batch_size": batch_size, "num_workers": num_workers}
    options["shuffle"] = bool(train)
    options["drop_last"] = bool(train)
    options["pin_memory"] = kind == "cuda"
    options["persistent_workers"] = num_workers > 0
    return DataLoader(dataset, **options)
