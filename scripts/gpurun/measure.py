"""The direct measurements: figures ``gpu_run.py`` takes itself, independent of the notebooks (host-to-device
bandwidth pageable and pinned, naive versus synchronized versus CUDA-event timing of a matmul, matmul throughput
per dtype, one MLP training step eager, under autocast and compiled). Run alone, in a process of their own
(``gpu_run.py --measure-into FILE``), so that nothing else on the machine disturbs them and a time limit can stop
them."""

from __future__ import annotations

import functools
import statistics
import time


def events_ms(fn, repeats: int = 10, warmup: int = 3) -> float:
    import torch

    for _ in range(warmup):
        fn()
    times = []
    for _ in range(repeats):
        start, end = torch.cuda.Event(enable_timing=True), torch.cuda.Event(enable_timing=True)
        start.record()
        fn()
        end.record()
        end.synchronize()
        times.append(start.elapsed_time(end))
    return statistics.median(times)


def train_step(fwd, opt, scaler, x, y, amp_dtype, autocast: bool) -> None:
    """One step of the course's training loop, under autocast to ``amp_dtype`` or in float32."""
    import torch

    opt.zero_grad(set_to_none=True)
    with torch.autocast("cuda", dtype=amp_dtype, enabled=autocast):
        loss = torch.nn.functional.cross_entropy(fwd(x), y)
    scaler.scale(loss).backward()
    scaler.step(opt)
    scaler.update()


def measure() -> dict:
    import torch

    m: dict = {}
    # host-to-device bandwidth, 256 MiB, pageable versus pinned
    nbytes = 256 << 20
    dst = torch.empty(nbytes, dtype=torch.uint8, device="cuda")
    for kind, pin in (("pageable", False), ("pinned", True)):
        src = torch.ones(nbytes, dtype=torch.uint8, pin_memory=pin)
        copy = functools.partial(dst.copy_, src, non_blocking=True)
        m[f"h2d_{kind}_gbps"] = nbytes / (events_ms(copy, 5, 2) * 1e-3) / 1e9
    # naive versus synchronized versus events: one 8192 x 8192 float32 matmul
    n = 8192
    a, b = torch.randn(n, n, device="cuda"), torch.randn(n, n, device="cuda")
    torch.backends.cuda.matmul.allow_tf32 = False
    for _ in range(3):
        a @ b
    torch.cuda.synchronize()
    t0 = time.perf_counter()
    a @ b
    m["matmul_naive_ms"] = (time.perf_counter() - t0) * 1e3
    torch.cuda.synchronize()
    synced = []
    for _ in range(10):
        torch.cuda.synchronize()
        t0 = time.perf_counter()
        a @ b
        torch.cuda.synchronize()
        synced.append((time.perf_counter() - t0) * 1e3)
    m["matmul_synced_ms"] = statistics.median(synced)
    m["matmul_events_ms"] = events_ms(lambda: a @ b)
    flop = 2 * n**3
    m["matmul_tflops_fp32"] = flop / (m["matmul_events_ms"] * 1e-3) / 1e12
    torch.backends.cuda.matmul.allow_tf32 = True
    m["matmul_tflops_tf32"] = flop / (events_ms(lambda: a @ b) * 1e-3) / 1e12
    torch.backends.cuda.matmul.allow_tf32 = False
    for name, dtype in (("fp16", torch.float16), ("bf16", torch.bfloat16)):
        ah, bh = a.to(dtype), b.to(dtype)
        m[f"matmul_tflops_{name}"] = flop / (events_ms(functools.partial(torch.matmul, ah, bh)) * 1e-3) / 1e12
    # one training step of the course's MLP (and a wider one), eager, autocast, compiled
    from gpucourse.model import make_mlp

    amp_dtype = torch.bfloat16 if torch.cuda.get_device_capability(0) >= (8, 0) else torch.float16
    m["amp_dtype"] = str(amp_dtype).replace("torch.", "")
    for label, hidden in (("mlp256", 256), ("mlp4096", 4096)):
        x = torch.randn(4096, 1, 28, 28, device="cuda")
        y = torch.randint(0, 10, (4096,), device="cuda")
        for mode in ("fp32", "amp", "compiled_amp"):
            torch._dynamo.reset()
            model = make_mlp(hidden=hidden).cuda()
            opt = torch.optim.AdamW(model.parameters(), lr=1e-3)
            scaler = torch.amp.GradScaler("cuda", enabled=amp_dtype == torch.float16 and mode != "fp32")
            fwd = torch.compile(model) if mode == "compiled_amp" else model
            step = functools.partial(train_step, fwd, opt, scaler, x, y, amp_dtype, mode != "fp32")

            t0 = time.perf_counter()
            step()
            torch.cuda.synchronize()
            if mode == "compiled_amp":
                m[f"{label}_compile_first_ms"] = (time.perf_counter() - t0) * 1e3
            ms = events_ms(step, repeats=20, warmup=5)
            m[f"{label}_{mode}_eps"] = 4096 / (ms * 1e-3)
        m[f"{label}_autocast_speedup"] = m[f"{label}_amp_eps"] / m[f"{label}_fp32_eps"]
        m[f"{label}_compile_speedup"] = m[f"{label}_compiled_amp_eps"] / m[f"{label}_amp_eps"]
    torch._dynamo.reset()
    torch.cuda.empty_cache()
    return m


