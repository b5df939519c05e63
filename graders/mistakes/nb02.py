"""Common mistakes for 02_transfers."""

from graders.mistakes import Mistake

MISTAKES = [
    # -- batch_nbytes -------------------------------------------------------------------------
    Mistake("four-bytes-always", "batch_nbytes", '''
        def batch_nbytes(batch_size, sample_shape, dtype) -> int:
            n = batch_size
            for s in sample_shape:
                n *= s
            return n * 4
        ''', loses=("test_batch_nbytes",), why="assumes every dtype takes 4 bytes", sample=True),
    Mistake("bits-not-bytes", "batch_nbytes", '''
        def batch_nbytes(batch_size, sample_shape, dtype) -> int:
            n = batch_size
            for s in sample_shape:
                n *= s
            return n * dtype.itemsize * 8
        ''', loses=("test_batch_nbytes",), why="counts bits instead of bytes"),
    Mistake("finfo-bits", "batch_nbytes", '''
        def batch_nbytes(batch_size, sample_shape, dtype) -> int:
            n = batch_size
            for s in sample_shape:
                n *= s
            return n * torch.finfo(dtype).bits // 8
        ''', loses=("test_batch_nbytes",), why="torch.finfo only knows floating types: uint8 and bool fail"),
    Mistake("per-sample", "batch_nbytes", '''
        def batch_nbytes(batch_size, sample_shape, dtype) -> int:
            n = 1
            for s in sample_shape:
                n *= s
            return n * dtype.itemsize
        ''', loses=("test_batch_nbytes",), why="forgets the batch dimension"),
    Mistake("float-result", "batch_nbytes", '''
        import math
        def batch_nbytes(batch_size, sample_shape, dtype) -> int:
            return batch_size * math.prod(sample_shape) * torch.tensor([], dtype=dtype).element_size() / 1.0
        ''', loses=("test_batch_nbytes",), why="returns a float"),
    Mistake("allocates", "batch_nbytes", '''
        def batch_nbytes(batch_size, sample_shape, dtype) -> int:
            return torch.zeros((batch_size, *sample_shape), dtype=dtype).nbytes
        ''', loses=("test_batch_nbytes",), why="allocates the batch to measure it: fails for batches larger than memory"),
    # -- transfer_ms --------------------------------------------------------------------------
    Mistake("gibibytes", "transfer_ms", '''
        def transfer_ms(nbytes, gb_per_s) -> float:
            return nbytes / (gb_per_s * 2**30) * 1000
        ''', loses=("test_transfer_ms",), why="uses 2**30 bytes per GB", sample=True),
    Mistake("seconds", "transfer_ms", '''
        def transfer_ms(nbytes, gb_per_s) -> float:
            return nbytes / (gb_per_s * 1e9)
        ''', loses=("test_transfer_ms",), why="returns seconds"),
    Mistake("inverted", "transfer_ms", '''
        def transfer_ms(nbytes, gb_per_s) -> float:
            return gb_per_s * 1e9 / max(nbytes, 1) * 1000
        ''', loses=("test_transfer_ms",), why="divides the wrong way"),
    Mistake("megabytes", "transfer_ms", '''
        def transfer_ms(nbytes, gb_per_s) -> float:
            return nbytes / (gb_per_s * 1e6) * 1000
        ''', loses=("test_transfer_ms",), why="treats the bandwidth as MB/s"),
    Mistake("integer-division", "transfer_ms", '''
        def transfer_ms(nbytes, gb_per_s) -> float:
            return float(nbytes * 1000 // int(gb_per_s * 1e9))
        ''', loses=("test_transfer_ms",), why="integer division truncates small transfers to 0"),
    # -- make_loader --------------------------------------------------------------------------
    Mistake("pin-if-machine-has-cuda", "make_loader", '''
        from torch.utils.data import DataLoader
        def make_loader(dataset, batch_size, device, train=True, num_workers=2):
            return DataLoader(dataset, batch_size=batch_size, shuffle=train, drop_last=train,
                              num_workers=num_workers, pin_memory=torch.cuda.is_available(),
                              persistent_workers=num_workers > 0)
        ''', loses=("test_make_loader",), why="pins for the machine, not for the device asked for", sample=True),
    Mistake("pin-always", "make_loader", '''
        from torch.utils.data import DataLoader
        def make_loader(dataset, batch_size, device, train=True, num_workers=2):
            return DataLoader(dataset, batch_size=batch_size, shuffle=train, drop_last=train,
                              num_workers=num_workers, pin_memory=True, persistent_workers=num_workers > 0)
        ''', loses=("test_make_loader",), why="pins memory for CPU and MPS runs too"),
    Mistake("device-string-compare", "make_loader", '''
        from torch.utils.data import DataLoader
        def make_loader(dataset, batch_size, device, train=True, num_workers=2):
            return DataLoader(dataset, batch_size=batch_size, shuffle=train, drop_last=train,
                              num_workers=num_workers, pin_memory=device == "cuda",
                              persistent_workers=num_workers > 0)
        ''', loses=("test_make_loader",), why="misses torch.device('cuda') and 'cuda:0'"),
    Mistake("shuffle-eval", "make_loader", '''
        from torch.utils.data import DataLoader
        def make_loader(dataset, batch_size, device, train=True, num_workers=2):
            return DataLoader(dataset, batch_size=batch_size, shuffle=True, drop_last=True,
                              num_workers=num_workers, pin_memory=torch.device(device).type == "cuda",
                              persistent_workers=num_workers > 0)
        ''', loses=("test_make_loader",), why="shuffles and drops examples when evaluating"),
    Mistake("no-drop-last", "make_loader", '''
        from torch.utils.data import DataLoader
        def make_loader(dataset, batch_size, device, train=True, num_workers=2):
            return DataLoader(dataset, batch_size=batch_size, shuffle=train,
                              num_workers=num_workers, pin_memory=torch.device(device).type == "cuda",
                              persistent_workers=num_workers > 0)
        ''', loses=("test_make_loader",), why="keeps the short last batch when training"),
    Mistake("workers-ignored", "make_loader", '''
        from torch.utils.data import DataLoader
        def make_loader(dataset, batch_size, device, train=True, num_workers=2):
            return DataLoader(dataset, batch_size=batch_size, shuffle=train, drop_last=train,
                              num_workers=2, pin_memory=torch.device(device).type == "cuda",
                              persistent_workers=True)
        ''', loses=("test_make_loader",), why="always two persistent workers, whatever num_workers says"),
    Mistake("not-persistent", "make_loader", '''
        from torch.utils.data import DataLoader
        def make_loader(dataset, batch_size, device, train=True, num_workers=2):
            return DataLoader(dataset, batch_size=batch_size, shuffle=train, drop_last=train,
                              num_workers=num_workers, pin_memory=torch.device(device).type == "cuda")
        ''', loses=("test_make_loader",), why="restarts the workers every epoch"),
    # -- normalize_on_device ------------------------------------------------------------------
    Mistake("float-before-transfer", "normalize_on_device", '''
        def normalize_on_device(x_uint8, device, mean, std):
            x = x_uint8.float()
            return ((x / 255 - mean) / std).to(device, non_blocking=True)
        ''', loses=("test_normalize_on_device",), why="converts on the CPU: four times the bytes cross",
        sample=True),
    Mistake("to-float-then-move", "normalize_on_device", '''
        def normalize_on_device(x_uint8, device, mean, std):
            x = x_uint8.to(torch.float32).to(device, non_blocking=True)
            return (x / 255 - mean) / std
        ''', loses=("test_normalize_on_device",), why="casts with .to(float32) before the move"),
    Mistake("blocking", "normalize_on_device", '''
        def normalize_on_device(x_uint8, device, mean, std):
            x = x_uint8.to(device)
            return (x.float() / 255 - mean) / std
        ''', loses=("test_normalize_on_device",), why="forgets non_blocking=True"),
    Mistake("no-scale", "normalize_on_device", '''
        def normalize_on_device(x_uint8, device, mean, std):
            x = x_uint8.to(device, non_blocking=True)
            return (x.float() - mean) / std
        ''', loses=("test_normalize_on_device",), why="forgets to divide by 255"),
    Mistake("scale-last", "normalize_on_device", '''
        def normalize_on_device(x_uint8, device, mean, std):
            x = x_uint8.to(device, non_blocking=True)
            return (x.float() - mean) / std / 255
        ''', loses=("test_normalize_on_device",), why="divides by 255 after normalizing"),
    Mistake("float64", "normalize_on_device", '''
        def normalize_on_device(x_uint8, device, mean, std):
            x = x_uint8.to(device, non_blocking=True)
            return (x.double() / 255 - mean) / std
        ''', loses=("test_normalize_on_device",), why="returns float64"),
    Mistake("half", "normalize_on_device", '''
        def normalize_on_device(x_uint8, device, mean, std):
            x = x_uint8.to(device, non_blocking=True)
            return ((x.half() / 255 - mean) / std)
        ''', loses=("test_normalize_on_device",), why="returns float16"),
]
