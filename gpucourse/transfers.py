"""Measuring host-to-device copies, a model of them for machines without a GPU, and a slow dataset.

- :func:`copy_gbps` measures the bandwidth of a real copy: host to GPU (pageable or pinned) when
  CUDA is present, a host memory copy otherwise (which shows the same shape: a fixed cost that
  dominates small copies, then a plateau).
- :data:`ILLUSTRATIVE_PCIE` holds illustrative parameters (bandwidth, fixed cost) for pinned and
  pageable copies over PCIe Gen3, used (and labelled as such) when there is no GPU to measure. The
  model behind every estimate, *latency + bytes / bandwidth*, is the student's own ``transfer_ms``
  of notebook 02 plus the fixed cost, so it is not here.
- :class:`SlowDataset` stands in for a dataset whose samples are costly to load (read and decode),
  so that the effect of ``DataLoader(num_workers=...)`` shows; it lives in a module, not in the
  notebook, so that worker processes can import it on every platform.
"""

from __future__ import annotations

import statistics
import time

import torch
from torch.utils.data import Dataset

from .timing import synchronize

#: Illustrative (not measured) parameters: (bandwidth in GB/s, fixed cost per copy in microseconds).
#: PCIe Gen3 x16 peaks at about 15.75 GB/s per direction in theory; pinned copies get most of it,
#: pageable copies go through a staging buffer and get less. Measure your own on a GPU.
ILLUSTRATIVE_PCIE = {"pinned": (12.0, 10.0), "pageable": (6.0, 20.0)}


def copy_gbps(nbytes: int, device, pinned: bool = False, repeats: int = 5, min_bytes: int = 64 << 20,
              max_copies: int = 1000) -> float:
    """Median GB/s of copying ``nbytes`` from host memory to ``device`` (a host copy on the CPU).

    Each measurement repeats the copy until at least ``min_bytes`` have moved (at most
    ``max_copies`` times), between two synchronizations, so that the fixed cost of a synchronize
    does not swamp small copies.
    ``pinned`` needs CUDA (page-locked memory belongs to the CUDA driver).
    """
    device = torch.device(device)
    if pinned and device.type != "cuda":
        raise ValueError("pinned memory needs a CUDA device")
    src = torch.empty(int(nbytes), dtype=torch.uint8, pin_memory=pinned)
    src.fill_(1)
    dst = torch.empty(int(nbytes), dtype=torch.uint8, device=device)
    copies = min(max_copies, max(1, min_bytes // max(1, int(nbytes))))
    dst.copy_(src, non_blocking=pinned)  # warm-up: first touch, allocator, driver set-up
    synchronize(device)
    rates = []
    for _ in range(repeats):
        synchronize(device)
        start = time.perf_counter()
        for _ in range(copies):
            dst.copy_(src, non_blocking=pinned)
        synchronize(device)
        seconds = time.perf_counter() - start
        rates.append(copies * nbytes / seconds / 1e9)
    return statistics.median(rates)


class SlowDataset(Dataset):
    """``n`` Fashion-MNIST-shaped samples, each taking ``ms`` milliseconds to "load".

    The wait (a sleep) stands in for reading a file and decoding an image, work that a
    ``DataLoader`` with worker processes does in parallel. Samples are uint8 ``(1, 28, 28)``
    images and int64 labels, deterministic for a given index.
    """

    def __init__(self, n: int = 512, ms: float = 2.0, seed: int = 0):
        self.n, self.ms, self.seed = int(n), float(ms), int(seed)

    def __len__(self) -> int:
        return self.n

    def __getitem__(self, index: int):
        if not 0 <= index < self.n:
            raise IndexError(index)
        time.sleep(self.ms / 1e3)
        g = torch.Generator().manual_seed(self.seed * 1_000_003 + index)
        image = torch.randint(0, 256, (1, 28, 28), dtype=torch.uint8, generator=g)
        return image, int(torch.randint(0, 10, (1,), generator=g))


def epoch_seconds(loader, max_batches: int | None = None) -> float:
    """Wall-clock seconds to iterate over ``loader`` (including starting its workers)."""
    start = time.perf_counter()
    for index, _batch in enumerate(loader):
        if max_batches is not None and index + 1 >= max_batches:
            break
    return time.perf_counter() - start
