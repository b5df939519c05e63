"""The real thing, on a real CUDA GPU: what the notebooks grade on CPU through fakes.

Every test is marked ``cuda`` and skipped without CUDA (``pytest -m cuda`` selects them;
``scripts/gpu_run.py`` runs them on a GPU machine). They check behaviour, never a fixed speed:
the only speed claims are orderings that hold on every CUDA GPU (pinned copies beat pageable ones,
a compiled model's steady call beats its first).
"""

from __future__ import annotations

import statistics
import time

import pytest
import torch

pytestmark = [
    pytest.mark.cuda,
    pytest.mark.skipif(not torch.cuda.is_available(), reason="needs a CUDA GPU (torch.cuda.is_available() is False)"),
]


@pytest.fixture(autouse=True)
def _cuda_clean():
    yield
    if torch.cuda.is_available():
        torch.cuda.synchronize()
        torch.cuda.empty_cache()


def events_ms(fn, repeats: int = 5, warmup: int = 2) -> list[float]:
    for _ in range(warmup):
        fn()
    times = []
    for _ in range(repeats):
        start, end = torch.cuda.Event(enable_timing=True), torch.cuda.Event(enable_timing=True)
        start.record()
        fn()
        end.record()
        end.synchronize()  # elapsed_time needs both events complete
        times.append(start.elapsed_time(end))
    return times


def test_cuda_events_time_a_matmul_and_naive_timing_misses_it():
    a = torch.randn(4096, 4096, device="cuda")
    b = torch.randn(4096, 4096, device="cuda")

    def matmul():
        return a @ b

    event_times = events_ms(matmul)
    assert all(t > 0 for t in event_times)
    flops = 2 * 4096**3
    assert flops / (statistics.median(event_times) * 1e-3) < 5e15, "faster than any GPU: events not synchronized?"

    # A synchronized host clock agrees with the events (within launch overhead) ...
    torch.cuda.synchronize()
    t0 = time.perf_counter()
    for _ in range(5):
        matmul()
    torch.cuda.synchronize()
    synced_ms = (time.perf_counter() - t0) * 1e3 / 5
    assert synced_ms >= 0.8 * statistics.median(event_times)
    # ... while the naive clock, read before the queue drains, sees mostly the launch: a big queue
    # of work returns to the host long before it is done.
    torch.cuda.synchronize()
    t0 = time.perf_counter()
    for _ in range(20):
        matmul()
    naive_ms = (time.perf_counter() - t0) * 1e3
    torch.cuda.synchronize()
    total_ms = (time.perf_counter() - t0) * 1e3
    assert naive_ms < 0.5 * total_ms, (naive_ms, total_ms)


def test_gpucourse_timing_agrees_with_events():
    from gpucourse.timing import time_ms

    x = torch.randn(2048, 2048, device="cuda")
    host = statistics.median(time_ms(lambda: x @ x, torch.device("cuda"), warmup=2, repeats=5))
    dev = statistics.median(events_ms(lambda: x @ x))
    assert host >= 0.8 * dev, (host, dev)


def h2d_gbps(src: torch.Tensor, repeats: int = 5) -> float:
    dst = torch.empty(src.shape, dtype=src.dtype, device="cuda")
    times = events_ms(lambda: dst.copy_(src, non_blocking=True), repeats=repeats)
    return src.numel() * src.element_size() / (statistics.median(times) * 1e-3) / 1e9


def test_pinned_host_to_device_copies_beat_pageable():
    nbytes = 256 << 20
    pageable = torch.empty(nbytes, dtype=torch.uint8).fill_(1)
    pinned = torch.empty(nbytes, dtype=torch.uint8, pin_memory=True).fill_(1)
    assert pinned.is_pinned() and not pageable.is_pinned()
    gbps_pageable, gbps_pinned = h2d_gbps(pageable), h2d_gbps(pinned)
    assert 0.1 < gbps_pageable < 1000 and 0.1 < gbps_pinned < 1000
    assert gbps_pinned > gbps_pageable, f"pinned {gbps_pinned:.1f} GB/s, pageable {gbps_pageable:.1f} GB/s"


def test_non_blocking_device_to_host_needs_a_sync():
    """The copy into pinned memory is only complete after a synchronize; after it, the data is right."""
    x = torch.arange(1 << 24, device="cuda", dtype=torch.float32)
    out = torch.empty(x.shape, dtype=x.dtype, pin_memory=True)
    out.copy_(x * 2, non_blocking=True)
    torch.cuda.synchronize()
    assert torch.equal(out, (torch.arange(1 << 24, dtype=torch.float32) * 2))


def test_grad_scaler_cuda_is_enabled_and_backs_off_on_inf():
    model = torch.nn.Linear(8, 4).cuda()
    optimizer = torch.optim.SGD(model.parameters(), lr=0.1)
    scaler = torch.amp.GradScaler("cuda", init_scale=2.0**16)
    assert scaler.is_enabled(), "GradScaler('cuda') must be active on a CUDA machine"
    x, y = torch.randn(16, 8, device="cuda"), torch.randint(0, 4, (16,), device="cuda")

    def step(poison: bool):
        optimizer.zero_grad(set_to_none=True)
        with torch.autocast("cuda", dtype=torch.float16):
            loss = torch.nn.functional.cross_entropy(model(x), y)
        scaler.scale(loss).backward()
        if poison:
            model.weight.grad[0, 0] = float("inf")
        before = [p.detach().clone() for p in model.parameters()]
        scaler.step(optimizer)
        scaler.update()
        return before

    before = step(poison=True)
    assert scaler.get_scale() == 2.0**15, "an inf gradient halves the scale"
    kept = all(torch.equal(a, b) for a, b in zip(before, model.parameters(), strict=True))
    assert kept, "the step with inf is skipped"
    before = step(poison=False)
    assert scaler.get_scale() == 2.0**15, "a good step keeps the scale until growth_interval good steps"
    assert any(not torch.equal(a, b) for a, b in zip(before, model.parameters(), strict=True)), "a good step updates"
    # removing update(): the next step() raises, it does not freeze the scale silently
    optimizer.zero_grad()
    with torch.autocast("cuda", dtype=torch.float16):
        loss = torch.nn.functional.cross_entropy(model(x), y)
    scaler.scale(loss).backward()
    scaler.step(optimizer)
    with pytest.raises(RuntimeError, match="already been called since the last update"):
        scaler.step(optimizer)


def test_autocast_cuda_dtypes_match_the_docs():
    a = torch.randn(64, 64, device="cuda")
    with torch.autocast("cuda", dtype=torch.float16):
        assert (a @ a).dtype == torch.float16
        assert torch.softmax(a @ a, dim=-1).dtype == torch.float32, "CUDA autocast runs softmax in float32"
        assert (a.half() + a).dtype == torch.float32, "add promotes to the widest input"


def test_bf16_native_support_is_decided_by_capability():
    major, minor = torch.cuda.get_device_capability(0)
    native = (major, minor) >= (8, 0)
    assert torch.cuda.is_bf16_supported(including_emulation=False) == native
    assert torch.cuda.is_bf16_supported() is True, "with emulation, every CUDA GPU answers True (a T4 too)"
    try:
        from gpucourse.amp import native_bf16
    except ImportError:
        native_bf16 = None
    if native_bf16 is not None:
        assert native_bf16((major, minor)) == native
    x = torch.randn(256, 256, device="cuda")
    with torch.autocast("cuda", dtype=torch.bfloat16):
        y = x @ x
    assert y.dtype == torch.bfloat16
    assert torch.allclose(y.float(), x @ x, rtol=0.05, atol=0.5)


def test_compile_with_inductor_on_a_small_mlp():
    torch._dynamo.reset()
    model = torch.nn.Sequential(torch.nn.Flatten(), torch.nn.Linear(784, 256), torch.nn.ReLU(),
                                torch.nn.Linear(256, 10)).cuda()
    compiled = torch.compile(model, backend="inductor")
    x = torch.randn(256, 1, 28, 28, device="cuda")
    torch.cuda.synchronize()
    t0 = time.perf_counter()
    out = compiled(x)
    torch.cuda.synchronize()
    first_ms = (time.perf_counter() - t0) * 1e3
    steady = []
    for _ in range(10):
        t0 = time.perf_counter()
        compiled(x)
        torch.cuda.synchronize()
        steady.append((time.perf_counter() - t0) * 1e3)
    torch.testing.assert_close(out, model(x), rtol=1e-3, atol=1e-3)
    assert first_ms > statistics.median(steady), "the first call includes compilation"
    # under autocast, composed
    with torch.autocast("cuda", dtype=torch.float16):
        assert compiled(x).dtype == torch.float16
    torch._dynamo.reset()


def test_environment_report_names_the_gpu(capsys):
    from gpucourse.env import environment_report

    device = environment_report()
    out = capsys.readouterr().out
    major, minor = torch.cuda.get_device_capability(0)
    assert device.type == "cuda"
    assert torch.cuda.get_device_name(0) in out and f"compute capability {major}.{minor}" in out


def test_gpucourse_copy_gbps_sees_pinned_beat_pageable():
    transfers = pytest.importorskip("gpucourse.transfers")
    if not hasattr(transfers, "copy_gbps"):
        pytest.skip("gpucourse.transfers.copy_gbps is not there")
    pageable = transfers.copy_gbps(64 << 20, "cuda", pinned=False, repeats=3)
    pinned = transfers.copy_gbps(64 << 20, "cuda", pinned=True, repeats=3)
    assert pinned > pageable > 0.1, (pinned, pageable)


def test_gpucourse_try_compile_compiles_on_this_gpu():
    compiling = pytest.importorskip("gpucourse.compiling")
    if not hasattr(compiling, "try_compile"):
        pytest.skip("gpucourse.compiling.try_compile is not there")
    torch._dynamo.reset()
    model = torch.nn.Sequential(torch.nn.Linear(32, 64), torch.nn.ReLU(), torch.nn.Linear(64, 4)).cuda()
    x = torch.randn(8, 32, device="cuda")
    result = compiling.try_compile(model, (x,), verbose=False)
    major, _ = torch.cuda.get_device_capability(0)
    if major >= 7:
        assert result.compiled, result.message
        torch.testing.assert_close(result.fn(x), model(x), rtol=1e-3, atol=1e-3)
    else:
        assert not result.compiled and "capability" in result.message
    torch._dynamo.reset()
