"""The simulated asynchronous device: queued work, synchronize, fake events, and the patching of torch.

What is checked is the order of things (queued, then done; the work inside the interval that times it) and lower
bounds (a kernel takes at least its duration), never an upper bound on a time: the tests hold on a busy machine
(a load of 10 on 2 cores). How close the timings come is measured and printed by benchmarks/simdevice_accuracy.py.
"""

from __future__ import annotations

import itertools
import time

import pytest
import torch

from gpucourse import timing
from gpucourse.simdevice import (
    HostWorkload,
    SimDevice,
    SimEvent,
    Workload,
    naive_and_synchronized,
    simulated_accelerator,
)


@pytest.fixture
def sim():
    with SimDevice("test device") as device:
        yield device


def test_launch_returns_at_once_and_synchronize_waits(sim):
    start = time.perf_counter()
    kernel = sim.launch(200)
    assert sim.pending == 1 and not kernel.done.is_set(), "launch must return before the work is done"
    sim.synchronize()
    waited_ms = (time.perf_counter() - start) * 1e3
    assert sim.pending == 0 and kernel.done.is_set()
    assert waited_ms >= 195
    assert 199 <= kernel.duration_ms <= waited_ms, "the kernel ran its time, within the wait"
    assert sim.sync_calls == ["synchronize"]


def test_naive_timing_reads_less_than_the_work_synchronized_timing_all_of_it(sim):
    result = naive_and_synchronized(sim, 200)
    assert result["true_ms"] >= 199
    assert result["naive_ms"] < result["true_ms"], "the naive reading ends when the work is queued"
    assert result["synchronized_ms"] >= result["true_ms"], "the synchronized interval holds the whole kernel"


def test_kernels_run_in_order(sim):
    kernels = [sim.launch(ms) for ms in (30, 5, 20)]
    sim.synchronize()
    for earlier, later in itertools.pairwise(kernels):
        assert earlier.finished <= later.started


def test_result_is_an_implicit_sync(sim):
    start = time.perf_counter()
    value = sim.launch(60, fn=lambda: 42).result()
    assert value == 42
    assert (time.perf_counter() - start) * 1e3 >= 55


def test_kernel_errors_surface_at_synchronize(sim):
    sim.launch(1, fn=lambda: 1 / 0)
    with pytest.raises(RuntimeError, match="ZeroDivisionError"):
        sim.synchronize()
    sim.synchronize()  # reported once


def test_duration_before_finish_raises(sim):
    kernel = sim.launch(100)
    with pytest.raises(RuntimeError):
        _ = kernel.duration_ms
    sim.synchronize()
    assert kernel.duration_ms >= 99


def test_copy_async_is_stale_until_synchronized(sim):
    src, dst = torch.arange(1.0, 5.0), torch.full((4,), -1.0)
    sim.copy_async(dst, src, ms=80)
    assert torch.equal(dst, torch.full((4,), -1.0)), "read before the copy happened"
    sim.synchronize()
    assert torch.equal(dst, src)


def test_closed_device_refuses_work():
    device = SimDevice()
    device.close()
    with pytest.raises(RuntimeError):
        device.launch(1)


def test_events_time_on_the_device(sim):
    start, end = SimEvent(enable_timing=True, device=sim), SimEvent(enable_timing=True, device=sim)
    before = sim.launch(300)   # queued before the start event: not part of the interval
    start.record()
    kernel = sim.launch(60)
    end.record()
    with pytest.raises(RuntimeError, match="synchronize"):
        start.elapsed_time(end)  # not completed yet
    end.synchronize()
    assert end.query() and start.query()
    elapsed = start.elapsed_time(end)
    assert kernel.duration_ms <= elapsed, "the interval holds the kernel recorded between the events"
    assert elapsed < before.duration_ms + kernel.duration_ms, "and not the kernel queued before the start event"


def test_events_need_enable_timing_and_a_record(sim):
    plain, timed = SimEvent(device=sim), SimEvent(enable_timing=True, device=sim)
    plain.record(), timed.record()
    sim.synchronize()
    with pytest.raises(RuntimeError, match="enable_timing"):
        plain.elapsed_time(timed)
    never = SimEvent(enable_timing=True, device=sim)
    with pytest.raises(RuntimeError, match="recorded"):
        timed.elapsed_time(never)


def test_simulated_cuda_patches_and_restores():
    real = (torch.cuda.is_available, torch.cuda.synchronize, torch.cuda.Event)
    with simulated_accelerator("cuda") as sim:
        assert torch.cuda.is_available() and torch.cuda.device_count() == 1
        sim.launch(80)
        torch.cuda.synchronize()
        assert sim.pending == 0 and sim.sync_calls == ["torch.cuda.synchronize"]
        event = torch.cuda.Event(enable_timing=True)
        event.record(torch.cuda.current_stream())
        torch.cuda.current_stream().synchronize()
        assert event.query()
        sim.launch(20)
        torch.accelerator.synchronize()
        assert sim.pending == 0
    assert (torch.cuda.is_available, torch.cuda.synchronize, torch.cuda.Event) == real


def test_simulated_mps():
    with simulated_accelerator("mps") as sim:
        assert torch.backends.mps.is_available() and not torch.cuda.is_available()
        sim.launch(50)
        torch.mps.synchronize()
        assert sim.pending == 0
        with pytest.raises(RuntimeError):
            torch.cuda.synchronize()


def test_no_accelerator_raises_like_cpu_only_pytorch():
    with simulated_accelerator(None):
        assert not torch.cuda.is_available() and not torch.backends.mps.is_available()
        for call in (torch.cuda.synchronize, torch.mps.synchronize, lambda: torch.cuda.Event(enable_timing=True)):
            with pytest.raises(RuntimeError):
                call()


def test_workload_slow_warmup_then_cycles():
    with simulated_accelerator("cuda") as sim:
        fn = Workload(sim, durations=[10, 30], warmup_ms=60, warmup_calls=1)
        for _ in range(3):
            fn()
        spent = fn.true_ms()
        assert fn.calls == 3
        assert spent[0] >= 59 and spent[1] >= 9 and spent[2] >= 29   # the warm-up, then 10 and 30 ms


def test_host_workload_is_synchronous():
    fn = HostWorkload(durations=[20])
    start = time.perf_counter()
    fn()
    assert (time.perf_counter() - start) * 1e3 >= 19 and fn.calls == 1 and fn.spent_ms[0] >= 19


# -- the grading method: a correct time_ms against the usual mistakes ------------------------------
def _no_sync_time_ms(fn, device, warmup=3, repeats=10):
    for _ in range(warmup):
        fn()
    times = []
    for _ in range(repeats):
        start = time.perf_counter()
        fn()
        times.append((time.perf_counter() - start) * 1e3)
    return times


def _sync_end_only_time_ms(fn, device, warmup=3, repeats=10):
    for _ in range(warmup):
        fn()
    times = []
    for _ in range(repeats):
        start = time.perf_counter()
        fn()
        timing.synchronize(device)
        times.append((time.perf_counter() - start) * 1e3)
    return times


WARMUP_MS = 300


def test_reference_time_ms_times_each_call_and_the_mistakes_do_not():
    """The reference reads each call's own work: at least most of it, and none of the queued warm-up (which would
    add WARMUP_MS); timing without a synchronize reads less than the work; synchronizing only at the end puts the
    queued warm-up in the first timing."""
    with simulated_accelerator("cuda") as sim:
        fn = Workload(sim, durations=[20, 110, 50], warmup_ms=WARMUP_MS, warmup_calls=2)
        times = timing.time_ms(fn, "cuda", warmup=2, repeats=3)
        for t, r in zip(times, fn.true_ms(skip=2), strict=True):
            assert 0.8 * r <= t < r + WARMUP_MS, (times, fn.true_ms(skip=2))
    with simulated_accelerator("cuda") as sim:
        fn = Workload(sim, durations=[60], warmup_ms=WARMUP_MS, warmup_calls=2)
        times = _no_sync_time_ms(fn, "cuda", warmup=2, repeats=2)
        assert all(t < r for t, r in zip(times, fn.true_ms(skip=2), strict=True)), "naive reads less than the work"
    with simulated_accelerator("cuda") as sim:
        fn = Workload(sim, durations=[60], warmup_ms=WARMUP_MS, warmup_calls=2)
        times = _sync_end_only_time_ms(fn, "cuda", warmup=2, repeats=2)
        assert times[0] >= fn.true_ms(skip=2)[0] + WARMUP_MS, "the queued warm-up shows in the first timing"


# -- what notebooks 07 and 08 rely on --------------------------------------------------------------
def test_device_works_in_parallel_with_the_host():
    with simulated_accelerator("cuda") as gpu:
        kernel = gpu.launch(50)
        time.sleep(0.3)             # the host is busy meanwhile
        busy_until = time.perf_counter()
        torch.cuda.synchronize()
        assert kernel.started < busy_until, "the device started its work while the host was busy"


def test_median_ms_of_the_reference_timing_counts_the_queued_work():
    with simulated_accelerator("cuda") as gpu:
        ms = timing.median_ms(lambda: gpu.launch(10), "cuda", warmup=1, repeats=3)
        assert gpu.sync_calls.count("torch.cuda.synchronize") == 6   # before and after each timed call
    assert ms >= 9, "the queued 10 ms kernel is in the reading"
