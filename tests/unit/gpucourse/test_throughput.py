"""gpucourse.throughput (GPU utilization readings) and the loader benchmark."""

from __future__ import annotations

import importlib.util
import time
from pathlib import Path
from unittest import mock

import pytest
import torch

from gpucourse import throughput as tp

ROOT = Path(__file__).resolve().parents[3]


# -- utilization ------------------------------------------------------------------------------------
def test_no_gpu_no_utilization():
    with mock.patch.object(torch.cuda, "is_available", lambda: False):
        assert tp.gpu_utilization() is None
        assert "no CUDA" in tp.utilization_source()


def test_utilization_falls_back_to_nvidia_smi_then_none():
    def no_nvml(index=0):
        raise ModuleNotFoundError("pynvml")

    with mock.patch.object(torch.cuda, "is_available", lambda: True), \
            mock.patch.object(torch.cuda, "utilization", no_nvml):
        with mock.patch.object(tp, "_nvidia_smi_utilization", lambda index=0: 42.0):
            assert tp.gpu_utilization() == 42.0
        with mock.patch.object(tp.shutil, "which", lambda name: None):
            assert tp.gpu_utilization() is None
            assert "not available" in tp.utilization_source()


def test_utilization_sampler_averages_a_reader():
    values = iter([10.0, 30.0, 50.0] + [50.0] * 100)
    with tp.UtilizationSampler(interval_s=0.01, reader=lambda index: next(values)) as sampler:
        time.sleep(0.08)
    assert len(sampler.samples) >= 3 and sampler.mean == pytest.approx(sum(sampler.samples) / len(sampler.samples))


def test_utilization_sampler_without_readings():
    with tp.UtilizationSampler(interval_s=0.01, reader=lambda index: None) as sampler:
        time.sleep(0.03)
    assert sampler.mean is None


@pytest.mark.cuda
@pytest.mark.skipif(not torch.cuda.is_available(), reason="needs a CUDA GPU")
def test_real_gpu_utilization_reading():
    value = tp.gpu_utilization()
    assert value is None or 0.0 <= value <= 100.0


# -- benchmarks/loader_speed.py ---------------------------------------------------------------------
def _load_benchmark(name: str):
    """benchmarks/<name>.py as a module (the benchmarks are scripts, not a package)."""
    spec = importlib.util.spec_from_file_location(name, ROOT / "benchmarks" / f"{name}.py")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def test_resident_batches_of_the_benchmark_are_a_shuffled_partition():
    bench = _load_benchmark("loader_speed")
    x = torch.arange(50).float().unsqueeze(1)
    y = torch.arange(50)
    batches = list(bench.resident_batches(x, y, 8, generator=torch.Generator().manual_seed(0)))
    assert [len(b) for _, b in batches] == [8] * 6
    assert all(torch.equal(xb[:, 0].long(), yb) for xb, yb in batches)
    seen = torch.cat([b for _, b in batches])
    assert len(set(seen.tolist())) == 48 and not torch.equal(seen, torch.arange(48))
    assert len(list(bench.resident_batches(x, y, 8, drop_last=False))) == 7


def test_benchmark_runs_and_prints_both_figures(capsys):
    bench = _load_benchmark("loader_speed")
    ratio = bench.main(["--n", "4096", "--epochs", "1", "--batch-size", "256", "--device", "cpu"])
    out = capsys.readouterr().out
    assert ratio > 0 and "DataLoader" in out and "resident" in out and "ratio" in out


# -- benchmarks/final_run.py: the floor it compares the final run with ------------------------------------------
def test_forward_flops_match_the_layer_arithmetic():
    from gpucourse.model import make_cnn, make_mlp
    final_run = _load_benchmark("final_run")
    x = torch.zeros(8, 1, 28, 28)
    assert final_run.forward_flops(make_mlp(hidden=64), x) == 2 * 8 * (784 * 64 + 64 * 10)
    conv = 2 * 8 * (28 * 28 * 4 * 1 * 9 + 14 * 14 * 8 * 4 * 9)       # output pixels x channels x inputs x 3x3
    assert final_run.forward_flops(make_cnn(channels=(4, 8), hidden=16), x) == conv + 2 * 8 * (392 * 16 + 16 * 10)


def test_arithmetic_seconds_times_every_layer_and_leaves_the_model_as_it_was():
    from gpucourse.model import make_cnn
    final_run = _load_benchmark("final_run")
    model = make_cnn(channels=(4, 8), hidden=16)
    before = [p.detach().clone() for p in model.parameters()]
    start = time.perf_counter()
    seconds = final_run.arithmetic_seconds(model, torch.zeros(8, 1, 28, 28), repeats=3)
    wall = time.perf_counter() - start
    assert 0 < seconds <= wall and model.training, "seconds, and only of what ran inside the call"
    assert all(p.grad is None for p in model.parameters())
    assert all(torch.equal(p, q) for p, q in zip(model.parameters(), before, strict=True))
