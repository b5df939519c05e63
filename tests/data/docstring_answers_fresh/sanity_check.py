"""Sanity check of the W2 answer set: every correct_*.py meets the probes, every wrong_*.py fails one.

Written by helper session W2 from the docstrings alone, CPU only: CUDA, MPS, the clock and the device queue are
faked here (no GPU, no reading of the course's own checks). A probe is this file's own reading of the docstring
sentence an answer breaks; a wrong answer that passes every probe of its cell is reported as "NOT CAUGHT".

    .venv/bin/python tests/data/docstring_answers_fresh/sanity_check.py [notebook_prefix ...]

Exit status 1 when a correct answer fails a probe or a wrong one passes them all.
"""

from __future__ import annotations

import contextlib
import logging
import math
import os
import random
import struct
import sys
import warnings
from pathlib import Path
from unittest import mock

import torch
import torch.nn.functional as F
from torch import nn
from torch.utils.data import DataLoader, RandomSampler, TensorDataset

HERE = Path(__file__).resolve().parent
PROBES = {}


def probe(notebook, cell):
    def register(fn):
        PROBES[(notebook, cell)] = fn
        return fn
    return register


def load(path, **names):
    """Run an answer cell as the notebook would: torch (and what the notebook defines earlier) already there."""
    ns = {"torch": torch, "F": F, **names}
    exec(compile(path.read_text(), str(path), "exec"), ns)
    return ns


def attempt(fn, *args, **kwargs):
    try:
        return fn(*args, **kwargs), None
    except Exception as error:  # an answer raising is an observation, not a crash of this script
        return None, error


# ----------------------------------------------------------------------------------------------------------
# A fake asynchronous device and clock: fn() queues device work, synchronize() waits for it and costs a bit.
# ----------------------------------------------------------------------------------------------------------
class FakeDevice:
    HOST_MS, SYNC_MS = 0.125, 0.5

    def __init__(self, durations, pending_ms=7.0):
        self.now = 0.0
        self.queue_end = pending_ms  # work queued before the function under test starts
        self.durations = list(durations)
        self.log = []

    def perf_counter(self):
        return self.now / 1e3

    def perf_counter_ns(self):
        return round(self.now * 1e6)

    def synchronize(self, device=None):
        self.log.append("S")
        self.now = max(self.now, self.queue_end) + self.SYNC_MS

    def run(self, *args):
        ms = self.durations[sum(1 for e in self.log if e == "F") % len(self.durations)]
        self.log.append("F")
        self.now += self.HOST_MS
        self.queue_end = max(self.queue_end, self.now) + ms

    @contextlib.contextmanager
    def clock(self):
        with mock.patch("time.perf_counter", self.perf_counter), \
                mock.patch("time.perf_counter_ns", self.perf_counter_ns):
            yield


class FakeEvent:
    """torch.cuda.Event on FakeDevice: recorded at the queue's end; elapsed_time raises until it has happened."""

    device: FakeDevice = None
    made = 0

    def __init__(self, enable_timing=False):
        assert enable_timing, "enable_timing=True is needed for elapsed_time"
        FakeEvent.made += 1
        self.serial = FakeEvent.made  # not id(): ids are reused once an event is freed
        self.at = None
        self.done = False

    def record(self, stream=None):
        self.at = max(self.device.now, self.device.queue_end)
        self.device.log.append(("R", self.serial))

    def synchronize(self):
        self.device.now = max(self.device.now, self.at)
        self.done = True

    def elapsed_time(self, end):
        for event in (self, end):
            if not event.done and self.device.now < event.at:
                raise RuntimeError("event not completed: synchronize before elapsed_time")
        return end.at - self.at


def fake_cuda_events(device):
    FakeEvent.device, FakeEvent.made = device, 0
    return contextlib.ExitStack(), [mock.patch("torch.cuda.Event", FakeEvent),
                                    mock.patch("torch.cuda.synchronize", device.synchronize)]


def to_spy():
    """Patch Tensor.to to record (source dtype, args, non_blocking) of every call."""
    calls = []
    real = torch.Tensor.to

    def spy(self, *args, **kwargs):
        calls.append((self.dtype, args, kwargs.get("non_blocking", False) or (len(args) > 2 and args[2])))
        return real(self, *args, **kwargs)
    return calls, mock.patch.object(torch.Tensor, "to", spy)


class ModeRecorder(nn.Module):
    """A small classifier that remembers the mode and the grad mode of every forward pass."""

    def __init__(self, features=4, classes=3):
        super().__init__()
        torch.manual_seed(1)
        self.layer = nn.Linear(features, classes)
        self.modes = []

    def forward(self, x):
        self.modes.append((self.training, torch.is_grad_enabled()))
        return self.layer(x)


def dataset(n=50, features=4, classes=3):
    g = torch.Generator().manual_seed(0)
    return TensorDataset(torch.randn(n, features, generator=g), torch.randint(0, classes, (n,), generator=g))


# ------------------------------------------------------------- 01_devices
@probe("01_devices", "pick_device")
def _(path):
    problems = []
    for cuda, mps in [(True, True), (False, True), (True, False), (False, False)]:
        expected = torch.device("cuda" if cuda else "mps" if mps else "cpu")

        def current(check_available=False, cuda=cuda, mps=mps):
            if cuda or mps:
                return torch.device("cuda" if cuda else "mps")
            return None if check_available else torch.device("cuda")  # a CUDA build on a machine without a GPU
        with mock.patch("torch.cuda.is_available", return_value=cuda), \
                mock.patch("torch.backends.mps.is_available", return_value=mps), \
                mock.patch("torch.cuda.current_device", return_value=0), \
                mock.patch("torch.accelerator.is_available", return_value=cuda or mps), \
                mock.patch("torch.accelerator.current_accelerator", current):
            got, error = attempt(load(path)["pick_device"])
        if error or not isinstance(got, torch.device) or got != expected:
            problems.append(f"cuda={cuda} mps={mps}: {got!r} {error or ''}")
    return problems


@probe("01_devices", "to_device")
def _(path):
    fn = load(path)["to_device"]
    obj = {"b": [torch.ones(2), (3, "s", None, torch.zeros(1)), []], "a": (), "c": {"t": torch.ones(1)}}
    ids_before = [id(v) for v in obj["b"]], list(obj)
    calls, patch = to_spy()
    with patch:
        out, error = attempt(fn, obj, "meta", True)
    if error:
        return [f"raised {error!r}"]
    problems = []
    if list(out) != ["b", "a", "c"]:
        problems.append(f"dict keys {list(out)}")
    if type(out["b"]) is not list or type(out["b"][1]) is not tuple or type(out["a"]) is not tuple:
        problems.append("container types")
    if out["b"] is obj["b"] or out["b"][2] is obj["b"][2] or out is obj or out["c"] is obj["c"]:
        problems.append("a container is not new")
    if [id(v) for v in obj["b"]] != ids_before[0] or list(obj) != ids_before[1] or obj["b"][0].device.type != "cpu":
        problems.append("input modified")
    if out["b"][0].device.type != "meta" or out["b"][1][3].device.type != "meta" or out["c"]["t"].device.type != "meta":
        problems.append("a tensor not moved")
    if out["b"][1][:3] != (3, "s", None):
        problems.append("non-tensors changed")
    if len(calls) != 3 or not all(nb for _, _, nb in calls):
        problems.append(f"non_blocking not passed to every .to: {[nb for *_, nb in calls]}")
    return problems


def reference_epoch(model, loader):
    opt = torch.optim.SGD(model.parameters(), lr=0.1)
    model.train()
    total = count = 0
    for x, y in loader:
        opt.zero_grad()
        loss = F.cross_entropy(model(x), y)
        loss.backward()
        opt.step()
        total += loss.item() * len(x)
        count += len(x)
    return total / count


@probe("01_devices", "train_one_epoch")
def _(path):
    fn = load(path)["train_one_epoch"]
    problems = []
    for drop_last in (False, True):
        loader = DataLoader(dataset(), batch_size=16, drop_last=drop_last)
        model, ref = ModeRecorder(), ModeRecorder()
        for m in (model, ref):
            m(torch.randn(5, 4)).sum().backward()  # leftover gradients
            m.eval()
        expected = reference_epoch(ref, loader)
        model.modes.clear()
        calls, patch = to_spy()
        with patch:
            got, error = attempt(fn, model, loader, torch.optim.SGD(model.parameters(), lr=0.1),
                                 nn.CrossEntropyLoss(), "cpu")
        if error:
            return [f"raised {error!r}"]
        if type(got) is not float or not math.isclose(got, expected, rel_tol=1e-6):
            problems.append(f"drop_last={drop_last}: returned {got!r}, expected {expected}")
        if not torch.allclose(model.layer.weight, ref.layer.weight, atol=1e-6):
            problems.append("weights differ from the reference epoch (gradients not zeroed before backward?)")
        if not all(training for training, _ in model.modes):
            problems.append("a forward pass in eval mode")
        if sum(1 for _, _, nb in calls if nb) < 2 * len(loader):
            problems.append("a batch moved without non_blocking=True")
    return problems


@probe("01_devices", "evaluate")
def _(path):
    fn = load(path)["evaluate"]
    problems = []
    for drop_last in (False, True):
        loader = DataLoader(dataset(), batch_size=16, drop_last=drop_last)
        model = ModeRecorder()
        with torch.no_grad():
            pairs = [(model(x).argmax(1) == y).sum().item() for x, y in loader]
        expected = sum(pairs) / sum(len(y) for _, y in loader)
        model.modes.clear()
        model.train()
        got, error = attempt(fn, model, loader, "cpu")
        if error:
            return [f"raised {error!r}"]
        if type(got) is not float or not math.isclose(got, expected):
            problems.append(f"drop_last={drop_last}: {got!r} != {expected}")
        if any(training or grad for training, grad in model.modes):
            problems.append(f"forward passes in training mode or with autograd on: {set(model.modes)}")
    return problems


# ------------------------------------------------------------- 02_transfers
@probe("02_transfers", "batch_nbytes")
def _(path):
    fn = load(path)["batch_nbytes"]
    cases = [((256, (1, 28, 28), torch.float32), 802816), ((0, (3,), torch.float16), 0),
             ((7, (), torch.bool), 7), ((3, [2], torch.complex64), 48),
             ((1, torch.Size([2**53 + 1]), torch.uint8), 2**53 + 1),
             ((2**20, (2**20, 2**20 - 1), torch.float64), 2**60 * 8 - 2**43)]
    problems = []
    for args, expected in cases:
        got, error = attempt(fn, *args)
        if error or type(got) is not int or got != expected:
            problems.append(f"{args[0]}, {args[1]}, {args[2]}: {got!r} {type(error).__name__ if error else ''}")
    return problems


@probe("02_transfers", "transfer_ms")
def _(path):
    fn = load(path)["transfer_ms"]
    problems = []
    for nbytes, gbps in [(802816, 15.75), (1, 1), (10**9, 2), (1.5e6, 3)]:
        got = fn(nbytes, gbps)
        if type(got) is not float or not math.isclose(got, nbytes / (gbps * 1e6), rel_tol=1e-12):
            problems.append(f"({nbytes}, {gbps}) -> {got!r}")
    return problems


@probe("02_transfers", "make_loader")
def _(path):
    fn = load(path)["make_loader"]
    problems = []
    data = TensorDataset(torch.arange(10))
    for has_cuda in (True, False):
        for device in ["cuda", "cuda:0", torch.device("cuda"), torch.device("cuda", 1), "cpu", torch.device("cpu")]:
            for train in (True, False):
                for workers in (0, 2, 3):
                    with mock.patch("torch.cuda.is_available", return_value=has_cuda), \
                            mock.patch("os.cpu_count", return_value=2), warnings.catch_warnings():
                        warnings.simplefilter("ignore")
                        loader, error = attempt(fn, data, 3, device, train, workers)
                    if error:
                        problems.append(f"{device!r} raised {error!r}")
                        continue
                    want = (train, train, torch.device(device).type == "cuda", workers, workers > 0)
                    got = (isinstance(loader.sampler, RandomSampler), loader.drop_last, loader.pin_memory,
                           loader.num_workers, loader.persistent_workers)
                    if got != want or loader.batch_size != 3:
                        problems.append(f"{device!r} train={train} workers={workers}: {got} != {want}")
    return problems[:3]


@probe("02_transfers", "normalize_on_device")
def _(path):
    fn = load(path)["normalize_on_device"]
    x = torch.randint(0, 256, (4, 1, 3, 3), dtype=torch.uint8)
    kept = x.clone()
    calls, patch = to_spy()
    with patch:
        out = fn(x, "cpu", 0.286, 0.353)
    problems = []
    expected = (x.float() / 255 - 0.286) / 0.353
    if out.dtype != torch.float32 or out.shape != x.shape or not torch.allclose(out.float(), expected, atol=1e-5):
        problems.append(f"result {out.dtype} {tuple(out.shape)}")
    if not torch.equal(x, kept) or x.dtype != torch.uint8:
        problems.append("input changed")
    moves = [c for c in calls if c[0] == torch.uint8]
    if not moves or not moves[0][2]:
        problems.append("the uint8 move is not non_blocking")
    if any(c[0] != torch.uint8 and any(isinstance(a, (str, torch.device)) for a in c[1]) for c in calls):
        problems.append("a float tensor was moved")
    return problems


# ------------------------------------------------------------- 03_async_timing
@probe("03_async_timing", "synchronize")
def _(path):
    fn = load(path)["synchronize"]
    problems = []
    for device, want in [("cpu", (0, 0)), (torch.device("cpu"), (0, 0)), ("cuda", (1, 0)), ("cuda:0", (1, 0)),
                         (torch.device("cuda"), (1, 0)), (torch.device("cuda", 1), (1, 0)), ("mps", (0, 1))]:
        with mock.patch("torch.cuda.synchronize") as cuda, mock.patch("torch.mps.synchronize") as mps, \
                mock.patch("torch.cuda.is_available", return_value=True):
            fn(device)
        if (cuda.call_count, mps.call_count) != want:
            problems.append(f"{device!r}: cuda {cuda.call_count}, mps {mps.call_count} calls")
    return problems


@probe("03_async_timing", "time_ms")
def _(path):
    problems = []
    for warmup, repeats in [(3, 4), (0, 3), (2, 0)]:
        dev = FakeDevice([5.0, 1.0, 9.0, 2.0, 7.0, 3.0, 4.0])
        ns = load(path, synchronize=dev.synchronize)
        with dev.clock():
            got = ns["time_ms"](dev.run, "cpu", warmup=warmup, repeats=repeats)
        expected = [dev.HOST_MS + dev.durations[(warmup + i) % 7] + dev.SYNC_MS for i in range(repeats)]
        if dev.log.count("F") != warmup + repeats:
            problems.append(f"warmup={warmup}: {dev.log.count('F')} calls")
        if len(got) != repeats or any(not math.isclose(g, e, abs_tol=1e-9) for g, e in zip(got, expected, strict=True)):
            problems.append(f"warmup={warmup}: {got} != {expected}")
    return problems


@probe("03_async_timing", "time_ms_cuda_events")
def _(path):
    dev = FakeDevice([5.0, 1.0, 9.0, 2.0])
    fn = load(path)["time_ms_cuda_events"]
    stack, patches = fake_cuda_events(dev)
    with stack:
        for p in patches:
            stack.enter_context(p)
        got, error = attempt(fn, dev.run, warmup=2, repeats=5)
    if error:
        return [f"raised {error!r}"]
    problems = []
    expected = [dev.durations[(2 + i) % 4] for i in range(5)]
    # an idle device stamps the start event at once, so the host's launch time may count (as on a real GPU)
    launch = dev.HOST_MS + 1e-9
    if got is None or len(got) != 5 or any(not e - 1e-9 <= g <= e + launch for g, e in zip(got, expected, strict=True)):
        problems.append(f"{got} != {expected} (+ up to {dev.HOST_MS} ms of launch)")
    # each timed call between two events of its own, recorded right before and right after it
    log = dev.log
    calls = [i for i, e in enumerate(log) if e == "F"]
    timed = calls[-5:]
    around = [(log[i - 1], log[i + 1] if i + 1 < len(log) else None) for i in timed]
    used = [e for pair in around for e in pair]
    if any(not (isinstance(a, tuple) and isinstance(b, tuple)) for a, b in around) or len(set(used)) != 10:
        problems.append("not a pair of events of its own around each timed call")
    if any(isinstance(e, tuple) for e in log[:calls[1] + 1]) or FakeEvent.made != 10:
        problems.append(f"events around the warm-up calls ({FakeEvent.made} made)")
    return problems


# ------------------------------------------------------------- 04_autocast
@contextlib.contextmanager
def cpu_autocast_default(dtype):
    """Make the CPU's default autocast dtype something else, so that a missing dtype= shows."""
    old = torch.get_autocast_dtype("cpu")
    torch.set_autocast_dtype("cpu", dtype)
    try:
        yield
    finally:
        torch.set_autocast_dtype("cpu", old)


def mlp():
    torch.manual_seed(0)
    return nn.Sequential(nn.Flatten(), nn.Linear(16, 8), nn.ReLU(), nn.Linear(8, 3))


@probe("04_autocast", "amp_forward")
def _(path):
    fn = load(path)["amp_forward"]
    problems = []
    x, y = torch.randn(5, 1, 4, 4), torch.randint(0, 3, (5,))
    for dtype, other in [(torch.bfloat16, torch.float16), (torch.float16, torch.bfloat16)]:
        model = mlp()
        before = [p.detach().clone() for p in model.parameters()]
        with cpu_autocast_default(other):
            logits, loss = fn(model, x, y, F.cross_entropy, "cpu", dtype)
        if logits.dtype != dtype or loss.dtype != torch.float32 or not loss.requires_grad:
            problems.append(f"{dtype}: logits {logits.dtype}, loss {loss.dtype}")
        params = list(model.parameters())
        if any(p.dtype != torch.float32 or not torch.equal(p, b) for p, b in zip(params, before, strict=True)):
            problems.append(f"{dtype}: parameters modified")
        if torch.is_autocast_enabled("cpu"):
            problems.append("autocast still on")
    return problems


class Reordered(nn.Module):
    def __init__(self):
        super().__init__()
        self.first, self.second, self.unused = nn.Linear(4, 4), nn.ReLU(), nn.Linear(2, 2)

    def forward(self, x):
        return self.first(self.second(x))


class Raises(nn.Module):
    def __init__(self):
        super().__init__()
        self.inner = nn.Linear(4, 4)

    def forward(self, x):
        self.inner(x)
        raise ValueError("boom")


@probe("04_autocast", "output_dtypes")
def _(path):
    fn = load(path)["output_dtypes"]
    problems = []
    got = fn(mlp(), torch.randn(2, 1, 4, 4), "cpu", torch.bfloat16)
    if got != {"0": torch.float32, "1": torch.bfloat16, "2": torch.bfloat16, "3": torch.bfloat16}:
        problems.append(f"MLP: {got}")
    got = fn(Reordered(), torch.randn(2, 4), "cpu", torch.bfloat16)
    if list(got) != ["second", "first"]:
        problems.append(f"order / unused leaves: {list(got)}")
    if fn(nn.Linear(4, 4), torch.randn(2, 4), "cpu", torch.bfloat16) != {"": torch.bfloat16}:
        problems.append("a model that is itself a leaf")
    model = Raises()
    model.inner.register_forward_hook(lambda *args: None)
    _, error = attempt(fn, model, torch.randn(2, 4), "cpu", torch.bfloat16)
    if not isinstance(error, ValueError):
        problems.append(f"exception not propagated: {error!r}")
    if len(model.inner._forward_hooks) != 1:
        problems.append(f"{len(model.inner._forward_hooks)} hooks left where the model had 1")
    if torch.is_autocast_enabled("cpu"):
        problems.append("autocast still on")
    return problems


@probe("04_autocast", "CUDA_AUTOCAST_ANSWERS")
def _(path):
    got = load(path)["CUDA_AUTOCAST_ANSWERS"]
    # this session's reading of the CUDA op lists: matmul float16; softmax, sum and the loss float32; h + a promotes
    want = {"matmul": torch.float16, "softmax": torch.float32, "cross_entropy": torch.float32,
            "sum": torch.float32, "add": torch.float32}
    if not isinstance(got, dict) or got.keys() != want.keys():
        return [f"keys {got}"]
    return [f"{k}: {got[k]!r}" for k in want if not isinstance(got[k], torch.dtype) or got[k] != want[k]]


# ------------------------------------------------------------- 05_gradscaler
@probe("05_gradscaler", "underflow_fraction")
def _(path):
    fn = load(path)["underflow_fraction"]
    sub = 2.0**-24
    cases = [(torch.tensor([1e-8, -1e-8, 0.0, 1.0, 1e-6]), torch.float16),
             (torch.tensor([sub * 0.6, sub * 0.4, 3e-5, sub]), torch.float16),
             (torch.zeros(2, 3), torch.float16), (torch.tensor([]), torch.float16),
             (torch.tensor([[1e-30], [1.0]], dtype=torch.float64), torch.float16),
             (torch.tensor([1e-39, 1e-46, 1.0]), torch.bfloat16), (torch.tensor([1e-8, 1.0], dtype=torch.bfloat16),
                                                                  torch.float16)]
    problems = []
    for t, dtype in cases:
        nonzero = t[t != 0]
        want = 0.0 if nonzero.numel() == 0 else (nonzero.to(dtype) == 0).sum().item() / nonzero.numel()
        got, error = attempt(fn, t, dtype)
        if error or type(got) is not float or not math.isclose(got, want):
            problems.append(f"{t.tolist()} -> {dtype}: {got!r} != {want}")
    return problems


@probe("05_gradscaler", "scaled_train_step")
def _(path):
    fn = load(path)["scaled_train_step"]
    problems = []

    def reference(model, x, y, opt, scaler, dtype, max_norm):
        opt.zero_grad()
        with torch.autocast("cpu", dtype=dtype):
            loss = F.cross_entropy(model(x), y)
        scaler.scale(loss).backward()
        if max_norm is not None:
            scaler.unscale_(opt)
            nn.utils.clip_grad_norm_(model.parameters(), max_norm)
        scaler.step(opt)
        scaler.update()
        return loss.item()

    x, y = torch.randn(6, 1, 4, 4), torch.randint(0, 3, (6,))
    for dtype, max_norm in [(torch.float16, None), (torch.bfloat16, 0.01), (torch.float16, 0.05)]:
        runs = []
        for answer in (fn, None):
            model = mlp()
            model(x).sum().backward()  # leftover gradients
            opt = torch.optim.SGD(model.parameters(), lr=0.5)
            scaler = torch.amp.GradScaler("cpu", init_scale=1024.0)
            seen = []
            model[1].register_forward_hook(lambda m, i, o, seen=seen: seen.append(o.dtype))
            real_clip = nn.utils.clip_grad_norm_
            clips = []
            with cpu_autocast_default(torch.bfloat16 if dtype == torch.float16 else torch.float16), \
                    mock.patch("torch.nn.utils.clip_grad_norm_",
                               lambda *a, clips=clips, real_clip=real_clip, **k: clips.append(1) or real_clip(*a, **k)):
                if answer is None:
                    loss = reference(model, x, y, opt, scaler, dtype, max_norm)
                else:
                    loss = answer(model, x, y, opt, scaler, F.cross_entropy, "cpu", dtype, max_norm)
            runs.append((loss, [p.detach().clone() for p in model.parameters()], seen, len(clips), model))
        (loss, params, seen, clips, model), (ref_loss, ref_params, *_rest) = runs
        if type(loss) is not float or not math.isclose(loss, ref_loss, rel_tol=1e-6):
            problems.append(f"{dtype} max_norm={max_norm}: loss {loss!r} != {ref_loss}")
        if any(not torch.allclose(p, r, atol=1e-6) for p, r in zip(params, ref_params, strict=True)):
            problems.append(f"{dtype} max_norm={max_norm}: parameters differ from the reference step")
        if seen != [dtype] or any(p.dtype != torch.float32 for p in model.parameters()):
            problems.append(f"{dtype}: autocast ran in {seen}")
        if clips != (max_norm is not None):
            problems.append(f"max_norm={max_norm}: clip_grad_norm_ called {clips} times")
    return problems


@probe("05_gradscaler", "next_scale")
def _(path):
    fn = load(path)["next_scale"]
    problems = []
    for interval in (1, 3):
        random.seed(interval)
        scale_t = torch.full((1,), 1000.0)
        tracker_t = torch.zeros(1, dtype=torch.int32)
        scale, tracker = 1000, 0
        for step in range(80):
            inf = random.random() < 0.2
            torch._amp_update_scale_(scale_t, tracker_t, torch.tensor([float(inf)]), 2.0, 0.5, interval)
            scale, tracker = fn(scale, tracker, inf, 2.0, 0.5, interval)
            if type(scale) is not float or type(tracker) is not int:
                problems.append(f"types {type(scale).__name__}, {type(tracker).__name__}")
                break
            if not math.isclose(scale, scale_t.item(), rel_tol=1e-5) or tracker != tracker_t.item():
                problems.append(f"interval {interval}, step {step}: {(scale, tracker)} != "
                                f"{(scale_t.item(), tracker_t.item())}")
                break
    return problems


# ------------------------------------------------------------- 06_bf16
def bits_reference(x, dtype):
    exp_bits, man_bits = {torch.float32: (8, 23), torch.float16: (5, 10), torch.bfloat16: (8, 7)}[dtype]
    width = 1 + exp_bits + man_bits
    value = torch.as_tensor(x).to(torch.float32).to(dtype) if not torch.is_tensor(x) else x.to(dtype)
    pattern = int(value.view(torch.int32 if width == 32 else torch.int16).item()) % (1 << width)
    return pattern >> (width - 1), (pattern >> man_bits) & ((1 << exp_bits) - 1), pattern & ((1 << man_bits) - 1)


@probe("06_bf16", "bit_fields")
def _(path):
    fn = load(path)["bit_fields"]
    cases = [(-1.5, torch.float16), (1.0 + 2**-8 + 2**-10, torch.bfloat16), (-0.0, torch.float32),
             (-1e-9, torch.float16), (torch.tensor(0.1), torch.float16),
             (torch.tensor(1 / 3, dtype=torch.float64), torch.bfloat16), (torch.tensor(3.0, dtype=torch.bfloat16),
                                                                          torch.float32),
             (struct.unpack("<f", struct.pack("<f", 1 + 2**-9 + 2**-20))[0], torch.bfloat16)]
    problems = []
    for x, dtype in cases:
        got, error = attempt(fn, x, dtype)
        want = bits_reference(x, dtype)
        if error or got != want or any(type(v) is not int for v in got):
            problems.append(f"{x!r} as {dtype}: {got} != {want}")
    return problems


@probe("06_bf16", "roundtrip_rel_error")
def _(path):
    fn = load(path)["roundtrip_rel_error"]
    problems = []
    x = torch.tensor([1 + 2**-30, 1e-10, 1e6, 3.3, -2.5e-3], dtype=torch.float64)
    for t, dtype in [(x, torch.float16), (x, torch.bfloat16), (x.float(), torch.float16)]:
        got = fn(t, dtype)
        want = ((t.double() - t.to(dtype).double()).abs() / t.double().abs())
        if got.shape != t.shape or got.dtype not in (torch.float64, t.dtype):
            problems.append(f"{t.dtype}: result {got.dtype} {tuple(got.shape)}")
        elif not torch.allclose(got.double(), want, rtol=1e-6, atol=0, equal_nan=True):
            problems.append(f"{t.dtype} -> {dtype}: {got.tolist()} != {want.tolist()}")
    return problems


@probe("06_bf16", "choose_amp_dtype")
def _(path):
    fn = load(path)["choose_amp_dtype"]
    problems = []
    for cap in [(7, 5), (8, 0), (9, 0)]:
        gpu = (torch.bfloat16, False) if cap >= (8, 0) else (torch.float16, True)
        for device, want in [("cpu", (torch.bfloat16, False)), (torch.device("cpu"), (torch.bfloat16, False)),
                             ("cuda", gpu), ("cuda:0", gpu), (torch.device("cuda"), gpu)]:
            with mock.patch("torch.cuda.is_available", return_value=True), \
                    mock.patch("torch.cuda.get_device_capability", return_value=cap), \
                    mock.patch("torch.cuda.is_bf16_supported", return_value=True):
                got, error = attempt(fn, device)
            if error or got != want or type(got[1]) is not bool:
                problems.append(f"capability {cap}, {device!r}: {got} {error or ''}")
    return problems


@probe("06_bf16", "bf16_train_step")
def _(path):
    fn = load(path)["bf16_train_step"]
    x, y = torch.randn(6, 1, 4, 4), torch.randint(0, 3, (6,))
    results = []
    for answer in (fn, None):
        model = mlp()
        model(x).sum().backward()
        opt = torch.optim.SGD(model.parameters(), lr=0.5)
        seen = []
        model[1].register_forward_hook(lambda m, i, o, seen=seen: seen.append(o.dtype))
        with cpu_autocast_default(torch.float16), \
                mock.patch("torch.amp.GradScaler", side_effect=AssertionError("a GradScaler was made")):
            if answer is None:
                opt.zero_grad()
                with torch.autocast("cpu", dtype=torch.bfloat16):
                    loss = F.cross_entropy(model(x), y)
                loss.backward()
                opt.step()
                got, error = loss.item(), None
            else:
                got, error = attempt(answer, model, x, y, opt, F.cross_entropy, "cpu")
        results.append((got, error, [p.detach().clone() for p in model.parameters()], seen, model))
    (got, error, params, seen, model), (want, _, ref_params, *_rest) = results
    if error:
        return [f"raised {error!r}"]
    problems = []
    if type(got) is not float or not math.isclose(got, want, rel_tol=1e-6):
        problems.append(f"returned {got!r}, expected {want}")
    if any(not torch.allclose(p, r, atol=1e-6) for p, r in zip(params, ref_params, strict=True)):
        problems.append("parameters differ from the reference step")
    if seen != [torch.bfloat16] or any(p.dtype != torch.float32 for p in model.parameters()):
        problems.append(f"autocast ran in {seen}")
    return problems


# ------------------------------------------------------------- 07_compile
class ReferenceCounter:
    def __init__(self):
        self.graphs = []

    def __call__(self, gm, example_inputs):
        self.graphs.append(gm)
        return gm.forward


def mnist_mlp(device="cpu"):
    torch.manual_seed(0)
    return nn.Sequential(nn.Flatten(), nn.Linear(784, 16), nn.ReLU(), nn.Linear(16, 10)).to(device)


def twice(x):
    return x * 2


@probe("07_compile", "CompileCounter")
def _(path):
    counter_class = load(path)["CompileCounter"]
    problems = []
    first, second = counter_class(), counter_class()
    if not isinstance(first.graphs, list) or first.graphs != [] or first.graphs is second.graphs:
        problems.append("graphs is not a new, empty list of its own")
    torch._dynamo.reset()
    compiled = torch.compile(twice, backend=first, dynamic=False)
    outs = [compiled(torch.ones(n)) for n in (3, 5)]  # two shapes, two graphs with the same code
    if len(first.graphs) != 2 or second.graphs:
        problems.append(f"{len(first.graphs)} graphs recorded for 2 compilations, {len(second.graphs)} in another")
    if not all(isinstance(g, torch.fx.GraphModule) for g in first.graphs):
        problems.append(f"recorded {[type(g).__name__ for g in first.graphs]}")
    if any(not torch.equal(o, torch.full_like(o, 2.0)) for o in outs):
        problems.append("the graph does not run unchanged")
    return problems


@probe("07_compile", "count_compilations")
def _(path):
    fn = load(path, CompileCounter=ReferenceCounter)["count_compilations"]
    problems = []

    def reference(model, sizes, dynamic):
        torch._dynamo.reset()
        counter = ReferenceCounter()
        compiled = torch.compile(model, backend=counter, dynamic=dynamic)
        for b in sizes:
            compiled(torch.randn(b, 1, 28, 28, device=next(model.parameters()).device))
        return len(counter.graphs)

    for device in ("cpu", "meta"):
        for sizes in ([4, 8, 4, 16, 32, 8], [4, 8, 1]):
            for dynamic in (None, False, True):
                model = mnist_mlp(device)
                want = reference(model, sizes, dynamic)
                for _ in range(2):  # the same question twice
                    got, error = attempt(fn, model, sizes, dynamic)
                    if error or type(got) is not int or got != want:
                        problems.append(f"{device} {sizes} dynamic={dynamic}: {got!r} != {want} "
                                        f"{type(error).__name__ if error else ''}")
                        break
    return problems[:3]


@probe("07_compile", "first_and_steady_ms")
def _(path):
    problems = []
    for repeats in (4, 5):
        dev = FakeDevice([40.0, 1.0, 9.0, 2.0, 7.0, 3.0])
        ns = load(path, synchronize=dev.synchronize)
        with dev.clock():
            got = ns["first_and_steady_ms"](dev.run, None, "cpu", repeats=repeats)
        call = [dev.HOST_MS + dev.durations[i % 6] + dev.SYNC_MS for i in range(1 + repeats)]
        import statistics
        want = (call[0], statistics.median(call[1:]))
        if dev.log.count("F") != 1 + repeats:
            problems.append(f"{dev.log.count('F')} calls for repeats={repeats}")
        if any(type(v) is not float for v in got) or not all(map(math.isclose, got, want)):
            problems.append(f"repeats={repeats}: {got} != {want}")
    return problems


# ------------------------------------------------------------- 08_throughput
def batches(sizes):
    for s in sizes:
        yield torch.zeros(s, 2), torch.zeros(s)


@probe("08_throughput", "throughput")
def _(path):
    problems = []
    for sizes, warmup in [([4, 4, 4, 4, 4, 2], 2), ([3, 5], 0), ([4, 4, 4], 2)]:
        dev = FakeDevice([5.0, 1.0, 9.0, 2.0, 7.0, 3.0])
        ns = load(path, synchronize=dev.synchronize)
        with dev.clock():
            step = lambda x, y, dev=dev: dev.run()  # noqa: E731
            got, error = attempt(ns["throughput"], step, batches(sizes), "cpu", warmup=warmup)
        # the reference on the same fake: run the warm-up, synchronize, clock, the rest, synchronize, clock
        ref = FakeDevice(dev.durations)
        for _ in sizes[:warmup]:
            ref.run()
        ref.synchronize()
        start = ref.now
        for _ in sizes[warmup:]:
            ref.run()
        ref.synchronize()
        want = sum(sizes[warmup:]) / ((ref.now - start) / 1e3)
        if error or type(got) is not float or not math.isclose(got, want, rel_tol=1e-9):
            problems.append(f"{sizes} warmup={warmup}: {got!r} != {want} {error or ''}")
        if dev.log.count("F") != len(sizes):
            problems.append(f"{dev.log.count('F')} steps for {len(sizes)} batches")
    for sizes in ([4, 4], [4], []):
        dev = FakeDevice([1.0])
        ns = load(path, synchronize=dev.synchronize)
        with dev.clock():
            got, error = attempt(ns["throughput"], lambda x, y, dev=dev: dev.run(), batches(sizes), "cpu", warmup=2)
        if not isinstance(error, ValueError):
            problems.append(f"{len(sizes)} batches, warmup=2: {got!r} {error!r}")
    return problems


@probe("08_throughput", "speedup_table")
def _(path):
    fn = load(path)["speedup_table"]
    problems = []
    got = fn({"b": 100, "a": 300, "c": 50}, "b")
    want = [("b", 100.0, 1.0), ("a", 300.0, 3.0), ("c", 50.0, 0.5)]
    if got != want or any(type(v) is not float for row in got for v in row[1:]):
        problems.append(f"{got} != {want}")
    _, error = attempt(fn, {"a": 1.0}, "zz")
    if not isinstance(error, KeyError):
        problems.append(f"missing baseline: {error!r}")
    return problems


@probe("08_throughput", "gpu_resident_batches")
def _(path):
    import inspect
    fn = load(path)["gpu_resident_batches"]
    problems = []
    if not inspect.isgeneratorfunction(fn):
        problems.append("not a generator function")
    x, y = torch.arange(16.0).reshape(8, 2), torch.arange(8)
    kept = x.clone(), y.clone()
    draws = []
    real_randperm = torch.randperm

    def randperm(*args, **kwargs):
        draws.append(kwargs.get("device"))
        return real_randperm(*args, **kwargs)
    with mock.patch("torch.randperm", randperm):
        first = [yb.tolist() for _, yb in fn(x, y, 4, torch.Generator().manual_seed(3))]
        again = [yb.tolist() for _, yb in fn(x, y, 4, torch.Generator().manual_seed(3))]
    if first != again:
        problems.append("the same generator state gave other batches")
    if draws != [x.device, x.device]:
        problems.append(f"randperm devices {draws}")
    for n_batch, drop_last, want in [(4, True, [4, 4]), (3, True, [3, 3]), (3, False, [3, 3, 2])]:
        got = [len(yb) for _, yb in fn(x, y, n_batch, None, drop_last)]
        if got != want:
            problems.append(f"batch_size={n_batch} drop_last={drop_last}: sizes {got}")
    pairs = [(xb[:, 0] / 2).long().tolist() == yb.tolist() for xb, yb in fn(x, y, 3, None, False)]
    if not all(pairs) or not (torch.equal(x, kept[0]) and torch.equal(y, kept[1])):
        problems.append("x and y not indexed alike, or changed")
    sliced = []
    real_getitem, real_select = torch.Tensor.__getitem__, torch.Tensor.index_select

    def getitem(self, idx):
        if self is x:
            sliced.append(1)
        return real_getitem(self, idx)

    def select(self, dim, idx):
        if self is x:
            sliced.append(1)
        return real_select(self, dim, idx)
    with mock.patch.object(torch.Tensor, "__getitem__", getitem), \
            mock.patch.object(torch.Tensor, "index_select", select):
        next(fn(x, y, 2))
    if len(sliced) != 1:
        problems.append(f"{len(sliced)} batches of x sliced to give the first one")
    return problems


def main(prefixes):
    logging.getLogger("torch._dynamo").setLevel(logging.ERROR)
    warnings.filterwarnings("ignore")
    failures = 0
    for (notebook, cell), check in PROBES.items():
        if prefixes and not any(notebook.startswith(p) for p in prefixes):
            continue
        for path in sorted((HERE / notebook / cell).glob("*.py")):
            with open(os.devnull, "w") as quiet, contextlib.redirect_stdout(quiet):
                problems, error = attempt(check, path)
            problems = [f"probe raised {error!r}"] if error else problems
            kind = path.name.split("_", 1)[0]
            ok = (not problems) if kind == "correct" else bool(problems)
            failures += not ok
            verdict = "ok" if ok else ("FAILS A PROBE" if kind == "correct" else "NOT CAUGHT")
            print(f"{verdict:13} {notebook}/{cell}/{path.name}" + (f"  [{problems[0]}]" if problems else ""))
    print(f"{failures} unexpected result(s)")
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
