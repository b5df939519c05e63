"""gpucourse.transfers: the illustrative PCIe parameters, the copy measurement and the slow dataset."""

from __future__ import annotations

import pickle

import pytest
import torch
from torch.utils.data import DataLoader

from gpucourse.transfers import ILLUSTRATIVE_PCIE, SlowDataset, copy_gbps, epoch_seconds


def test_illustrative_parameters_order():
    pinned, pageable = ILLUSTRATIVE_PCIE["pinned"], ILLUSTRATIVE_PCIE["pageable"]
    assert pinned[0] > pageable[0] and pinned[0] < 15.75, "pinned is faster, and below the PCIe Gen3 peak"


def test_copy_gbps_on_the_cpu_is_a_positive_rate():
    rate = copy_gbps(1 << 16, "cpu", repeats=2, min_bytes=1 << 20)
    assert rate > 0


def test_pinned_needs_cuda():
    with pytest.raises(ValueError):
        copy_gbps(1024, "cpu", pinned=True)


def test_slow_dataset_is_deterministic_and_bounded():
    data = SlowDataset(n=5, ms=1.0, seed=3)
    assert len(data) == 5
    image, label = data[2]
    assert image.dtype == torch.uint8 and image.shape == (1, 28, 28) and 0 <= label < 10
    again, label_again = SlowDataset(n=5, ms=0.0, seed=3)[2]
    assert torch.equal(image, again) and label == label_again
    with pytest.raises(IndexError):
        data[5]


def test_slow_dataset_pickles_for_worker_processes():
    data = pickle.loads(pickle.dumps(SlowDataset(n=4, ms=0.0)))
    assert len(data) == 4


def test_slow_dataset_loads_in_batches():
    loader = DataLoader(SlowDataset(n=10, ms=1.0), batch_size=4)
    images, labels = next(iter(loader))
    assert images.shape == (4, 1, 28, 28) and labels.dtype == torch.int64
    assert epoch_seconds(loader) >= 0.009
    assert epoch_seconds(loader, max_batches=1) < epoch_seconds(loader) + 1


@pytest.mark.cuda
@pytest.mark.skipif(not torch.cuda.is_available(), reason="needs a CUDA GPU")
def test_pinned_copies_are_measured_on_cuda():
    pageable = copy_gbps(32 << 20, "cuda", pinned=False, repeats=3)
    pinned = copy_gbps(32 << 20, "cuda", pinned=True, repeats=3)
    assert pageable > 0 and pinned > 0
