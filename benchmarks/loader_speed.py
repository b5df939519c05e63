"""How fast batches reach the model: a DataLoader over tensors versus slicing tensors already on the device.

Both feed the same tensors (Fashion-MNIST as it ships: 60,000 uint8 images of 1x28x28 and int64 labels; ``--dtype
float32`` for normalized copies, four times the bytes), shuffled,
in batches of 512 with drop_last=True, and deliver every batch on the device (on a CPU-only machine the device is
the CPU, and the copy is a no-op). No training happens: this times the feeding alone. Each figure is the median of
several full epochs, so that one disturbed epoch does not decide it.

    python benchmarks/loader_speed.py [--epochs 5] [--batch-size 512] [--device cpu|cuda]

Prints examples per second for each loader and the ratio; the course's target is a ratio of at least 10.

``--threads`` sets torch's intra-op CPU threads (default 1). On a small shared CPU, OpenMP-parallel indexing
kernels stall erratically while other processes hold the cores (one 512-row gather measured anywhere from
0.1 ms to 24 ms with 2 threads on a busy 2-core machine, against a steady 0.15 ms with 1); one thread gives
both loaders the same, repeatable conditions. ``--threads 0`` keeps torch's default.
"""

from __future__ import annotations

import argparse
import statistics
import time

import torch
from torch.utils.data import DataLoader, TensorDataset


def synchronize(device: torch.device) -> None:
    if device.type == "cuda":
        torch.cuda.synchronize(device)


def resident_batches(x, y, batch_size, generator=None, drop_last=True):
    """The notebook's gpu_resident_batches: one permutation drawn on the data's device, sliced into batches."""
    perm = torch.randperm(len(x), device=x.device, generator=generator)
    for start in range(0, len(x), batch_size):
        idx = perm[start:start + batch_size]
        if drop_last and len(idx) < batch_size:
            break
        yield x.index_select(0, idx), y.index_select(0, idx)   # the same as x[idx], y[idx], and faster on a CPU


def epoch_seconds(make_batches, device: torch.device) -> tuple[float, int]:
    synchronize(device)
    start = time.perf_counter()
    count = 0
    for xb, yb in make_batches():
        xb = xb.to(device, non_blocking=True)
        yb = yb.to(device, non_blocking=True)
        count += len(xb)
    synchronize(device)
    return time.perf_counter() - start, count


def main(argv=None) -> float:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--epochs", type=int, default=5, help="epochs timed per loader (median taken)")
    parser.add_argument("--batch-size", type=int, default=512)
    parser.add_argument("--n", type=int, default=60_000, help="examples in the dataset")
    parser.add_argument("--device", default="cuda" if torch.cuda.is_available() else "cpu")
    parser.add_argument("--dtype", choices=("uint8", "float32"), default="uint8", help="image tensor type")
    parser.add_argument("--threads", type=int, default=1, help="torch intra-op threads (0: torch's default)")
    args = parser.parse_args(argv)
    if args.threads > 0:
        torch.set_num_threads(args.threads)
    device = torch.device(args.device)

    g = torch.Generator().manual_seed(0)
    x_host = torch.randint(0, 256, (args.n, 1, 28, 28), generator=g, dtype=torch.uint8)
    if args.dtype == "float32":
        x_host = (x_host.float() / 255 - 0.2860) / 0.3530
    y_host = torch.randint(0, 10, (args.n,), generator=g)
    x_dev, y_dev = x_host.to(device), y_host.to(device)
    loader = DataLoader(TensorDataset(x_host, y_host), batch_size=args.batch_size, shuffle=True, drop_last=True,
                        pin_memory=device.type == "cuda")

    loaders = {
        "DataLoader(TensorDataset) + copy per batch": lambda: loader,
        "resident batches (data already on the device)": lambda: resident_batches(x_dev, y_dev, args.batch_size),
    }
    rates = {}
    for name, make in loaders.items():
        epoch_seconds(make, device)  # warm-up epoch, not timed
        runs = [epoch_seconds(make, device) for _ in range(args.epochs)]
        seconds = statistics.median(r[0] for r in runs)
        rates[name] = runs[0][1] / seconds
    print(f"torch {torch.__version__}, device {device}, {torch.get_num_threads()} CPU threads, "
          f"{args.n:,} {args.dtype} images, batch {args.batch_size}, median of {args.epochs} epochs")
    for name, rate in rates.items():
        print(f"  {name:48} {rate:14,.0f} examples/s")
    dl, res = rates.values()
    ratio = res / dl
    print(f"  ratio resident / DataLoader: {ratio:.1f}x (target: at least 10x)")
    return ratio


if __name__ == "__main__":
    main()
