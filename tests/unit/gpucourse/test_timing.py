"""gpucourse.timing, generated from notebook 03's reference and imported by 02, 04, 07 and 08: checked on
simulated devices."""

from __future__ import annotations

import pytest
import torch

from gpucourse import timing
from gpucourse.simdevice import HostWorkload, Workload, simulated_accelerator


@pytest.mark.parametrize("device", ["cuda", "cuda:0", torch.device("cuda")])
def test_synchronize_cuda_drains_the_queue(device):
    with simulated_accelerator("cuda") as sim:
        sim.launch(60)
        timing.synchronize(device)
        assert sim.pending == 0 and sim.sync_calls


def test_synchronize_mps():
    with simulated_accelerator("mps") as sim:
        sim.launch(40)
        timing.synchronize("mps")
        assert sim.pending == 0


@pytest.mark.parametrize("device", ["cpu", torch.device("cpu")])
def test_synchronize_cpu_touches_no_accelerator(device):
    with simulated_accelerator(None):
        timing.synchronize(device)  # would raise if it called torch.cuda or torch.mps
    with simulated_accelerator("cuda") as sim:
        timing.synchronize(device)
        assert not sim.sync_calls


def test_time_ms_on_a_simulated_gpu():
    with simulated_accelerator("cuda") as sim:
        fn = Workload(sim, durations=[30, 90], warmup_ms=200, warmup_calls=2)
        times = timing.time_ms(fn, "cuda", warmup=2, repeats=4)
        assert fn.calls == 6 and len(times) == 4
        for measured, true in zip(times, fn.true_ms(skip=2), strict=True):
            assert 0.8 * true <= measured <= true + 150


def test_time_ms_on_the_cpu():
    with simulated_accelerator(None):
        fn = HostWorkload(durations=[20, 40])
        times = timing.time_ms(fn, "cpu", warmup=1, repeats=3)
        assert fn.calls == 4 and len(times) == 3
        for measured, true in zip(times, fn.spent_ms[1:], strict=True):
            assert 0.8 * true <= measured <= true + 150


def test_median_ms():
    with simulated_accelerator("cuda") as sim:
        fn = Workload(sim, durations=[20, 20, 200])
        median = timing.median_ms(fn, "cuda", warmup=0, repeats=3)
        assert 18 <= median < 150, "the median ignores the one slow call"


def test_signatures_are_kept():
    import inspect
    assert list(inspect.signature(timing.synchronize).parameters) == ["device"]
    params = inspect.signature(timing.time_ms).parameters
    assert list(params) == ["fn", "device", "warmup", "repeats"]
    assert params["warmup"].default == 3 and params["repeats"].default == 10
    assert list(inspect.signature(timing.median_ms).parameters) == ["fn", "device", "warmup", "repeats"]
