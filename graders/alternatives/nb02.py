"""Correct answers of 02_transfers written differently from the reference."""

from graders.alternatives import Mistake

ALTERNATIVES = [
    Mistake("math-prod", "batch_nbytes", '''
        import math

        def batch_nbytes(batch_size, sample_shape, dtype) -> int:
            return batch_size * math.prod(sample_shape) * torch.empty((), dtype=dtype).element_size()
        ''', loses=(), why="math.prod and element_size of a 0-d tensor"),
    Mistake("finfo-bits", "batch_nbytes", '''
        def _bytes_per_element(dtype):
            if dtype == torch.bool:
                return 1
            info = torch.finfo(dtype) if dtype.is_floating_point or dtype.is_complex else torch.iinfo(dtype)
            return info.bits // 8 * (2 if dtype.is_complex else 1)

        def batch_nbytes(batch_size, sample_shape, dtype) -> int:
            count = batch_size
            for size in list(sample_shape):
                count = count * size
            return int(count) * _bytes_per_element(dtype)
        ''', loses=(), why="bits from finfo/iinfo in an own _helper"),
    Mistake("meta-tensor", "batch_nbytes", '''
        def batch_nbytes(batch_size, sample_shape, dtype) -> int:
            per_sample = torch.Size(sample_shape).numel()
            return int(batch_size) * per_sample * torch.tensor([], dtype=dtype).itemsize
        ''', loses=(), why="torch.Size.numel and itemsize"),
    Mistake("bytes-per-ms", "transfer_ms", '''
        def transfer_ms(nbytes, gb_per_s) -> float:
            bytes_per_ms = gb_per_s * 1e9 / 1000
            return nbytes / bytes_per_ms
        ''', loses=(), why="bytes per millisecond first"),
    Mistake("seconds-first", "transfer_ms", '''
        GB = 10**9

        def transfer_ms(nbytes, gb_per_s) -> float:
            seconds = nbytes / (gb_per_s * GB)
            return float(seconds * 1000)
        ''', loses=(), why="a module-level constant, seconds then milliseconds"),
    Mistake("debug-print", "transfer_ms", '''
        def transfer_ms(nbytes, gb_per_s) -> float:
            if gb_per_s <= 0:
                raise ValueError("bandwidth must be positive")
            ms = 1e3 * nbytes / 1e9 / gb_per_s
            print(f"{nbytes} B at {gb_per_s} GB/s: {ms:.3f} ms")
            return ms
        ''', loses=(), why="checks its input, prints"),
    Mistake("float32-tensor", "transfer_ms", '''
        def transfer_ms(nbytes, gb_per_s) -> float:
            return (torch.tensor(float(nbytes)) / (gb_per_s * 1e6)).item()
        ''', loses=(), why="computed in float32 with a tensor"),
    Mistake("kwargs-dict", "make_loader", '''
        from torch.utils.data import DataLoader

        def make_loader(dataset, batch_size, device, train=True, num_workers=2) -> DataLoader:
            options = dict(batch_size=batch_size, shuffle=bool(train), drop_last=bool(train),
                           num_workers=num_workers)
            if num_workers > 0:
                options["persistent_workers"] = True
            if str(device).startswith("cuda"):
                options["pin_memory"] = True
            return DataLoader(dataset, **options)
        ''', loses=(), why="builds keyword arguments in a dict; reads the device as a string"),
    Mistake("if-train", "make_loader", '''
        from torch.utils.data import DataLoader

        def make_loader(dataset, batch_size, device, train=True, num_workers=2) -> DataLoader:
            _pin = torch.device(device).type == "cuda"
            if train:
                return DataLoader(dataset, batch_size, True, num_workers=num_workers, pin_memory=_pin,
                                  drop_last=True, persistent_workers=num_workers > 0)
            return DataLoader(dataset, batch_size, False, num_workers=num_workers, pin_memory=_pin,
                              drop_last=False, persistent_workers=num_workers > 0)
        ''', loses=(), why="two branches, positional shuffle, a local named _pin"),
    Mistake("samplers", "make_loader", '''
        import torch.utils.data as tud

        def make_loader(dataset, batch_size, device, train=True, num_workers=2) -> tud.DataLoader:
            sampler = tud.RandomSampler(dataset) if train else tud.SequentialSampler(dataset)
            return tud.DataLoader(dataset, batch_size=batch_size, sampler=sampler, drop_last=train,
                                  num_workers=num_workers, persistent_workers=bool(num_workers),
                                  pin_memory=getattr(device, "type", str(device).split(":")[0]) == "cuda")
        ''', loses=(), why="explicit samplers instead of shuffle"),
    Mistake("constants-on-device", "normalize_on_device", '''
        def normalize_on_device(x_uint8, device, mean, std):
            x = x_uint8.to(device, non_blocking=True)
            mean_t = torch.tensor(mean, dtype=torch.float32).to(device)
            std_t = torch.tensor(std, dtype=torch.float32).to(device)
            return (x.to(torch.float32) / 255.0 - mean_t) / std_t
        ''', loses=(), why="sends the constants to the device too"),
    Mistake("div-in-place", "normalize_on_device", '''
        def normalize_on_device(x_uint8, device, mean, std):
            _x = x_uint8.to(device=device, non_blocking=True).float()
            _x.div_(255).sub_(mean).div_(std)
            return _x
        ''', loses=(), why="in-place arithmetic on the device copy"),
    Mistake("scale-shift", "normalize_on_device", '''
        def normalize_on_device(x_uint8, device, mean, std):
            moved = x_uint8.to(device, non_blocking=True)
            scale = 1.0 / (255.0 * std)
            return moved.to(torch.float32) * scale - mean / std
        ''', loses=(), why="one multiply and one subtract"),
]
