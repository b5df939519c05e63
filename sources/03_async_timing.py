# ---
# jupyter:
#   jupytext:
#     text_representation:
#       extension: .py
#       format_name: percent
#       format_version: '1.3'
#       jupytext_version: 1.19.6
#   kernelspec:
#     display_name: Python 3
#     language: python
#     name: python3
# ---

# %% [markdown] id="title"
# `y = a @ b` on a GPU does not compute anything before it returns: it puts a kernel in the GPU's queue and hands
# control back to Python at once. That is what keeps a GPU busy (Python queues the next operations while the GPU works),
# and it is also why a stopwatch around GPU code so often reads nonsense.
#
# **You will learn to**
# - see the timing illusion: a naive `time.time()` around queued work measures the queueing, not the work;
# - write `synchronize(device)` and a `time_ms` that synchronizes at both ends, after warm-up calls;
# - report a median and a spread, not one number;
# - time with CUDA events (`time_ms_cuda_events`);
# - avoid reading a device-to-host `non_blocking` copy before it has arrived.
#
# **Time:** about 30 minutes on a Colab T4, about 30 minutes on a CPU. Without a GPU the asynchronous device is
# *simulated*: a worker thread that runs queued "kernels" of chosen durations, labelled as such wherever it is used.

# %% nbgrader={"grade": false, "grade_id": "setup", "locked": true, "schema_version": 3, "solution": false}
# The shared set-up: `python -m graders build` writes its install part above these lines.
from gpucourse.bootstrap import setup
DEVICE, QUICK = setup()
import torch
from gpucourse.checks import needs  # a demonstration that runs your answers waits until they are answered


# %% [markdown] id="recap"
# ## Recap
#
# - **Notebook 01**: operations run where their inputs live; `to_device` moves batches.
# - **Notebook 02**: transfers cost time, and `non_blocking=True` lets a copy overlap with other work. Every timing
#   there synchronized before reading the clock. This notebook shows why it had to.

# %% [markdown] id="s1"
# ## 1. The illusion
#
# A CUDA device executes work from a queue (a *stream*). The host (your Python process) appends to the queue and carries
# on; the device works through the queue on its own. A stopwatch on the host therefore measures how long it took to
# **append**, unless the host waits for the queue to drain first: `torch.cuda.synchronize()`.
#
# Without a GPU we use `gpucourse.simdevice.SimDevice`, a **simulated** asynchronous device: `sim.launch(ms)` queues a
# "kernel" that keeps a worker thread busy for `ms` milliseconds and returns at once, and `sim.synchronize()` waits
# until the queue is empty, exactly like the real pair. On a GPU the cell also times a real matrix product.

# %% id="s1-sim"
import time
from gpucourse.readings import read_timing_trap   # the sentence that reads a timing, chosen from the figures
from gpucourse.simdevice import SimDevice

gpu_sim = SimDevice()
work_ms = 100.0 if QUICK else 200.0

start = time.time()
kernel = gpu_sim.launch(work_ms)            # like `y = a @ b` on a GPU: queued, returns at once
naive_ms = (time.time() - start) * 1e3
gpu_sim.synchronize()                       # let it finish before the next measurement

gpu_sim.synchronize()                       # 1. nothing else may be queued when the clock starts
start = time.time()
kernel = gpu_sim.launch(work_ms)
gpu_sim.synchronize()                       # 2. wait for the work before the clock stops
synced_ms = (time.time() - start) * 1e3
true_ms = kernel.duration_ms            # what the simulated device really spent

print(f"SIMULATED device, {work_ms:.0f} ms of queued work:")
print(f"  naive time.time():       {naive_ms:8.3f} ms  ({naive_ms / true_ms:.2%} of the true duration)")
print(f"  synchronized time.time(): {synced_ms:7.3f} ms  ({synced_ms / true_ms:.2%} of the true duration)")
print(f"  true duration:            {true_ms:7.3f} ms")
print(" ", read_timing_trap(naive_ms, synced_ms))

# %% id="s1-gpu"
gpu_result = None
if DEVICE.type == "cuda":
    n = 4096
    a, b = torch.randn(n, n, device=DEVICE), torch.randn(n, n, device=DEVICE)
    matmuls = 10
    def step():
        for _ in range(matmuls):
            c = a @ b
        return c
    step()    # warm-up: cuBLAS set-up happens on the first call
    torch.cuda.synchronize()

    start = time.time()
    step()
    naive = (time.time() - start) * 1e3
    torch.cuda.synchronize()

    torch.cuda.synchronize()
    start = time.time()
    step()
    torch.cuda.synchronize()
    synced = (time.time() - start) * 1e3
    gpu_result = (naive, synced)
    tflops = matmuls * 2 * n**3 / (synced / 1e3) / 1e12
    print(f"REAL GPU ({torch.cuda.get_device_name()}), {matmuls} matmuls of {n}x{n} float32:")
    print(f"  naive {naive:.3f} ms, synchronized {synced:.3f} ms ({tflops:.1f} TFLOPS)")
    print(" ", read_timing_trap(naive, synced))
    print(f"RESULT matmul_naive_ms = {naive:.3f} ms")
    print(f"RESULT matmul_synced_ms = {synced:.3f} ms")
else:
    print("No CUDA GPU here: the figure shows the simulated device only.")

# %% id="s1-plot"
import matplotlib.pyplot as plt

panels = [("simulated device", naive_ms, synced_ms, true_ms)]
if gpu_result is not None:
    panels.append(("real GPU: 10 matmuls", gpu_result[0], gpu_result[1], None))
fig, axes = plt.subplots(1, len(panels), figsize=(4.5 * len(panels), 3), squeeze=False)
for ax, (title, naive, synced, true) in zip(axes[0], panels):
    names = ["naive", "synchronized"] + (["true (device)"] if true is not None else [])
    values = [naive, synced] + ([true] if true is not None else [])
    bars = ax.bar(names, values, color=["tab:red", "tab:green", "tab:gray"][:len(values)])
    ax.bar_label(bars, fmt="%.2f ms", fontsize=8)
    ax.set(ylabel="measured ms", title=title)
fig.suptitle("A stopwatch without a synchronize measures the queueing")
fig.tight_layout()
plt.show()


# %% [markdown] id="myth-time"
# > **Myth vs. current PyTorch:** *"`time.time()` around a training step measures only the time to queue the
# > work."* Half true. It measures **host** time: the queueing, plus any point where the host waits for the device
# > inside the step. `loss.item()`, `print(loss)`, `.cpu()`, `.tolist()` and a blocking copy all synchronize; so does
# > `GradScaler.step` (it reads a flag from the GPU). Once warmed up, a step that ends with `loss.item()` timed naively
# > includes most of the GPU work, and a step without one does not. Either way the number depends on accidents; warm
# > up, then synchronize at both ends (or use CUDA events, or `torch.utils.benchmark.Timer`, which synchronizes for
# > you). The cell below shows both on the simulated device and, on a GPU, for real, each with the sentence that reads
# > its figures. (Without the warm-up, the real GPU's first naive call can come out *slower* than the synchronized one:
# > it pays one-off costs, such as loading a kernel's code the first time it runs. That is the other reason to warm
# > up.)

# %% id="myth-time-demo"
def host_ms(fn):
    start = time.perf_counter()
    fn()
    return (time.perf_counter() - start) * 1e3

gpu_sim.synchronize()
queued = host_ms(lambda: gpu_sim.launch(50.0, fn=lambda: 0.123))
gpu_sim.synchronize()
with_item = host_ms(lambda: gpu_sim.launch(50.0, fn=lambda: 0.123).result())  # .result() waits, like loss.item()
print(f"SIMULATED: 50 ms of work timed naively: {queued:.3f} ms; the same with an implicit sync: {with_item:.1f} ms")
print(" ", read_timing_trap(queued, with_item))
if DEVICE.type == "cuda":
    x = torch.randn(4096, 4096, device=DEVICE)
    (x @ x).sum().item()          # warm-up: the first matmul and the first sum of a session pay one-off costs
    torch.cuda.synchronize()
    queued = host_ms(lambda: (x @ x).sum())
    torch.cuda.synchronize()
    with_item = host_ms(lambda: (x @ x).sum().item())
    print(f"REAL GPU, warmed up: matmul + sum timed naively: {queued:.3f} ms; the same ending in .item(): "
          f"{with_item:.3f} ms")
    print(" ", read_timing_trap(queued, with_item))


# %% [markdown] id="ex1"
# ## Exercise 1: `synchronize` (2 points)
#
# Write `synchronize(device)` that waits until all queued work on `device` has finished:
#
# - a CUDA device (`"cuda"`, `"cuda:0"`, `torch.device("cuda")`, ...): `torch.cuda.synchronize()`;
# - Apple's MPS: `torch.mps.synchronize()`;
# - the CPU: nothing to wait for (CPU operations have finished when they return), so do nothing, even on a machine
#   that also has a GPU; in particular, never touch `torch.cuda`, which fails on a machine without a GPU.
#
# `device` may be a string or a `torch.device`: `torch.device(device).type` tells you which kind it is.

# %% gpucourse={"save": "timing"} nbgrader={"grade": false, "grade_id": "synchronize", "locked": false, "schema_version": 3, "solution": true}
def synchronize(device) -> None:
    """Wait for all queued work on device: torch.cuda.synchronize() for a CUDA device in any spelling
    ("cuda", "cuda:0", torch.device("cuda")), torch.mps.synchronize() for MPS, and nothing at all for
    the CPU, even on a machine that has a GPU (decide by the device's type, not by the machine).
    device is a str or a torch.device."""
    ### BEGIN SOLUTION
    kind = torch.device(device).type
    if kind == "cuda":
        torch.cuda.synchronize(device)
    elif kind == "mps":
        torch.mps.synchronize()
    ### END SOLUTION


# %% nbgrader={"grade": true, "grade_id": "test_synchronize", "locked": true, "points": 2, "schema_version": 3, "solution": false}
import gpucourse.timing
from gpucourse.checks import Check
from gpucourse.origin import borrowed
from gpucourse.simdevice import simulated_accelerator


def _synchronize_either_type(check, device):
    """synchronize(device), with a hint naming the docstring's sentence where a str or a torch.device is refused
    (a slip such as device.type on a str raises AttributeError)."""
    try:
        synchronize(device)
    except (AttributeError, TypeError) as error:
        check.that(False, f"device is a str or a torch.device: synchronize({device!r}) raised "
                          f"{type(error).__name__}: {error}. torch.device(device).type reads both.")


with Check("synchronize") as check:
    where = borrowed(synchronize, answers=[gpucourse.timing.synchronize])
    check.that(where is None, f"synchronize comes from {where}: write your own here.")
    with simulated_accelerator("cuda") as sim:    # torch.cuda is the simulated device here
        sim.launch(30)
        _synchronize_either_type(check, "cuda")
        check.that(sim.pending == 0, "synchronize('cuda') returned before the queued work finished: wait for all "
                                     "queued work on device, with torch.cuda.synchronize() for a CUDA device.")
    for spelling in ("cuda:0", torch.device("cuda")):
        with simulated_accelerator("cuda") as sim:
            sim.launch(30)
            _synchronize_either_type(check, spelling)
            check.that(sim.pending == 0, f"synchronize({spelling!r}) did not wait: "
                                         "a CUDA device in any spelling is a CUDA device. "
                                         "Decide by the device's type, not by the string.")
    with simulated_accelerator("mps") as sim:     # a Mac: torch.mps is the simulated device here
        sim.launch(30)
        check.call(synchronize, "mps")
        check.that(sim.pending == 0, "synchronize('mps') returned before Apple's MPS queue finished: "
                                     "which torch.mps function waits for it?")
    with simulated_accelerator(None) as sim:      # a machine without any accelerator
        try:
            synchronize("cpu")
            ok = True
        except RuntimeError:
            ok = False
        check.that(ok, "On the CPU there is nothing to wait for: synchronize('cpu') must not call torch.cuda "
                       "(this machine may have no GPU at all).")
    with simulated_accelerator("cuda") as sim:    # the CPU of a machine that also has a GPU
        sim.launch(30)
        synchronize("cpu")
        check.that(not sim.sync_calls, "synchronize('cpu') waited for the GPU: "
                                       "nothing at all for the CPU, even on a machine that has a GPU "
                                       "(decide by the device's type, not by the machine).")
    # the whole contract, over its domain: every machine (no accelerator, a CUDA GPU, a Mac), every spelling of its
    # accelerator and of the CPU (a str or a torch.device, with or without an index), with work queued or none
    from hypothesis import strategies as st
    from gpucourse.domains import machines_and_devices

    def waits_by_type(c):
        """synchronize(device) on that machine, with that work queued: it waits for all of it on an accelerator (by
        the accelerator's synchronize), and does nothing at all (not even fail) for the CPU."""
        machine, device, queued = c
        with simulated_accelerator(machine) as sim:
            for ms in queued:
                sim.launch(ms)
            synchronize(device)
            if torch.device(device).type == "cpu":
                return not sim.sync_calls
            return sim.pending == 0 and bool(sim.sync_calls)

    calls = st.sampled_from(machines_and_devices()).flatmap(
        lambda md: st.tuples(st.just(md[0]), st.just(md[1]), st.lists(st.integers(0, 10).map(float), max_size=2)))
    check.forall(calls, waits_by_type,
                 "Decide by the device's type, in any spelling (a str or a torch.device, with or without an index: "
                 "'cuda:1', 'mps:0', 'cpu:0'): torch.cuda.synchronize() for CUDA, torch.mps.synchronize() for MPS, "
                 "and nothing at all for the CPU, even on a machine that has a GPU. The input shown is (the "
                 "machine's accelerator, device, ms of work queued on it)",
                 examples=10, cases=[(machine, device, [8.0]) for machine, device in machines_and_devices()])

### BEGIN HIDDEN TESTS
import random as _random
import gpucourse.timing as _timing
from gpucourse.checks import requirement as _requirement
from gpucourse.origin import borrowed as _borrowed
assert _borrowed(synchronize, answers=[_timing.synchronize]) is None, "synchronize must be written in this notebook"
_rng = _random.Random()
for _device in ["cuda", "cuda:0", torch.device("cuda"), torch.device("cuda", 0)]:
    with _requirement(f"synchronize({_device!r}) waits for the CUDA queue"), simulated_accelerator("cuda") as _sim:
        for _ in range(_rng.randint(1, 3)):
            _sim.launch(_rng.uniform(10, 25))
        synchronize(_device)
        assert _sim.pending == 0, "work was still queued when it returned"
        assert _sim.sync_calls, "no CUDA synchronize"
for _device in ["mps", torch.device("mps")]:
    with _requirement(f"synchronize({_device!r}) waits for the MPS queue, without torch.cuda"), \
            simulated_accelerator("mps") as _sim:
        _sim.launch(_rng.uniform(10, 25))
        synchronize(_device)
        assert _sim.pending == 0, "work was still queued when it returned"
for _device in ["cpu", torch.device("cpu")]:
    with _requirement(f"synchronize({_device!r}) does nothing, on a machine with or without an accelerator"):
        with simulated_accelerator(None) as _sim:
            synchronize(_device)                  # must not raise without an accelerator
        with simulated_accelerator("cuda") as _sim:
            _sim.launch(10)
            synchronize(_device)                  # nothing on the CPU, even when a GPU exists
            assert not _sim.sync_calls, "it synchronized a CUDA GPU"
        with simulated_accelerator("mps") as _sim:
            synchronize(_device)
            assert not _sim.sync_calls, "it synchronized MPS"
from gpucourse.contract import for_all as _for_all
with _requirement("synchronize decides by the device's type in any spelling, a str or a torch.device with or "
                  "without an index: it waits for a CUDA or MPS device's queued work, and does nothing at all for "
                  "the CPU on any machine"):
    _for_all(calls, waits_by_type, "waits for a CUDA or MPS device, nothing for the CPU", examples=60,
             cases=[(_machine, _device, _queued) for _machine, _device in machines_and_devices()
                    for _queued in ([], [4.0, 9.0])])
### END HIDDEN TESTS

# %% [markdown] fixtures="synchronize"
# ### Mistakes and correct alternatives for `synchronize` (author-only: in no generated notebook)
#
# **mistake `always-cuda`**, sample, loses `test_synchronize`: calls CUDA whatever the device: crashes without a GPU
# ```diff
# @@
# -    kind = torch.device(device).type
# -    if kind == "cuda":
# -        torch.cuda.synchronize(device)
# -    elif kind == "mps":
# -        torch.mps.synchronize()
# +    torch.cuda.synchronize()
# ```
#
# **mistake `no-mps`**, loses `test_synchronize`: forgets Apple's MPS
# ```diff
# @@
# -    kind = torch.device(device).type
# -    if kind == "cuda":
# -        torch.cuda.synchronize(device)
# -    elif kind == "mps":
# -        torch.mps.synchronize()
# +    if torch.device(device).type == "cuda":
# +        torch.cuda.synchronize()
# ```
#
# **mistake `string-compare`**, loses `test_synchronize`: compares with a string: misses torch.device('cuda') and 'cuda:0'
# ```diff
# @@
# -    kind = torch.device(device).type
# -    if kind == "cuda":
# -        torch.cuda.synchronize(device)
# -    elif kind == "mps":
# +    if device == "cuda":
# +        torch.cuda.synchronize()
# +    elif device == "mps":
# ```
#
# **mistake `if-machine-has-cuda`**, loses `test_synchronize`: looks at the machine, not at the device
# ```diff
# @@
# -    kind = torch.device(device).type
# -    if kind == "cuda":
# -        torch.cuda.synchronize(device)
# -    elif kind == "mps":
# -        torch.mps.synchronize()
# +    if torch.cuda.is_available():
# +        torch.cuda.synchronize()
# ```
#
# **mistake `does-nothing`**, loses `test_synchronize`: never waits
# ```diff
# @@
# -    kind = torch.device(device).type
# -    if kind == "cuda":
# -        torch.cuda.synchronize(device)
# -    elif kind == "mps":
# -        torch.mps.synchronize()
# +    pass
# ```
#
# **mistake `accelerator-whatever-device`**, loses `test_synchronize`: torch.accelerator for every device, the CPU too
# ```diff
# @@
# -    kind = torch.device(device).type
# -    if kind == "cuda":
# -        torch.cuda.synchronize(device)
# -    elif kind == "mps":
# -        torch.mps.synchronize()
# +    if torch.accelerator.is_available():
# +        torch.accelerator.synchronize()
# ```
#
# **mistake `cuda-no-call`**, loses `test_synchronize`: names torch.cuda.synchronize without calling it
# ```diff
# @@
#      if kind == "cuda":
# -        torch.cuda.synchronize(device)
# +        torch.cuda.synchronize
# ```
#
# **mistake `cuda-else`**, loses `test_synchronize`: MPS first, and every other device taken for CUDA, the CPU too
# ```diff
# @@
# -    if kind == "cuda":
# -        torch.cuda.synchronize(device)
# -    elif kind == "mps":
# +    if kind == "mps":
#          torch.mps.synchronize()
# +    else:
# +        torch.cuda.synchronize()
# ```
#
# **mistake `device-type-attr`**, loses `test_synchronize`: reads device.type, which a str does not have
# ```diff
# @@
# -    kind = torch.device(device).type
# +    kind = device.type
# ```
#
# **alternative `device-object`**: synchronizes the current CUDA device
# ```python
# def synchronize(device) -> None:
#     device = torch.device(device)
#     if device.type == "cuda":
#         torch.cuda.synchronize()
#     elif device.type == "mps":
#         torch.mps.synchronize()
# ```
#
# **alternative `string-prefix`**: reads the device as a string
# ```python
# def synchronize(device) -> None:
#     name = str(device)
#     if name.startswith("cuda"):
#         torch.cuda.synchronize(device)
#         return None
#     if name.startswith("mps"):
#         torch.mps.synchronize()
#     return None
# ```
#
# **alternative `accelerator-api`**: torch.accelerator, the API current PyTorch recommends for any accelerator
# ```python
# def synchronize(device) -> None:
#     if torch.device(device).type in ("cuda", "mps"):
#         torch.accelerator.synchronize()
# ```
#
# **alternative `dispatch-table`**: a module-level table of lambdas named _SYNC
# ```python
# _SYNC = {"cuda": lambda: torch.cuda.synchronize(), "mps": lambda: torch.mps.synchronize()}
#
# def synchronize(device) -> None:
#     _fn = _SYNC.get(torch.device(device).type)
#     if _fn is not None:
#         _fn()
# ```
#
# **clauses of `synchronize`**
# - "Wait for all queued work on device": visible "returned before the queued work finished" by `does-nothing`
# - "torch.cuda.synchronize() for a CUDA device": visible "with torch.cuda.synchronize() for a CUDA device" by `cuda-no-call`
# - "in any spelling ("cuda", "cuda:0", torch.device("cuda"))": visible "a CUDA device in any spelling is a CUDA device" by `string-compare`
# - "in any spelling ("cuda", "cuda:0", torch.device("cuda"))": allows `device-object`, `string-prefix`
# - "torch.mps.synchronize() for MPS": visible "synchronize('mps') returned before Apple's MPS queue finished" by `no-mps`
# - "nothing at all for the CPU": visible "On the CPU there is nothing to wait for" by `cuda-else`
# - "even on a machine that has a GPU (decide by the device's type, not by the machine)": visible "nothing at all for the CPU, even on a machine that has a GPU" by `accelerator-whatever-device`
# - "device is a str or a torch.device.": visible "device is a str or a torch.device" by `device-type-attr`

# %% [markdown] id="ex2"
# ## Exercise 2: `time_ms` (5 points)
#
# Write `time_ms(fn, device, warmup=3, repeats=10)` that times `fn()` (a function without arguments) on `device` and
# returns a list of `repeats` durations in **milliseconds**:
#
# 1. call `fn()` `warmup` times without timing it: the first calls pay one-off costs (memory allocation, cuBLAS and
#    cuDNN set-up, autotuning, compilation);
# 2. then `repeats` times: `synchronize(device)` (nothing of earlier work may still be queued; right after the
#    previous call's closing `synchronize` the queue is empty already, so that one counts), read
#    `time.perf_counter()`, call `fn()`, `synchronize(device)` (wait for `fn`'s work), read `time.perf_counter()`
#    again, and keep the difference in milliseconds.
#
# The list holds one float per timed call, in the order of the calls, and each is that call's own duration: the clock
# starts again for every call (not once before the first), and no average takes the place of the durations.
#
# Use your `synchronize` from exercise 1. (The grader checks `time_ms` with a correct `synchronize`, so a mistake in
# exercise 1 is not counted twice.) The common mistakes: no synchronize, a synchronize only at the start, timing the
# warm-up calls, a clock started only once.

# %% gpucourse={"save": "timing"} nbgrader={"grade": false, "grade_id": "time_ms", "locked": false, "schema_version": 3, "solution": true}
import time


def time_ms(fn, device, warmup=3, repeats=10) -> list:
    """Call fn() warmup times untimed, then time repeats calls: for each, synchronize(device) (nothing
    earlier may still be queued; the previous call's closing synchronize already ensures it), read
    time.perf_counter(), call fn(), synchronize(device), read time.perf_counter() again. Return a list
    of repeats floats in call order: each call's own duration, from its own start, in milliseconds."""
    ### BEGIN SOLUTION
    for _ in range(warmup):
        fn()
    times = []
    for _ in range(repeats):
        synchronize(device)
        start = time.perf_counter()
        fn()
        synchronize(device)
        times.append((time.perf_counter() - start) * 1e3)
    return times
    ### END SOLUTION


# %% nbgrader={"grade": true, "grade_id": "test_time_ms", "locked": true, "points": 5, "schema_version": 3, "solution": false}
import contextlib
import time
import gpucourse.timing as _timing
from gpucourse.checks import Check
from gpucourse.origin import borrowed
from gpucourse.simdevice import simulated_accelerator


@contextlib.contextmanager
def _with_correct_synchronize(correct=_timing.synchronize):
    """time_ms is graded with a correct synchronize (gpucourse's, or one built on it), so that a mistake in
    exercise 1 is not counted twice."""
    global synchronize
    try:
        own = synchronize
    except NameError:   # exercise 1's cell was not run
        own = None
    synchronize = correct
    try:
        yield
    finally:
        if own is None:
            del synchronize
        else:
            synchronize = own


class _Calls:
    """fn() for these checks: call k queues durations[k] ms of work on the simulated device sim (or sleeps that
    long on the host when sim is None) and notes when it began and when its work had finished."""

    def __init__(self, sim, durations):
        self.sim, self.durations, self.began, self.work = sim, list(durations), [], []

    def __call__(self):
        ms = self.durations[len(self.began) % len(self.durations)]
        self.began.append(time.perf_counter())
        if self.sim is None:
            time.sleep(ms / 1e3)
            self.work.append(time.perf_counter())
        else:
            self.work.append(self.sim.launch(ms))

    def bounds(self, repeats, called, returned):
        """(least, most) ms a timed call can measure: its work from its start to its end at least; at most the
        time between the end of the previous call's work and the start of the next call."""
        for w in self.work:
            if not isinstance(w, float):
                w.done.wait()      # a wrong answer may return before the device has finished
        ends = [w if isinstance(w, float) else w.finished for w in self.work]
        first = len(self.began) - repeats
        out = []
        for k in range(first, len(self.began)):
            after = ends[k - 1] if k > 0 else called
            before = self.began[k + 1] if k + 1 < len(self.began) else returned
            out.append(((ends[k] - self.began[k]) * 1e3, (before - after) * 1e3))
        return out


_SLACK_MS = 0.5   # time stamps are read on the same clock, in a fixed order: no allowance for load is needed
_SYNC_MS = 30.0   # what _slow_synchronize's synchronize costs, with or without queued work


class _Syncs:
    """When each synchronize(device) call began and returned, in call order."""

    def __init__(self):
        self.calls = []

    def own_windows(self, began, returned):
        """For each call of fn (began: when each began), the most its own duration can be: from the return of the
        last synchronize before it began (its opening one) to the start of the next call's opening synchronize
        (the last synchronize that begins before the next call of fn), or to when time_ms returned."""
        out = []
        for k, start in enumerate(began):
            opened = max((back for entry, back in self.calls if back <= start), default=start)
            following = began[k + 1] if k + 1 < len(began) else None
            closes = [entry for entry, _ in self.calls if start < entry and (following is None or entry < following)]
            end = closes[-1] if following is not None and len(closes) > 1 else returned
            out.append((end - opened) * 1e3)
        return out


@contextlib.contextmanager
def _slow_synchronize(ms):
    """synchronize(device) that takes ms on the host before waiting (a slow driver call), recording its times."""
    syncs = _Syncs()

    def costly(*where):   # the device, passed on as given
        entry = time.perf_counter()
        time.sleep(ms / 1e3)
        _timing.synchronize(*where)
        syncs.calls.append((entry, time.perf_counter()))

    with _with_correct_synchronize(costly):
        yield syncs


@contextlib.contextmanager
def _wall_clock_stopped():
    """time.time() and time.time_ns() stand still inside, so only the docstring's clock, time.perf_counter(),
    measures a call (the wall clock can jump when the system's time is set; perf_counter cannot)."""
    saved = time.time, time.time_ns
    now, now_ns = time.time(), time.time_ns()
    time.time, time.time_ns = (lambda: now), (lambda: now_ns)
    try:
        yield
    finally:
        time.time, time.time_ns = saved

with Check("time_ms") as check, _with_correct_synchronize():
    where = borrowed(time_ms, answers=[_timing.time_ms, _timing.median_ms])
    check.that(where is None, f"time_ms comes from {where}: write your own here.")
    for kind, device in (("cuda", "cuda"), (None, "cpu")):
        with simulated_accelerator(kind) as sim:   # torch.cuda is the simulated device here (kind "cuda")
            fn = _Calls(sim, [60.0, 70.0, 20.0]) if kind else _Calls(None, [10.0, 30.0])   # CPU work: on the host
            called = time.perf_counter()
            times = check.call(time_ms, fn, device, warmup=1, repeats=2)
            returned = time.perf_counter()
            check.that(isinstance(times, list) and len(times) == 2,
                       "Return a list with one duration per timed call (repeats of them).")
            check.equal(len(fn.began), 3, f"fn must be called warmup + repeats times in all (device {device!r})")
            check.that(all(isinstance(t, float) for t in times), "Each duration is a float, in milliseconds.")
            bounds = fn.bounds(2, called, returned)
            check.that(all(t >= least - _SLACK_MS for t, (least, _) in zip(times, bounds)),
                       "A duration is shorter than the work of its call. "
                       "Does the clock stop before the work has finished? "
                       "Call fn(), synchronize(device), then read time.perf_counter() again. "
                       "Are the durations in milliseconds, each call's own, in call order?")
            check.that(all(t <= most + _SLACK_MS for t, (_, most) in zip(times, bounds)),
                       "A duration includes time outside its own call. "
                       "For each call, synchronize(device) before starting the clock (nothing earlier may still be "
                       "queued). Each call's own duration, from its own start: start the clock again for each call. "
                       "Do not time the warm-up calls.")
    with simulated_accelerator(None):
        fn = _Calls(None, [3.0])
        check.call(time_ms, fn, "cpu", warmup=0, repeats=2)
    check.equal(len(fn.began), 2, "warmup may be 0: Call fn() warmup times untimed, then time repeats calls, so "
                                  "fn() runs exactly repeats times then, with no warm-up call.")
    with simulated_accelerator(None), _wall_clock_stopped():   # work on the host: only the clock is checked here
        fn = _Calls(None, [12.0, 25.0])
        called = time.perf_counter()
        times = check.call(time_ms, fn, "cpu", warmup=1, repeats=2)
        returned = time.perf_counter()
    check.that(isinstance(times, list) and len(times) == 2 and len(fn.began) == 3
               and all(isinstance(t, float) and t >= least - _SLACK_MS
                       for t, (least, _) in zip(times, fn.bounds(2, called, returned))),
               "Read the clock the docstring names, time.perf_counter(), before and after each call: other clocks "
               "such as time.time() can jump or stand still (here it stands still).")
    with simulated_accelerator(None), _slow_synchronize(_SYNC_MS) as syncs:
        fn = _Calls(None, [5.0, 5.0, 5.0])
        times = check.call(time_ms, fn, "cpu", warmup=0, repeats=3)
        returned = time.perf_counter()
    check.that(isinstance(times, list) and len(times) == 3
               and all(t <= most + _SLACK_MS for t, most in zip(times, syncs.own_windows(fn.began, returned))),
               "Each call's own duration, from its own start: read time.perf_counter() after that call's opening "
               f"synchronize(device) has returned, not before it (here synchronize itself takes {_SYNC_MS:g} ms, "
               "which is not part of the call's time).")
    # the whole contract, over its domain: every machine (no accelerator, a CUDA GPU, a Mac), its accelerator and
    # the CPU in every spelling (a str or a torch.device, with or without an index), warmup and repeats from 0 up,
    # calls of different lengths; fn run as the caller would run it, and what it raises reaching the caller
    from hypothesis import strategies as st
    from gpucourse.domains import machines_and_devices

    def times_own_calls(c):
        """time_ms(fn, device, warmup, repeats) calls fn warmup + repeats times and returns repeats floats, each
        between its call's own work (queued on the accelerator, or on the host for the CPU) and the time from the
        end of the previous call's work to the start of the next call."""
        machine, device, warmup, repeats, durations = c
        with simulated_accelerator(machine) as sim:
            fn = _Calls(None if torch.device(device).type == "cpu" else sim, durations)
            called = time.perf_counter()
            times = time_ms(fn, device, warmup=warmup, repeats=repeats)
            returned = time.perf_counter()
            return (isinstance(times, list) and len(times) == repeats and len(fn.began) == warmup + repeats
                    and all(isinstance(t, float) and least - _SLACK_MS <= t <= most + _SLACK_MS
                            for t, (least, most) in zip(times, fn.bounds(repeats, called, returned))))

    def counts():
        return st.tuples(st.integers(0, 3), st.integers(0, 3))

    timed = st.tuples(st.sampled_from(machines_and_devices()), counts(),
                      st.lists(st.integers(0, 6).map(float), min_size=1, max_size=3)).map(
        lambda t: (*t[0], *t[1], t[2]))
    check.forall(timed, times_own_calls,
                 "Call fn() warmup times untimed, then time repeats calls (warmup and repeats may be 0), each "
                 "between synchronize(device) and synchronize(device), and return a list of repeats floats in ms, "
                 "for a device in any spelling (a str or a torch.device, with or without an index) on any machine. "
                 "The input shown is (the machine's accelerator, device, warmup, repeats, ms of work of each call)",
                 examples=8, cases=[(machine, device, 1, 2, [4.0, 2.0]) for machine, device in machines_and_devices()]
                 + [("cuda", "cuda", 2, 0, [3.0]), (None, "cpu", 3, 0, [1.0])])

    from gpucourse.domains import CALLER_MODES as MODES
    from gpucourse.domains import modes_seen

    def runs_fn_as_called(c):
        """Every call of fn sees the grad mode, inference mode and autocast state time_ms was called with."""
        machine, device, warmup, repeats, mode = c
        seen = []
        with simulated_accelerator(machine), MODES[mode]():
            wanted = modes_seen()
            time_ms(lambda: seen.append(modes_seen()), device, warmup=warmup, repeats=repeats)
        return seen == [wanted] * (warmup + repeats)

    modes = st.tuples(st.sampled_from(machines_and_devices()), counts(), st.sampled_from(list(MODES))).map(
        lambda t: (*t[0], *t[1], t[2]))
    check.forall(modes, runs_fn_as_called,
                 "Call fn() as the caller would: every call of fn (warm-up and timed) runs in the grad mode, "
                 "inference mode and autocast state time_ms was called in (no torch.no_grad() of your own). The "
                 "input shown is (the machine's accelerator, device, warmup, repeats, the caller's mode)",
                 examples=8, cases=[("cuda", "cuda", 1, 2, mode) for mode in MODES])

    ERRORS = [RuntimeError, ValueError, getattr(torch, "OutOfMemoryError", MemoryError)]

    def passes_fns_error_on(c):
        """fn raises on its call number failing (0 is the first warm-up call): time_ms raises that very object."""
        machine, device, warmup, repeats, failing, kind = c
        error, calls = kind(f"fn failed on call {failing}"), []

        def fn():
            calls.append(None)
            if len(calls) == failing + 1:
                raise error

        with simulated_accelerator(machine):
            try:
                time_ms(fn, device, warmup=warmup, repeats=repeats)
            except type(error) as raised:
                return raised is error
        return False

    failures = st.tuples(st.sampled_from(machines_and_devices()), counts().filter(lambda wr: sum(wr) > 0)).flatmap(
        lambda t: st.tuples(st.just(t), st.integers(0, sum(t[1]) - 1), st.sampled_from(ERRORS))).map(
        lambda t: (*t[0][0], *t[0][1], t[1], t[2]))
    check.forall(failures, passes_fns_error_on,
                 "What fn() raises reaches the caller as it is: the very same exception object, from a warm-up "
                 "call or a timed one (do not catch it, or raise a new one in its place). The input shown is (the "
                 "machine's accelerator, device, warmup, repeats, the call of fn that raises, which exception)",
                 examples=8, cases=[("cuda", "cuda", 2, 2, 0, ERRORS[0]), ("cuda", "cuda:0", 1, 2, 2, ERRORS[1]),
                                    (None, "cpu", 1, 1, 1, ERRORS[2])])

### BEGIN HIDDEN TESTS
import itertools as _itertools
import random as _random
from gpucourse.checks import requirement as _requirement
from gpucourse.origin import borrowed as _borrowed
assert _borrowed(time_ms, answers=[_timing.time_ms, _timing.median_ms]) is None, \
    "time_ms must be written in this notebook"
_rng = _random.Random()


def _durations():
    """Three calls of very different lengths in an order that is neither ascending nor descending, so that each
    duration must be its own call's, in call order (a sorted list or an average fails)."""
    _d = [_rng.uniform(8, 12), _rng.uniform(45, 55), _rng.uniform(22, 28)]
    _orders = [_p for _p in _itertools.permutations(_d) if list(_p) not in (sorted(_d), sorted(_d)[::-1])]
    return list(_rng.choice(_orders))


def _timed(kind, device, warmup, repeats, warmup_ms):
    with simulated_accelerator(kind) as _sim:
        _on_host = torch.device(device).type == "cpu"     # CPU work runs on the host, even beside a GPU
        _fn = _Calls(None if _on_host else _sim, [warmup_ms] * warmup + _durations())
        _called = time.perf_counter()
        _times = time_ms(_fn, device, warmup=warmup, repeats=repeats)
        _returned = time.perf_counter()
        assert isinstance(_times, list) and len(_times) == repeats, f"a list of {repeats} durations"
        assert len(_fn.began) == warmup + repeats, f"{warmup} untimed calls, then {repeats} timed calls"
        assert all(isinstance(_t, float) for _t in _times), "floats"
        for _t, (_least, _most) in zip(_times, _fn.bounds(repeats, _called, _returned)):
            assert _t >= _least - _SLACK_MS, \
                f"measured {_t:.2f} ms for a call whose work took at least {_least:.2f} ms"
            assert _t <= _most + _SLACK_MS, \
                f"measured {_t:.2f} ms for a call that took at most {_most:.2f} ms from start to end"


with _with_correct_synchronize():
    for _kind, _device, _warm, _rep, _warm_ms in [
            ("cuda", "cuda", 2, 3, 5.0), ("cuda", torch.device("cuda"), 0, 2, 0.0), ("cuda", "cuda:0", 1, 3, 40.0),
            ("cuda", "cuda", 3, 0, 5.0), ("mps", "mps", 1, 3, 40.0), (None, "cpu", 1, 3, 15.0),
            ("cuda", "cpu", 1, 2, 15.0)]:
        with _requirement(f"time_ms(fn, {_device!r}, warmup={_warm}, repeats={_rep}) calls fn warmup times untimed, "
                          "then returns repeats durations in ms, each its own call's, synchronized at both ends"):
            _timed(_kind, _device, _warm, _rep, _warm_ms)
    for _kind, _device in (("cuda", "cuda"), (None, "cpu")):
        with _requirement(f"time_ms(fn, {_device!r}) reads time.perf_counter() before and after each call "
                          "(time.time() stands still here)"), _wall_clock_stopped():
            _timed(_kind, _device, _rng.randint(0, 2), 3, 5.0)
    with _requirement("time_ms times each call from its own start: the clock starts after that call's opening "
                      "synchronize(device), which is not part of its time"), simulated_accelerator(None):
        _warm, _ms = _rng.randint(0, 2), _rng.uniform(15, 30)
        with _slow_synchronize(_ms) as _syncs:
            _fn = _Calls(None, [_rng.uniform(2, 6) for _ in range(_warm + 3)])
            _times = time_ms(_fn, "cpu", warmup=_warm, repeats=3)
            _returned = time.perf_counter()
        _over = [(_d, _most) for _d, _most in zip(_times, _syncs.own_windows(_fn.began, _returned)[_warm:])
                 if _d > _most + _SLACK_MS]
        assert not _over, f"measured {_over[0][0]:.2f} ms; the call took at most {_over[0][1]:.2f} ms after its " \
            f"opening synchronize (which took {_ms:.1f} ms)"
    with _requirement("time_ms's defaults are warmup=3, repeats=10"), simulated_accelerator("cuda") as _sim:
        _fn = _Calls(_sim, [1.0])
        _times = time_ms(_fn, "cuda")
        assert len(_times) == 10 and len(_fn.began) == 13, f"{len(_fn.began)} calls, {len(_times)} durations"
    if torch.cuda.is_available():   # on a GPU grader, the real thing as well
        with _requirement("time_ms times a real CUDA matmul"):
            _a = torch.randn(1024, 1024, device="cuda")
            _times = time_ms(lambda: _a @ _a, "cuda", warmup=1, repeats=3)
            assert len(_times) == 3 and all(isinstance(t, float) and t > 0 for t in _times)
from gpucourse.contract import for_all as _for_all
with _with_correct_synchronize(), _requirement(
        "time_ms keeps its contract on any machine, for a device in any spelling, warmup and repeats from 0 up, "
        "calls of different lengths: fn called warmup + repeats times in the caller's grad mode and autocast state, "
        "repeats floats, each its own call's time in ms, and fn's exception raised as it is"):
    _for_all(timed, times_own_calls, "warmup untimed calls, repeats durations, each its own call's, in ms",
             examples=60, cases=[(_machine, _device, _warm, _rep, [3.0, 1.0, 5.0])
                                 for _machine, _device in machines_and_devices() for _warm, _rep in ((0, 1), (2, 0))])
    _for_all(modes, runs_fn_as_called, "fn runs in the caller's grad mode, inference mode and autocast state",
             examples=60, cases=[(_machine, "cpu", 1, 1, _mode) for _machine in (None, "cuda") for _mode in MODES])
    _for_all(failures, passes_fns_error_on, "fn's exception reaches the caller as the same object", examples=60,
             cases=[("mps", "mps", _warm, 2, _failing, _kind) for _warm in (0, 2) for _failing in range(_warm + 2)
                    for _kind in ERRORS])
### END HIDDEN TESTS

# %% [markdown] fixtures="time_ms"
# ### Mistakes and correct alternatives for `time_ms` (author-only: in no generated notebook)
#
# **mistake `no-sync`**, sample, loses `test_time_ms`: measures the time to queue the work
# ```diff
# @@
#      for _ in range(repeats):
# -        synchronize(device)
#          start = time.perf_counter()
#          fn()
# -        synchronize(device)
# ```
#
# **mistake `sync-start-only`**, loses `test_time_ms`: the clock stops before the work has finished
# ```diff
# @@
#          fn()
# -        synchronize(device)
# ```
#
# **mistake `sync-end-only`**, loses `test_time_ms`: the first timing includes the queued warm-up work
# ```diff
# @@
#      for _ in range(repeats):
# -        synchronize(device)
# ```
#
# **mistake `times-warmup`**, loses `test_time_ms`: returns the warm-up calls' timings too
# ```diff
# @@
# -    for _ in range(warmup):
# -        fn()
# @@
# -    for _ in range(repeats):
# +    for _ in range(warmup + repeats):
# ```
#
# **mistake `times-warmup-first`**, loses `test_time_ms`: keeps the first timings, the warm-up calls among them
# ```diff
# @@
# -    for _ in range(warmup):
# -        fn()
# @@
# -    for _ in range(repeats):
# +    for _ in range(warmup + repeats):
# @@
# -    return times
# +    return times[:repeats]
# ```
#
# **mistake `no-warmup`**, loses `test_time_ms`: skips the warm-up
# ```diff
# @@
# -    for _ in range(warmup):
# -        fn()
# ```
#
# **mistake `seconds`**, loses `test_time_ms`: returns seconds
# ```diff
# @@
# -        times.append((time.perf_counter() - start) * 1e3)
# +        times.append(time.perf_counter() - start)
# ```
#
# **mistake `average`**, loses `test_time_ms`: one average repeated: not one duration per call
# ```diff
# @@
# -    times = []
# +    synchronize(device)
# +    start = time.perf_counter()
# @@
# -        synchronize(device)
# -        start = time.perf_counter()
# @@
# -        synchronize(device)
# -        times.append((time.perf_counter() - start) * 1e3)
# -    return times
# +    synchronize(device)
# +    return [(time.perf_counter() - start) * 1e3 / max(repeats, 1)] * repeats
# ```
#
# **mistake `from-first-start`**, loses `test_time_ms`: measures each call from the first call's start
# ```diff
# @@
#      times = []
# -    for _ in range(repeats):
# -        synchronize(device)
# -        start = time.perf_counter()
# +    synchronize(device)
# +    start = time.perf_counter()
# +    for _ in range(repeats):
# ```
#
# **mistake `sorted-durations`**, loses `test_time_ms`: returns the durations sorted, not in call order
# ```diff
# @@
# -    return times
# +    return sorted(times)
# ```
#
# **mistake `wall-clock`**, loses `test_time_ms`: reads time.time(), the wall clock, not time.perf_counter()
# ```diff
# @@
# -        start = time.perf_counter()
# +        start = time.time()
#          fn()
#          synchronize(device)
# -        times.append((time.perf_counter() - start) * 1e3)
# +        times.append((time.time() - start) * 1e3)
# ```
#
# **mistake `hardcoded-cuda`**, loses `test_time_ms`: calls torch.cuda whatever the device: crashes on a CPU-only machine
# ```diff
# @@
#      for _ in range(repeats):
# -        synchronize(device)
# +        torch.cuda.synchronize()
#          start = time.perf_counter()
#          fn()
# -        synchronize(device)
# +        torch.cuda.synchronize()
# ```
#
# **mistake `rounded-ms`**, loses `test_time_ms`: rounds each duration to whole milliseconds, an int, not a float
# ```diff
# @@
# -        times.append((time.perf_counter() - start) * 1e3)
# +        times.append(round((time.perf_counter() - start) * 1e3))
# ```
#
# **mistake `shared-stamps`**, loses `test_time_ms`: one chain of time stamps: each duration runs from the previous call's end, so it also holds the next opening synchronize
# ```diff
# @@
#      times = []
# +    synchronize(device)
# +    start = time.perf_counter()
#      for _ in range(repeats):
#          synchronize(device)
# -        start = time.perf_counter()
#          fn()
#          synchronize(device)
# -        times.append((time.perf_counter() - start) * 1e3)
# +        now = time.perf_counter()
# +        times.append((now - start) * 1e3)
# +        start = now
#      return times
# ```
#
# **mistake `at-least-one-warmup`**, loses `test_time_ms`: always warms up at least once, so warmup=0 calls fn once too often
# ```diff
# @@
# -    for _ in range(warmup):
# +    for _ in range(max(1, warmup)):
#          fn()
#      times = []
# ```
#
# **alternative `from-time-import`**: from time import perf_counter, a while loop
# ```python
# from time import perf_counter
#
# def time_ms(fn, device, warmup=3, repeats=10) -> list:
#     for _ in range(warmup):
#         fn()
#     out = []
#     while len(out) < repeats:
#         synchronize(device)
#         t0 = perf_counter()
#         fn()
#         synchronize(device)
#         out.append(1000.0 * (perf_counter() - t0))
#     return out
# ```
#
# **alternative `time-function`**: from time import time under its own name, locals named _times
# ```python
# import time
# from time import time as _now
#
# def time_ms(fn, device, warmup=3, repeats=10) -> list:
#     [fn() for _ in range(warmup)]
#     _times = []
#     for _i in range(repeats):
#         synchronize(device)
#         _start = time.perf_counter()
#         fn()
#         synchronize(device)
#         _times.append(float((time.perf_counter() - _start) * 1e3))
#     print("debug: last call started at", _now())
#     return _times
# ```
#
# **alternative `helper-comprehension`**: one timed call in a helper of the student's own, a comprehension
# ```python
# import time as _t
#
# def _one_call_ms(fn, device):
#     synchronize(device)
#     begin = _t.perf_counter()
#     fn()
#     synchronize(device)
#     return (_t.perf_counter() - begin) * 1000
#
# def time_ms(fn, device, warmup=3, repeats=10) -> list:
#     for _ in range(warmup):
#         fn()
#     return [_one_call_ms(fn, device) for _ in range(repeats)]
# ```
#
# **alternative `drain-once-first`**: one synchronize after the warm-up; each end synchronize empties the queue again
# ```python
# import time
#
# def time_ms(fn, device, warmup=3, repeats=10) -> list:
#     for _ in range(warmup):
#         fn()
#     synchronize(device)
#     times = []
#     for _ in range(repeats):
#         start = time.perf_counter()
#         fn()
#         synchronize(device)
#         times.append((time.perf_counter() - start) * 1e3)
#     return times
# ```
#
# **alternative `ns-clock`**: perf_counter_ns, a warning
# ```python
# import time
# import warnings
#
# def time_ms(fn, device, warmup=3, repeats=10) -> list:
#     if repeats == 0:
#         warnings.warn("nothing to time")
#     for _ in range(warmup):
#         fn()
#     durations = []
#     for _ in range(repeats):
#         synchronize(device)
#         start = time.perf_counter_ns()
#         fn()
#         synchronize(device)
#         durations.append((time.perf_counter_ns() - start) / 1e6)
#     return durations
# ```
#
# **clauses of `time_ms`**
# - "Call fn() warmup times untimed": visible "fn must be called warmup + repeats times in all" by `no-warmup`
# - "Call fn() warmup times untimed": visible "warmup may be 0" by `at-least-one-warmup`
# - "then time repeats calls": visible "one duration per timed call (repeats of them)" by `times-warmup`
# - "for each, synchronize(device) (nothing earlier may still be queued": visible "For each call, synchronize(device) before starting the clock" by `sync-end-only`
# - "the previous call's closing synchronize already ensures it": allows `drain-once-first`
# - "read time.perf_counter()": visible "Read the clock the docstring names, time.perf_counter()" by `wall-clock`
# - "read time.perf_counter()": allows `ns-clock`, `from-time-import`
# - "call fn(), synchronize(device), read time.perf_counter() again": visible "Call fn(), synchronize(device), then read time.perf_counter() again." by `sync-start-only`
# - "Return a list of repeats floats": visible "Each duration is a float" by `rounded-ms`
# - "in call order": visible "in call order" by `sorted-durations`
# - "each call's own duration, from its own start": visible "from its own start: start the clock again for each call" by `from-first-start`
# - "each call's own duration, from its own start": visible "read time.perf_counter() after that call's opening synchronize(device) has returned" by `shared-stamps`
# - "in milliseconds": visible "Are the durations in milliseconds" by `seconds`

# %% [markdown] id="s2"
# ## 2. Warm-up, median and spread
#
# One timing is one sample of a noisy process: other programs, clock boosts, the allocator, the operating system all
# add noise, and the first calls pay one-off costs. So: warm up, repeat, and report the **median** (robust to the odd
# slow call) with a measure of **spread** (the range between the 25th and 75th percentiles), not the mean of a few calls.
#
# The next cell times a matrix product on this notebook's device with your `time_ms`, without warm-up, so the first calls
# show.

# %% id="s2-measure"
import statistics

n = 1024 if DEVICE.type != "cpu" else 384
a = torch.randn(n, n, device=DEVICE)
calls = 20 if QUICK else 60
if needs("synchronize", "time_ms"):
    per_call = time_ms(lambda: a @ a, DEVICE, warmup=0, repeats=calls)
    steady = per_call[3:]
    q1, median, q3 = statistics.quantiles(steady, n=4)
    print(f"{n}x{n} matmul on {DEVICE.type} (measured): first call {per_call[0]:.3f} ms; after 3 calls: "
          f"median {median:.3f} ms, interquartile range {q1:.3f} to {q3:.3f} ms, "
          f"mean {statistics.mean(steady):.3f} ms, max {max(steady):.3f} ms")

# %% id="s2-plot"
if needs("synchronize", "time_ms"):
    fig, (ax_series, ax_box) = plt.subplots(1, 2, figsize=(10, 3.2), gridspec_kw={"width_ratios": [2, 1]})
    ax_series.plot(range(1, calls + 1), per_call, marker="o", markersize=3)
    ax_series.axvspan(0.5, 3.5, color="tab:orange", alpha=0.2, label="would be warm-up")
    ax_series.axhline(median, color="tab:green", linestyle="--", label=f"median after warm-up ({median:.3f} ms)")
    ax_series.set(xlabel="call", ylabel="ms (measured)", yscale="log", title=f"each call, {DEVICE.type}")
    ax_series.legend(fontsize=8)
    ax_box.boxplot(steady, showmeans=True)
    ax_box.set(xticks=[1], xticklabels=["after warm-up"], ylabel="ms (log scale)", yscale="log",
               title="median, quartiles, mean (triangle)")
    fig.tight_layout()
    plt.show()


# %% [markdown] id="ex3"
# ## Exercise 3: `time_ms_cuda_events` (3 points)
#
# CUDA events time on the device itself: `event.record()` queues a time stamp in the stream, so the measured interval
# is the GPU's own time between two points of its queue, without the host's overhead. Write
# `time_ms_cuda_events(fn, warmup=3, repeats=10)` that returns `repeats` durations in milliseconds:
#
# 1. `warmup` untimed calls of `fn()`;
# 2. for each timed call: create `start = torch.cuda.Event(enable_timing=True)` and `end` the same way,
#    `start.record()`, `fn()`, `end.record()`;
# 3. before reading `start.elapsed_time(end)` (already in milliseconds), wait until the events have happened:
#    `torch.cuda.synchronize()` (or `end.synchronize()`). You may read them after each call, or record all of them
#    and synchronize once at the end.
#
# The grader runs it on a simulated device with a fake `torch.cuda.Event`, so it is checked on a CPU too. On a real GPU,
# `elapsed_time` raises when an event has not completed yet, and so does the fake.

# %% nbgrader={"grade": false, "grade_id": "time_ms_cuda_events", "locked": false, "schema_version": 3, "solution": true}
def time_ms_cuda_events(fn, warmup=3, repeats=10) -> list:
    """Call fn() warmup times untimed, then time repeats calls with a pair of
    torch.cuda.Event(enable_timing=True) around each; synchronize before elapsed_time;
    return a list of repeats floats in call order: each call's duration in milliseconds."""
    ### BEGIN SOLUTION
    for _ in range(warmup):
        fn()
    pairs = []
    for _ in range(repeats):
        start = torch.cuda.Event(enable_timing=True)
        end = torch.cuda.Event(enable_timing=True)
        start.record()
        fn()
        end.record()
        pairs.append((start, end))
    torch.cuda.synchronize()
    return [start.elapsed_time(end) for start, end in pairs]
    ### END SOLUTION


# %% nbgrader={"grade": true, "grade_id": "test_time_ms_cuda_events", "locked": true, "points": 3, "schema_version": 3, "solution": false}
import time
from gpucourse.checks import Check
from gpucourse.simdevice import Workload, simulated_accelerator


def _untimed_warmups(sim, warmup):
    """Whether no event was recorded on sim before its last warm-up call was launched (Workload names its calls
    "call 0", "call 1", ... in order; a recorded event is a kernel named "event")."""
    names = [k.name for k in sim.kernels]
    warm = [i for i, name in enumerate(names) if name in {f"call {j}" for j in range(warmup)}]
    events = [i for i, name in enumerate(names) if name == "event"]
    return not warm or not events or events[0] > warm[-1]


def _events_timed(check, fn, warmup, repeats):
    """time_ms_cuda_events(fn, ...); where elapsed_time refuses to read the events (the fake raises as a real GPU
    does), the hint names the docstring's words for what was missing."""
    try:
        return time_ms_cuda_events(fn, warmup=warmup, repeats=repeats)
    except RuntimeError as error:
        check.that("enable_timing" not in str(error),
                   f"A pair of torch.cuda.Event(enable_timing=True) around each timed call ({error})")
        check.that("not ready" not in str(error), "Synchronize before elapsed_time: the events had not completed "
                                                  f"yet ({error})")
        raise


with Check("time_ms_cuda_events") as check:
    with simulated_accelerator("cuda") as sim:   # torch.cuda.Event is a fake tied to a simulated device here
        fn = Workload(sim, durations=[40.0, 70.0], warmup_ms=400.0, warmup_calls=1)
        times = _events_timed(check, fn, warmup=1, repeats=2)
        check.that(isinstance(times, list) and len(times) == 2,
                   "Return a list with one duration per timed call (repeats of them).")
        check.equal(fn.calls, 3, "fn must be called warmup + repeats times in all")
        check.that(_untimed_warmups(sim, 1), "Call fn() warmup times untimed: record no event until the warm-up "
                                             "calls are done (an event was recorded before the warm-up call).")
        events = [k for k in sim.kernels if k.name == "event"]
        check.that(len(events) >= 4, "Record a start and an end torch.cuda.Event around every timed call.")
        true = fn.true_ms(skip=1)
        check.that(all(isinstance(t, float) for t in times), "Each duration is a float, in milliseconds.")
        check.that(all(0.8 * r <= t <= r + 150 for t, r in zip(times, true)),
                   "The durations do not match the work: record start just before fn() and end just after, and "
                   "keep elapsed_time's milliseconds as they are.")
    with simulated_accelerator("cuda") as sim:   # a long call, then a short one: each duration is its own call's
        fn = Workload(sim, durations=[90.0, 20.0])
        times = _events_timed(check, fn, warmup=0, repeats=2)
        true = fn.true_ms()
        check.that(isinstance(times, list) and len(times) == 2 and len(true) == 2
                   and all(isinstance(t, float) and 0.8 * r <= t <= r + 150 for t, r in zip(times, true)),
                   "Return each call's own duration, in call order: a pair of events around each timed call, "
                   "each pair still holding that call's time stamps when you read it.")
    # the whole contract, over its domain: warmup and repeats from 0 up, calls of different lengths (none too); fn
    # run as the caller would run it, and what it raises reaching the caller
    from hypothesis import strategies as st

    def events_time_own_calls(c):
        """time_ms_cuda_events(fn, warmup, repeats) calls fn warmup + repeats times, records no event before the
        warm-up calls are done and two per timed call, and returns repeats floats, each between its call's own work
        on the device and the device's time from the end of the previous call's work to the start of the next's."""
        warmup, repeats, durations = c
        with simulated_accelerator("cuda") as sim:
            fn = Workload(sim, durations=durations)
            called = time.perf_counter()
            times = time_ms_cuda_events(fn, warmup=warmup, repeats=repeats)
            returned = time.perf_counter()
            work = fn.kernels
            for kernel in work:
                kernel.done.wait()
            bounds = []
            for k in range(warmup, len(work)):
                after = work[k - 1].finished if k > 0 else called
                before = work[k + 1].started if k + 1 < len(work) else returned
                bounds.append(((work[k].finished - work[k].started) * 1e3, (before - after) * 1e3))
            return (isinstance(times, list) and len(times) == repeats and fn.calls == warmup + repeats
                    and _untimed_warmups(sim, warmup)
                    and len([k for k in sim.kernels if k.name == "event"]) >= 2 * repeats
                    and all(isinstance(t, float) and least - 0.05 <= t <= most + 0.05
                            for t, (least, most) in zip(times, bounds)))

    def counts():
        return st.tuples(st.integers(0, 3), st.integers(0, 3))

    timed = st.tuples(counts(), st.lists(st.integers(0, 6).map(float), min_size=1, max_size=3)).map(
        lambda t: (*t[0], t[1]))
    check.forall(timed, events_time_own_calls,
                 "Call fn() warmup times untimed, then time repeats calls (warmup and repeats may be 0) with a pair "
                 "of events around each, and return a list of repeats floats: each call's own duration in ms, in "
                 "call order. The input shown is (warmup, repeats, ms of work of each call)",
                 examples=8, cases=[(0, 0, [1.0]), (2, 0, [1.0]), (0, 1, [4.0]), (1, 3, [6.0, 1.0, 3.0]),
                                    (3, 2, [2.0, 0.0])])

    from gpucourse.domains import CALLER_MODES as MODES
    from gpucourse.domains import modes_seen

    def events_run_fn_as_called(c):
        """Every call of fn sees the grad mode, inference mode and autocast state time_ms_cuda_events was called in."""
        warmup, repeats, mode = c
        seen = []
        with simulated_accelerator("cuda"), MODES[mode]():
            wanted = modes_seen()
            time_ms_cuda_events(lambda: seen.append(modes_seen()), warmup=warmup, repeats=repeats)
        return seen == [wanted] * (warmup + repeats)

    modes = st.tuples(counts(), st.sampled_from(list(MODES))).map(lambda t: (*t[0], t[1]))
    check.forall(modes, events_run_fn_as_called,
                 "Call fn() as the caller would: every call of fn (warm-up and timed) runs in the grad mode, "
                 "inference mode and autocast state time_ms_cuda_events was called in (no torch.no_grad() or "
                 "torch.inference_mode() of your own). The input shown is (warmup, repeats, the caller's mode)",
                 examples=8, cases=[(1, 2, mode) for mode in MODES])

    ERRORS = [RuntimeError, ValueError, getattr(torch, "OutOfMemoryError", MemoryError)]

    def events_pass_fns_error_on(c):
        """fn raises on its call number failing (0 is the first warm-up call): time_ms_cuda_events raises that very
        object."""
        warmup, repeats, failing, kind = c
        error, calls = kind(f"fn failed on call {failing}"), []

        def fn():
            calls.append(None)
            if len(calls) == failing + 1:
                raise error

        with simulated_accelerator("cuda"):
            try:
                time_ms_cuda_events(fn, warmup=warmup, repeats=repeats)
            except type(error) as raised:
                return raised is error
        return False

    failures = counts().filter(lambda wr: sum(wr) > 0).flatmap(
        lambda wr: st.tuples(st.just(wr), st.integers(0, sum(wr) - 1), st.sampled_from(ERRORS))).map(
        lambda t: (*t[0], t[1], t[2]))
    check.forall(failures, events_pass_fns_error_on,
                 "What fn() raises reaches the caller as it is: the very same exception object, from a warm-up "
                 "call or a timed one (do not catch it, or raise a new one in its place). The input shown is "
                 "(warmup, repeats, the call of fn that raises, which exception)",
                 examples=8, cases=[(2, 2, 0, ERRORS[0]), (1, 2, 2, ERRORS[1]), (1, 1, 1, ERRORS[2])])

### BEGIN HIDDEN TESTS
import random as _random
from gpucourse.checks import requirement as _requirement
_rng = _random.Random()
for _warm, _rep, _warm_ms in [(2, 3, 5.0), (0, 2, 300.0), (1, 3, 300.0), (2, 0, 5.0)]:
    _durations = [_rng.uniform(15, 25), _rng.uniform(100, 130), _rng.uniform(45, 60)]
    _rng.shuffle(_durations)
    with _requirement(f"time_ms_cuda_events(fn, warmup={_warm}, repeats={_rep}) makes {_warm} untimed calls, then "
                      f"returns {_rep} durations in ms read from a pair of timing events around each call"), \
            simulated_accelerator("cuda") as _sim:
        _fn = Workload(_sim, durations=_durations, warmup_ms=_warm_ms, warmup_calls=_warm)
        _times = time_ms_cuda_events(_fn, warmup=_warm, repeats=_rep)
        assert isinstance(_times, list) and len(_times) == _rep, "one duration per timed call"
        assert _fn.calls == _warm + _rep, "warmup untimed calls, then repeats timed calls"
        assert _untimed_warmups(_sim, _warm), "the warm-up calls untimed: no event recorded before they are done"
        assert len([k for k in _sim.kernels if k.name == "event"]) >= 2 * _rep, "two events per timed call"
        for _t, _true in zip(_times, _fn.true_ms(skip=_warm)):
            assert isinstance(_t, float), "floats"
            assert 0.8 * _true <= _t <= _true + 150, f"measured {_t:.1f} ms for {_true:.1f} ms of device work"
with _requirement("time_ms_cuda_events returns each call's own duration, in call order (a long call, then a short "
                  "one)"), simulated_accelerator("cuda") as _sim:
    _fn = Workload(_sim, durations=[_rng.uniform(200, 260), _rng.uniform(10, 20)])
    _times = time_ms_cuda_events(_fn, warmup=0, repeats=2)
    _wrong = [(_d, _true) for _d, _true in zip(_times, _fn.true_ms()) if not 0.8 * _true <= _d <= _true + 150]
    assert len(_times) == 2 and not _wrong, f"measured {_wrong[0][0]:.1f} ms for {_wrong[0][1]:.1f} ms of device " \
        "work" if _wrong else "one duration per timed call"
with _requirement("time_ms_cuda_events's defaults are warmup=3, repeats=10"), simulated_accelerator("cuda") as _sim:
    _fn = Workload(_sim, durations=[1.0])
    assert len(time_ms_cuda_events(_fn)) == 10 and _fn.calls == 13, "defaults warmup=3, repeats=10"
if torch.cuda.is_available():   # on a GPU grader, the real thing as well
    with _requirement("time_ms_cuda_events times a real CUDA matmul"):
        _a = torch.randn(1024, 1024, device="cuda")
        _times = time_ms_cuda_events(lambda: _a @ _a, warmup=1, repeats=3)
        assert len(_times) == 3 and all(isinstance(t, float) and t > 0 for t in _times)
from gpucourse.contract import for_all as _for_all
with _requirement("time_ms_cuda_events keeps its contract for warmup and repeats from 0 up and calls of different "
                  "lengths: fn called warmup + repeats times in the caller's grad mode and autocast state, repeats "
                  "floats, each its own call's time in ms from a pair of events, and fn's exception raised as it is"):
    _for_all(timed, events_time_own_calls, "warmup untimed calls, repeats durations from event pairs, each its own "
             "call's, in ms", examples=60, cases=[(_warm, _rep, [5.0, 0.0, 2.0]) for _warm in range(4)
                                                 for _rep in range(4)])
    _for_all(modes, events_run_fn_as_called, "fn runs in the caller's grad mode, inference mode and autocast state",
             examples=60, cases=[(_warm, _rep, _mode) for _warm, _rep in ((0, 1), (2, 0)) for _mode in MODES])
    _for_all(failures, events_pass_fns_error_on, "fn's exception reaches the caller as the same object",
             examples=60, cases=[(_warm, 2, _failing, _kind) for _warm in (0, 2) for _failing in range(_warm + 2)
                                 for _kind in ERRORS])
### END HIDDEN TESTS

# %% [markdown] fixtures="time_ms_cuda_events"
# ### Mistakes and correct alternatives for `time_ms_cuda_events` (author-only: in no generated notebook)
#
# **mistake `no-enable-timing`**, sample, loses `test_time_ms_cuda_events`: events made without enable_timing=True cannot time
# ```diff
# @@
# -    pairs = []
# +    times = []
# @@
# -        start = torch.cuda.Event(enable_timing=True)
# -        end = torch.cuda.Event(enable_timing=True)
# +        start, end = torch.cuda.Event(), torch.cuda.Event()
# @@
# -        pairs.append((start, end))
# -    torch.cuda.synchronize()
# -    return [start.elapsed_time(end) for start, end in pairs]
# +        torch.cuda.synchronize()
# +        times.append(start.elapsed_time(end))
# +    return times
# ```
#
# **mistake `events-no-sync`**, loses `test_time_ms_cuda_events`: reads elapsed_time before the events have completed
# ```diff
# @@
# -    pairs = []
# +    times = []
# @@
# -        pairs.append((start, end))
# -    torch.cuda.synchronize()
# -    return [start.elapsed_time(end) for start, end in pairs]
# +        times.append(start.elapsed_time(end))
# +    return times
# ```
#
# **mistake `reused-pair`**, loses `test_time_ms_cuda_events`: one pair of events re-recorded for every call, so every entry is the last call's time
# ```diff
# @@
#      pairs = []
# +    start = torch.cuda.Event(enable_timing=True)
# +    end = torch.cuda.Event(enable_timing=True)
#      for _ in range(repeats):
# -        start = torch.cuda.Event(enable_timing=True)
# -        end = torch.cuda.Event(enable_timing=True)
#          start.record()
# ```
#
# **mistake `end-before-fn`**, loses `test_time_ms_cuda_events`: records both events before the work
# ```diff
# @@
# -    pairs = []
# +    times = []
#      for _ in range(repeats):
# @@
#          start.record()
# +        end.record()
#          fn()
# -        end.record()
# -        pairs.append((start, end))
# -    torch.cuda.synchronize()
# -    return [start.elapsed_time(end) for start, end in pairs]
# +        torch.cuda.synchronize()
# +        times.append(start.elapsed_time(end))
# +    return times
# ```
#
# **mistake `reversed-events`**, loses `test_time_ms_cuda_events`: end.elapsed_time(start) is negative
# ```diff
# @@
# -    pairs = []
# +    times = []
# @@
# -        pairs.append((start, end))
# -    torch.cuda.synchronize()
# -    return [start.elapsed_time(end) for start, end in pairs]
# +        torch.cuda.synchronize()
# +        times.append(end.elapsed_time(start))
# +    return times
# ```
#
# **mistake `events-to-seconds`**, loses `test_time_ms_cuda_events`: converts elapsed_time, already in ms, to seconds
# ```diff
# @@
# -    pairs = []
# +    times = []
# @@
# -        pairs.append((start, end))
# -    torch.cuda.synchronize()
# -    return [start.elapsed_time(end) for start, end in pairs]
# +        torch.cuda.synchronize()
# +        times.append(start.elapsed_time(end) / 1000)
# +    return times
# ```
#
# **mistake `events-time-warmup`**, loses `test_time_ms_cuda_events`: times the warm-up calls too
# ```diff
# @@
# -    for _ in range(warmup):
# -        fn()
# -    pairs = []
# -    for _ in range(repeats):
# +    times = []
# +    for _ in range(warmup + repeats):
# @@
# -        pairs.append((start, end))
# -    torch.cuda.synchronize()
# -    return [start.elapsed_time(end) for start, end in pairs]
# +        torch.cuda.synchronize()
# +        times.append(start.elapsed_time(end))
# +    return times
# ```
#
# **mistake `clock-not-events`**, loses `test_time_ms_cuda_events`: uses the host clock instead of CUDA events
# ```diff
# @@
# +import time
#  def time_ms_cuda_events(fn, warmup=3, repeats=10) -> list:
# @@
#          fn()
# -    pairs = []
# +    times = []
#      for _ in range(repeats):
# -        start = torch.cuda.Event(enable_timing=True)
# -        end = torch.cuda.Event(enable_timing=True)
# -        start.record()
# +        torch.cuda.synchronize()
# +        start = time.perf_counter()
#          fn()
# -        end.record()
# -        pairs.append((start, end))
# -    torch.cuda.synchronize()
# -    return [start.elapsed_time(end) for start, end in pairs]
# +        torch.cuda.synchronize()
# +        times.append((time.perf_counter() - start) * 1e3)
# +    return times
# ```
#
# **mistake `events-no-warmup`**, loses `test_time_ms_cuda_events`: skips the warm-up calls
# ```diff
# @@
# -    for _ in range(warmup):
# -        fn()
# ```
#
# **mistake `events-rounded`**, loses `test_time_ms_cuda_events`: rounds each duration to whole milliseconds, an int, not a float
# ```diff
# @@
# -    return [start.elapsed_time(end) for start, end in pairs]
# +    return [round(start.elapsed_time(end)) for start, end in pairs]
# ```
#
# **mistake `events-around-warmup`**, loses `test_time_ms_cuda_events`: times the warm-up calls too, then drops their durations
# ```diff
# @@
# -    for _ in range(warmup):
# -        fn()
#      pairs = []
# -    for _ in range(repeats):
# +    for _ in range(warmup + repeats):
# @@
# -    return [start.elapsed_time(end) for start, end in pairs]
# +    return [start.elapsed_time(end) for start, end in pairs][warmup:]
# ```
#
# **alternative `sync-each`**: waits on each end event
# ```python
# def time_ms_cuda_events(fn, warmup=3, repeats=10) -> list:
#     for _ in range(warmup):
#         fn()
#     times = []
#     for _ in range(repeats):
#         start, end = torch.cuda.Event(enable_timing=True), torch.cuda.Event(enable_timing=True)
#         start.record()
#         fn()
#         end.record()
#         end.synchronize()
#         times.append(float(start.elapsed_time(end)))
#     return times
# ```
#
# **alternative `event-lists`**: events made up front, in lists named _starts/_ends
# ```python
# def time_ms_cuda_events(fn, warmup=3, repeats=10) -> list:
#     for _ in range(warmup):
#         fn()
#     _starts = [torch.cuda.Event(enable_timing=True) for _ in range(repeats)]
#     _ends = [torch.cuda.Event(enable_timing=True) for _ in range(repeats)]
#     for _s, _e in zip(_starts, _ends):
#         _s.record()
#         fn()
#         _e.record()
#     torch.cuda.synchronize()
#     return [_s.elapsed_time(_e) for _s, _e in zip(_starts, _ends)]
# ```
#
# **alternative `helper-pair`**: an own helper, a print
# ```python
# def _timed_once(fn):
#     begin = torch.cuda.Event(enable_timing=True)
#     finish = torch.cuda.Event(enable_timing=True)
#     begin.record()
#     fn()
#     finish.record()
#     return begin, finish
#
# def time_ms_cuda_events(fn, warmup=3, repeats=10) -> list:
#     for _ in range(warmup):
#         fn()
#     pairs = [_timed_once(fn) for _ in range(repeats)]
#     torch.cuda.synchronize()
#     print("timed", len(pairs), "calls")
#     return [b.elapsed_time(f) for b, f in pairs]
# ```
#
# **clauses of `time_ms_cuda_events`**
# - "Call fn() warmup times untimed": visible "fn must be called warmup + repeats times in all" by `events-no-warmup`
# - "Call fn() warmup times untimed": visible "record no event until the warm-up calls are done" by `events-around-warmup`
# - "then time repeats calls": visible "one duration per timed call (repeats of them)" by `events-time-warmup`
# - "with a pair of torch.cuda.Event(enable_timing=True) around each": visible "Record a start and an end torch.cuda.Event around every timed call" by `clock-not-events`
# - "torch.cuda.Event(enable_timing=True)": visible "A pair of torch.cuda.Event(enable_timing=True) around each timed call" by `no-enable-timing`
# - "around each": visible "record start just before fn() and end just after" by `end-before-fn`
# - "synchronize before elapsed_time": visible "Synchronize before elapsed_time" by `events-no-sync`
# - "synchronize before elapsed_time": allows `sync-each`, `event-lists`
# - "return a list of repeats floats": visible "Each duration is a float" by `events-rounded`
# - "in call order: each call's duration": visible "Return each call's own duration, in call order" by `reused-pair`
# - "in milliseconds": visible "keep elapsed_time's milliseconds as they are" by `events-to-seconds`

# %% id="s3-events"
from gpucourse.simdevice import Workload, simulated_accelerator

if DEVICE.type == "cuda" and needs("time_ms_cuda_events", "synchronize", "time_ms"):
    x = torch.randn(4096, 4096, device=DEVICE)
    def ten_matmuls():            # section 1's workload, so that its two timings and this one time the same work
        for _ in range(10):
            y = x @ x
        return y
    events = time_ms_cuda_events(ten_matmuls, warmup=3, repeats=10)
    clock = time_ms(ten_matmuls, DEVICE, warmup=3, repeats=10)
    print(f"REAL GPU, 10 matmuls of 4096x4096 float32: events median {statistics.median(events):.3f} ms, "
          f"synchronized perf_counter median {statistics.median(clock):.3f} ms")
    print(f"RESULT matmul_events_ms = {statistics.median(events):.3f} ms")
elif DEVICE.type != "cuda" and needs("time_ms_cuda_events"):
    with simulated_accelerator("cuda") as simulated:   # torch.cuda.* is the simulated device inside this block
        work = Workload(simulated, durations=[25.0, 35.0])
        events = time_ms_cuda_events(work, warmup=1, repeats=4)
        truth = work.true_ms(skip=1)
    print("SIMULATED device (fake torch.cuda.Event): events", [f"{t:.1f}" for t in events],
          "ms; the device spent", [f"{t:.1f}" for t in truth], "ms")

# %% [markdown] id="s4"
# ## 3. Device-to-host copies: `non_blocking` without a synchronize reads garbage
#
# From host to device, `non_blocking=True` is safe: the copy is queued in the same stream as the kernels that use it,
# so they wait for it. From **device to host** it is not: `y.to("cpu", non_blocking=True)` allocates a pinned host
# buffer, queues the copy and returns at once. The host can read that buffer before the copy has happened, and then
# reads whatever the memory held before. Synchronize before reading it.
#
# On a GPU the cell does it for real: it keeps the GPU busy, fills a tensor with ones behind that work, copies it to
# the host with `non_blocking=True` and reads the host copy before and after a synchronize. Without a GPU the same
# sequence runs on the simulated device (the host buffer starts at -1 so that stale data is visible).

# %% [markdown] id="myth-d2h"
# > **Myth vs. current PyTorch:** *"`non_blocking=True` is a free speed-up: add it to every `.to()`."* Host to device it
# > is safe, and it is honoured whether or not the memory is pinned (notebook 02). Device to host it returns before the
# > data has arrived (PyTorch allocates a pinned destination and queues the copy), so reading the result without a
# > `torch.cuda.synchronize()` (or an event's `synchronize()`) reads unfinished data. `loss.item()` and a plain
# > `.cpu()` are blocking, and safe. The next cell shows the hazard.

# %% id="s4-d2h"
if DEVICE.type == "cuda":
    src = torch.zeros(16 << 20, device=DEVICE)
    stale = src.to("cpu", non_blocking=True)       # a first copy fills the pinned-buffer cache with zeros,
    torch.cuda.synchronize()                       # so the copy below reuses a buffer and allocates nothing
    del stale
    if hasattr(torch.cuda, "_sleep"):
        torch.cuda._sleep(500_000_000)            # keep the GPU busy for a while (a private test helper)
    else:
        big = torch.randn(4096, 4096, device=DEVICE)
        for _ in range(20):
            big = big @ big / 4096
    src.fill_(1.0)                                 # queued behind the busy work
    host = src.to("cpu", non_blocking=True)        # queued too; returns at once
    early = host.sum().item()                      # reads the buffer now: the copy has not happened
    torch.cuda.synchronize()
    late = host.sum().item()
    print(f"REAL GPU: sum read before synchronize: {early:,.0f}; after: {late:,.0f} (correct: {src.numel():,})")
else:
    device_tensor = torch.arange(1.0, 9.0)         # "on the device"
    host = torch.full((8,), -1.0)                  # the pinned host buffer, holding stale data
    gpu_sim.copy_async(host, device_tensor, ms=50.0)   # like device_tensor.to("cpu", non_blocking=True)
    print("SIMULATED, read before synchronize:", host.tolist())
    gpu_sim.synchronize()
    print("SIMULATED, read after synchronize: ", host.tolist())

# %% [markdown] id="summary"
# ## Summary
#
# - GPU work is queued; host time without a synchronize measures the queueing, or, by accident, an implicit sync.
# - Time with `synchronize(device)` before reading the clock at **both** ends, after **warm-up** calls (`time_ms`),
#   and report the **median** and the spread of its durations, not one number or a mean. `gpucourse.timing` holds the same functions for the rest of the module.
# - CUDA events time on the device; synchronize before `elapsed_time`.
# - Device-to-host `non_blocking=True` needs a synchronize before the host reads the data.
