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
# A float32 number takes 4 bytes; float16 and bfloat16 take 2. Half the bytes means half the memory traffic, and on
# a GPU with tensor cores (a T4 has them) a float16 matrix multiply can run several times faster than a float32 one
# (NVIDIA's peak figures for a T4: 65 against 8.1 TFLOPS; section 4 measures yours). But some operations need the
# range and precision of float32. **Autocast** chooses per operation, from lists that differ by device: matrix
# multiplies in 16 bits and losses in float32 on both CUDA and the CPU; on CUDA also reductions and exponentials in
# float32, which CPU autocast leaves in their input's dtype (section 6). The weights themselves stay float32.
#
# **You will learn to**
# - read which dtype each operation of the MLP runs in under `torch.autocast`, on CUDA and on the CPU;
# - see that parameters and their gradients stay float32, and what the activations save in memory;
# - measure matrix-multiply throughput in float32, TF32 and float16 (on a GPU), and whether autocast speeds up a
#   whole training step (and why it may not);
# - recognise the deprecated `torch.cuda.amp` spelling and use its replacement;
# - write `amp_forward` and `output_dtypes`, and predict the dtypes of CUDA autocast's op lists.
#
# **Time:** about 30 minutes on a Colab T4, about 30 minutes on a laptop CPU.

# %% nbgrader={"grade": false, "grade_id": "setup", "locked": true, "schema_version": 3, "solution": false}
# The shared set-up: `python -m graders build` writes its install part above these lines.
from gpucourse.bootstrap import setup
DEVICE, QUICK = setup()
import torch
from gpucourse.checks import needs  # a demonstration that runs your answers waits until they are answered


# %% [markdown] id="recap"
# ## Recap: what this module builds on
#
# - **Module 5**: the Fashion-MNIST MLP `Flatten → Linear(784, 256) → ReLU → Linear(256, 10)` and cross-entropy.
# - **Module 6**: AdamW with a cosine schedule. **Notebook 01** of this module: `model.to(device)`, batches moved
#   to the device. **Notebook 03**: time GPU work only after a synchronize.
#
# Autocast needs to know the device *type* (`"cuda"` or `"cpu"`) and the low-precision dtype. On a GPU we use
# float16 (what a T4 computes fast); on a CPU, autocast's default, bfloat16 (notebook 06 explains the difference).

# %% id="amp-config"
import warnings
import matplotlib.pyplot as plt
import torch.nn.functional as F
from gpucourse.amp import OpDtypes, saved_tensor_bytes, short
from gpucourse.model import make_mlp

AMP_DEVICE = "cuda" if DEVICE.type == "cuda" else "cpu"
AMP_DTYPE = torch.float16 if AMP_DEVICE == "cuda" else torch.bfloat16
print(f"autocast here: device_type={AMP_DEVICE!r}, dtype={AMP_DTYPE}")
if AMP_DEVICE == "cpu":
    print("No CUDA GPU: the demonstrations run CPU autocast (bfloat16). Its op lists differ from CUDA's; "
          "where they do, the text says so.")

# %% [markdown] id="s1"
# ## 1. One forward pass, operation by operation
#
# `torch.autocast(device_type=..., dtype=...)` is a context manager. Inside it, every eligible operation looks up
# its device's lists in the
# [Autocast Op Reference](https://pytorch.org/docs/stable/amp.html#autocast-op-reference): run in the low-precision
# dtype (matmul, linear, convolutions), run in float32 (losses on both devices; on CUDA also softmax, `exp`, `log`
# and sums; on the CPU linear algebra and FFTs instead), or run in the widest input type. Operations on no list (ReLU, add) run in whatever dtype their inputs have.
#
# To see it, we record every low-level (aten) operation of one forward pass with a `TorchDispatchMode`. Autocast
# works *above* that level, so the recording shows what autocast decided, including the casts (`_to_copy`) it
# inserted.

# %% id="s1-table"
model = make_mlp().to(DEVICE)
x = torch.randn(64, 1, 28, 28, device=DEVICE)
y = torch.randint(0, 10, (64,), device=DEVICE)

with OpDtypes() as record, torch.autocast(device_type=AMP_DEVICE, dtype=AMP_DTYPE):
    loss = F.cross_entropy(model(x), y)

print(f"{'aten operation':<22}{'input dtypes':<42}output")
for op, inputs, out in record.rows:
    note = "   <- a cast inserted by autocast" if op == "_to_copy" else ""
    print(f"{op:<22}{', '.join(short(d) for d in inputs):<42}{short(out)}{note}")

# %% [markdown] id="s1-read"
# Read it from the top: the input and the weights are **cast copies** (`_to_copy` float32 → 16 bits), `addmm` (the
# `Linear` layer) runs in 16 bits, and ReLU simply follows its input. The loss differs by device. On the **CPU**,
# `cross_entropy` is on autocast's float32 list, so the logits are cast to float32 *before* `log_softmax`. On
# **CUDA**, `log_softmax` runs in 16 bits and only its output is cast to float32 for `nll_loss`: `cross_entropy` hands
# `log_softmax` an explicit dtype, and CUDA autocast's float32 rule for `log_softmax` does not apply to such a call.
# The loss is float32 on both; the table above shows which of the two ran here. The weights themselves were never
# changed: autocast casts *copies*, and caches them for the rest of the `with` block.

# %% [markdown] id="s2"
# ## 2. Parameters and their gradients stay float32
#
# Because autocast only casts copies, the model's parameters stay float32, and so do their gradients: the backward
# pass of each cast runs the cast in reverse. The optimizer therefore updates float32 **master weights**, which is
# what makes mixed precision *mixed*. Calling `model.half()` instead would store the weights in float16, where small
# updates vanish:

# %% id="s2-demo"
model = make_mlp().to(DEVICE)
with torch.autocast(device_type=AMP_DEVICE, dtype=AMP_DTYPE):
    logits = model(x)
    loss = F.cross_entropy(logits, y)
loss.backward()
print(f"logits: {short(logits.dtype)}, loss: {short(loss.dtype)}")
for name, p in model.named_parameters():
    print(f"  {name:<9} parameter {short(p.dtype)}, gradient {short(p.grad.dtype)}")

w = torch.tensor(1.0)
update = 1e-4                                   # a typical learning rate times a gradient
print("float32 weight after the update:", (w + update).item())
print("float16 weight after the update:", (w.half() + update).item(), "(the update vanished: eps of float16 is 2**-10)")

# %% [markdown] id="s3"
# ## 3. Where the memory goes: activations
#
# The weights of this MLP are small (about 0.8 MB). What grows with the batch are the **activations** autograd saves
# for the backward pass. Under autocast they are saved in 16 bits. We measure every tensor saved for backward with
# `torch.autograd.graph.saved_tensors_hooks`:

# %% id="s3-memory"
model = make_mlp().to(DEVICE)
xb = torch.randn(256, 1, 28, 28, device=DEVICE)
yb = torch.randint(0, 10, (256,), device=DEVICE)

def forward_fp32():
    F.cross_entropy(model(xb), yb)

def forward_amp():
    with torch.autocast(device_type=AMP_DEVICE, dtype=AMP_DTYPE):
        F.cross_entropy(model(xb), yb)

saved = {"float32": saved_tensor_bytes(forward_fp32), f"autocast {short(AMP_DTYPE)}": saved_tensor_bytes(forward_amp)}
for name, nbytes in saved.items():
    print(f"{name:<20} {nbytes / 2**20:6.2f} MiB saved for backward (batch 256)")

fig, ax = plt.subplots(figsize=(6, 2.6))
ax.barh(list(saved), [v / 2**20 for v in saved.values()], color=["tab:blue", "tab:orange"])
ax.set(xlabel="MiB saved for backward", title="activation memory of one training step, batch 256")
fig.tight_layout()
plt.show()

# %% [markdown] id="s3-read"
# About half. Not exactly half: the saved tensors include the 16-bit *copies* of the weights (the originals stay
# float32 as well), and the loss's float32 inputs. For a big network at a big batch, the activations dominate and the
# saving approaches 2×, which is what lets a larger batch or model fit on a 16 GB T4.

# %% [markdown] id="s4"
# ## 4. Matrix-multiply throughput: float32, TF32, float16
#
# The speed comes from tensor cores. A T4 does about 8.1 TFLOPS in float32 and 65 TFLOPS in float16 on tensor cores
# (NVIDIA's figures). **TF32** is a third option on Ampere and newer GPUs (compute capability ≥ 8.0): float32
# storage, but matmuls on tensor cores with a 10-bit mantissa. It is switched on with
# `torch.set_float32_matmul_precision("high")`; a T4 has no TF32, so there it changes nothing.
#
# We time a square matmul after a synchronize at both ends (notebook 03) and convert to TFLOPS (2n³ operations).
# Every figure is timed in three rounds, taken in turn, and the cell prints their spread: the course reads a ratio as
# faster or slower only when it is further from 1 than its rounds are from each other (and never within 10 % of 1).

# %% id="s4-throughput"
from gpucourse.readings import Ratio, in_rounds, median, read_matmul_speedup   # reads a speed-up, chosen from it
from gpucourse.timing import median_ms

def matmul_tflops(n, dtype, device, repeats, precision="highest"):
    """A measurement to call once per round: the TFLOPS of an n x n matmul (median of `repeats` timed calls)."""
    a = torch.randn(n, n, device=device, dtype=dtype)
    b = torch.randn(n, n, device=device, dtype=dtype)
    def measure():
        torch.set_float32_matmul_precision(precision)    # "high" allows TF32 where the GPU has it
        try:
            ms = median_ms(lambda: a @ b, device, warmup=2, repeats=repeats)
        finally:
            torch.set_float32_matmul_precision("highest")
        return 2 * n**3 / (ms / 1e3) / 1e12      # TFLOPS
    return measure

# Each figure is timed in 3 interleaved rounds: a ratio counts as faster or slower only outside its rounds' spread.
if DEVICE.type == "cuda":
    n = 2048 if QUICK else 4096
    results = in_rounds({"float32": matmul_tflops(n, torch.float32, DEVICE, 10),
                         "TF32": matmul_tflops(n, torch.float32, DEVICE, 10, precision="high"),
                         "float16": matmul_tflops(n, torch.float16, DEVICE, 10)})
    major, minor = torch.cuda.get_device_capability()
    if (major, minor) < (8, 0):
        print(f"compute capability {major}.{minor}: no TF32 here, so TF32 and float32 should match.")
else:
    n = 256 if QUICK else 1024
    print("Tensor-core throughput is GPU-only; this machine has no CUDA GPU. Measured instead, honestly:")
    print("the CPU's own float32 and bfloat16 matmul (a CPU without bf16 instructions is *slower* in bf16).")
    results = in_rounds({"CPU float32": matmul_tflops(n, torch.float32, DEVICE, 5),
                         "CPU bfloat16": matmul_tflops(n, torch.bfloat16, DEVICE, 5)})
unit, factor = ("TFLOPS", 1) if DEVICE.type == "cuda" else ("GFLOPS", 1e3)
for name, rounds in results.items():
    print(f"{name:<14} {median(rounds) * factor:8.2f} {unit}   (n = {n}; median of {len(rounds)} rounds, "
          f"{min(rounds) * factor:.2f} to {max(rounds) * factor:.2f})")
if DEVICE.type == "cuda":
    matmul_speedup = Ratio.between(results["float16"], results["float32"])   # section 8 reads the step against it
    print(read_matmul_speedup(matmul_speedup, "float16", "cuda"))
    print(f"RESULT matmul_tflops_fp32 = {median(results['float32']):.2f} TFLOPS")
    print(f"RESULT matmul_tflops_tf32 = {median(results['TF32']):.2f} TFLOPS")
    print(f"RESULT matmul_tflops_fp16 = {median(results['float16']):.2f} TFLOPS")
else:
    matmul_speedup = Ratio.between(results["CPU bfloat16"], results["CPU float32"])
    print(read_matmul_speedup(matmul_speedup, "bfloat16", "cpu"))

fig, ax = plt.subplots(figsize=(6, 2.6))
ax.barh(list(results), [median(v) * factor for v in results.values()], color="tab:purple")
ax.set(xlabel=f"{unit} (measured, median of {len(next(iter(results.values())))} rounds)",
       title=f"{n}x{n} matmul on {DEVICE.type}")
fig.tight_layout()
plt.show()

# %% [markdown] id="s5"
# ## 5. The old spelling: `torch.cuda.amp`
#
# Most tutorials and code bases you will meet were written with `torch.cuda.amp.autocast()` and
# `torch.cuda.amp.GradScaler()`. They still run, but print a warning.
#
# > **Myth vs. current PyTorch:** "`torch.cuda.amp.autocast` and `torch.cuda.amp.GradScaler` are *the* AMP API."
# > They have been **deprecated since PyTorch 2.4** (a `FutureWarning`). The current API is device-generic:
# > `torch.autocast(device_type="cuda", dtype=torch.float16)` and `torch.amp.GradScaler("cuda")`; the same two work
# > on the CPU with `"cpu"` (`GradScaler("cpu")` exists since 2.3).
#
# Here it is, once, with every warning it prints (on a machine without CUDA there are extra ones: the old API then
# disables itself, and says so in a warning of its own).

# %% id="s5-deprecated"
with warnings.catch_warnings(record=True) as caught:
    warnings.simplefilter("always")
    with torch.cuda.amp.autocast():          # old code, as you will find it
        pass
    old_scaler = torch.cuda.amp.GradScaler()
for w in caught:
    print(f"{w.category.__name__}: {w.message}")

# %% id="s5-current"
# The replacement: the same two objects, device-generic.
with torch.autocast(device_type=AMP_DEVICE, dtype=AMP_DTYPE):
    out = make_mlp().to(DEVICE)(x)
scaler = torch.amp.GradScaler(AMP_DEVICE)
print("torch.autocast is torch.amp.autocast:", torch.autocast is torch.amp.autocast)
print(f"output {short(out.dtype)}; GradScaler({AMP_DEVICE!r}) enabled: {scaler.is_enabled()}")


# %% [markdown] id="ex1"
# ## Exercise 1: `amp_forward` (3 points)
#
# Write `amp_forward(model, x, y, criterion, device_type, dtype)` that runs the forward pass **and** the loss under
# `torch.autocast(device_type=device_type, dtype=dtype)` and returns `(logits, loss)`:
#
# - the model's matrix multiplies run in `dtype`, so `logits` come out in `dtype` (for a model ending in a `Linear`);
# - the loss is whatever `criterion` returns under autocast (float32 for cross-entropy), still attached to the graph
#   so that `loss.backward()` works;
# - the model's parameters are untouched: still float32, same values. Do **not** call `model.half()`;
# - autocast is off again when the function returns.

# %% nbgrader={"grade": false, "grade_id": "amp_forward", "locked": false, "schema_version": 3, "solution": true}
def amp_forward(model, x, y, criterion, device_type, dtype):
    """Forward pass and loss under torch.autocast(device_type=device_type, dtype=dtype).

    Returns (logits, loss): the model's matmuls run in dtype, so the logits are in dtype; the loss
    is criterion(logits, y) as computed under autocast (float32 for cross-entropy), differentiable.
    The model's parameters are not modified (still float32); autocast is off again on return."""
    ### BEGIN SOLUTION
    with torch.autocast(device_type=device_type, dtype=dtype):
        logits = model(x)
        loss = criterion(logits, y)
    return logits, loss
    ### END SOLUTION


# %% nbgrader={"grade": true, "grade_id": "test_amp_forward", "locked": true, "points": 3, "schema_version": 3, "solution": false}
import copy
import warnings
from gpucourse.amp import OpDtypes
from gpucourse.checks import Check

# The domain the docstring states: models of the kinds the course builds, ending in a Linear (dropout and BatchNorm
# too, in training or eval mode), float16 and bfloat16, any criterion (cross-entropy, summed, MSE on float targets,
# one that autocast leaves in 16 bits), batches of 2 to 8.
from hypothesis import strategies as st
from gpucourse import domains
from gpucourse.contract import snapshot

def record_forwards(module, inputs, output):
    """A forward hook: each call of the model appends (autocast on?, autocast's dtype, the output) to model.seen."""
    module.seen.append((torch.is_autocast_enabled("cpu"), torch.get_autocast_dtype("cpu"), output))

CRITERIA = (torch.nn.CrossEntropyLoss(), torch.nn.CrossEntropyLoss(reduction="sum"), torch.nn.MSELoss(),
            lambda logits, target: -logits.gather(1, target[:, None]).mean())   # stays 16-bit under autocast
#: (model, training, dtype, criterion, batch size, seed)
amp_cases = st.tuples(st.integers(0, 3), st.booleans(), st.sampled_from([torch.float16, torch.bfloat16]),
                      st.integers(0, len(CRITERIA) - 1), st.integers(2, 8), st.integers(0, 2**16))

def amp_covering():
    """A fixed sample, made anew for each property: every model in both modes, both dtypes, every criterion."""
    return [(m, training, dtype, (m + 2 * training + k) % len(CRITERIA), 2 + m, 10 * m + k)
            for m in range(4) for training in (True, False) for k, dtype in enumerate((torch.float16, torch.bfloat16))]

def amp_call(case):
    """(model, x, y, criterion, "cpu", dtype) of a case, fresh and the same every time; the model records its
    forwards in model.seen."""
    m, training, dtype, crit, n, seed = case
    model = domains.model_cases(in_features=5, classes=3)[m].train(training)
    model.seen = []
    model.register_forward_hook(record_forwards)
    x, y = domains.batches([n], in_features=5, classes=3, seed=seed)[0]
    if crit == 2:   # MSE: a float target of the logits' shape
        y = torch.randn(n, 3, generator=torch.Generator().manual_seed(seed))
    return model, x, y, CRITERIA[crit], "cpu", dtype

def one_forward_under_autocast(case):
    """One forward under autocast with dtype; the logits are its output, in dtype; the loss is criterion(logits, y)
    as autocast computes it (its dtype too), differentiable; the model as it was (mode, float32 parameters)."""
    args = amp_call(case)
    model, x, y, criterion, device_type, dtype = args
    modes = [mod.training for mod in model.modules()]
    params = [snapshot(p) for p in model.parameters()]
    logits, loss = amp_forward(*args)
    if len(model.seen) != 1 or model.seen[0][:2] != (True, dtype):
        return False
    with torch.autocast(device_type=device_type, dtype=dtype):
        due = criterion(logits.detach(), y)
    eps = torch.finfo(due.dtype).eps
    return (logits.dtype == dtype and torch.equal(logits, model.seen[0][2]) and loss.dtype == due.dtype
            and torch.allclose(loss.detach(), due, rtol=4 * eps, atol=4 * eps) and loss.requires_grad
            and [mod.training for mod in model.modules()] == modes
            and [snapshot(p) for p in model.parameters()] == params
            and all(p.dtype == torch.float32 for p in model.parameters()))

def inputs_unchanged(case):
    model, x, y, criterion, device_type, dtype = amp_call(case)
    inputs = (x, y)
    before = snapshot(inputs)
    amp_forward(model, x, y, criterion, device_type, dtype)
    return snapshot(inputs) == before

def error_passes(case):
    """An exception the criterion raises (inside the autocast block) reaches the caller as the same object, and
    autocast is off again."""
    model, x, y, _, device_type, dtype = amp_call(case)
    raised = ArithmeticError("the criterion failed")

    def failing_criterion(logits, target):
        raise raised

    try:
        amp_forward(model, x, y, failing_criterion, device_type, dtype)
    except Exception as error:  # the student's code may raise anything: what it is is the finding
        return error is raised and not torch.is_autocast_enabled(device_type)
    return False

with Check("amp_forward") as check, warnings.catch_warnings():
    warnings.simplefilter("ignore")
    model = torch.nn.Sequential(torch.nn.Linear(6, 8), torch.nn.ReLU(), torch.nn.Linear(8, 3))
    x, y = torch.randn(5, 6), torch.randint(0, 3, (5,))
    before = copy.deepcopy(model.state_dict())
    with OpDtypes() as ops:
        result = check.call(amp_forward, model, x, y, torch.nn.CrossEntropyLoss(), "cpu", torch.bfloat16)
    check.that(isinstance(result, tuple) and len(result) == 2, "Return a tuple (logits, loss).")
    logits, loss = result
    check.that(logits.shape == (5, 3) and loss.dim() == 0,
               "Returns (logits, loss) in that order: the logits of shape (batch, classes), then the scalar loss.")
    check.that(any(op in ("addmm", "mm") and out == torch.bfloat16 for op, _, out in ops.rows),
               "The model's matmuls run in dtype: "
               "run model(x) inside torch.autocast(device_type=device_type, dtype=dtype), "
               "do not cast a float32 result afterwards.")
    check.equal(logits.dtype, torch.bfloat16, "The logits must come out of autocast in the low-precision dtype.")
    check.equal(loss.dtype, torch.float32,
                "Compute the loss inside the autocast block too: cross-entropy runs in float32 there.")
    check.that(all(p.dtype == torch.float32 for p in model.parameters()),
               "The parameters must stay float32: autocast casts copies. Never call model.half().")
    check.that(all(torch.equal(before[k], v) for k, v in model.state_dict().items()),
               "The model's parameters are not modified: do not change the parameters.")
    check.close(loss.detach(), torch.nn.functional.cross_entropy(logits.detach().float(), y),
                "The loss must be the criterion applied to the logits you return.", rel=1e-3, abs_=1e-3)
    check.that(loss.requires_grad, "The loss must stay attached to the graph (no torch.no_grad): "
               "loss.backward() has to work.")
    check.that(not torch.is_autocast_enabled("cpu"),
               "Leave autocast off on return: use torch.autocast as a with block.")
    summed = torch.nn.CrossEntropyLoss(reduction="sum")       # another criterion: the loss is the one given
    sum_logits, sum_loss = check.call(amp_forward, model, x, y, summed, "cpu", torch.bfloat16)
    check.close(sum_loss.detach(), summed(sum_logits.detach().float(), y),
                "The loss is criterion(logits, y): use the criterion you are given (here a summed cross-entropy).",
                rel=1e-3, abs_=1e-3)
    half_logits, _ = check.call(amp_forward, model, x, y, torch.nn.CrossEntropyLoss(), "cpu", torch.float16)
    check.equal(half_logits.dtype, torch.float16, "Pass dtype on to torch.autocast: with torch.float16 the logits "
                "must be float16 (CPU autocast's default would be bfloat16).")
    # the whole contract, over its domain (see amp_cases and amp_covering above)
    check.forall(amp_cases, one_forward_under_autocast, "One forward pass under torch.autocast(device_type="
                 "device_type, dtype=dtype): the logits are its output (in dtype), the loss is criterion(logits, y) as "
                 "computed under autocast (in the dtype autocast gives it), differentiable, and the model is left as "
                 "it was (its mode, its float32 parameters): for any model (dropout and BatchNorm too, in training or "
                 "eval mode), dtype and criterion.", examples=10, cases=amp_covering())
    check.forall(amp_cases, inputs_unchanged, "x and y are not modified.", examples=5, cases=amp_covering()[::4])
    check.forall(amp_cases, error_passes, "When the criterion raises, its exception reaches the caller as it is (the "
                 "same object), and autocast is off again.", examples=0, cases=amp_covering()[::4])

### BEGIN HIDDEN TESTS
from gpucourse.checks import requirement as _requirement

def _reference_amp(model, x, y, criterion, device_type, dtype):
    with torch.autocast(device_type=device_type, dtype=dtype):
        out = model(x)
        return out, criterion(out, y)

with warnings.catch_warnings():
    warnings.simplefilter("ignore")
    _cases = [("cpu", torch.bfloat16), ("cpu", torch.float16)]
    if torch.cuda.is_available():
        _cases += [("cuda", torch.float16)]
    for _device_type, _dtype in _cases:
        for _trial in range(2):
            _d, _h, _k, _n = [int(v) for v in torch.randint(3, 17, (4,))]
            _model = torch.nn.Sequential(torch.nn.Linear(_d, _h), torch.nn.ReLU(),
                                         torch.nn.Linear(_h, _k)).to(_device_type)
            _x = torch.randn(_n, _d, device=_device_type) * 3
            _y = torch.randint(0, _k, (_n,), device=_device_type)
            _before = copy.deepcopy(_model.state_dict())
            _crit = torch.nn.CrossEntropyLoss()
            with OpDtypes() as _record:
                _logits, _loss = amp_forward(_model, _x, _y, _crit, _device_type, _dtype)
            with _requirement(f"the matrix multiplies run in {_dtype} under {_device_type} autocast"):
                assert any(op in ("addmm", "mm", "matmul", "linear") and out == _dtype
                           for op, _, out in _record.rows), "no matmul ran in that dtype"
            with _requirement(f"logits in {_dtype}, loss as cross-entropy gives it under autocast (float32)"):
                assert _logits.dtype == _dtype, f"logits are {_logits.dtype}"
                assert _loss.dtype == torch.float32, f"the loss is {_loss.dtype}"
                assert _logits.shape == (_n, _k), f"logits of shape {tuple(_logits.shape)}, expected {(_n, _k)}"
            with _requirement("the parameters stay float32 and unchanged"):
                assert all(p.dtype == torch.float32 for p in _model.parameters()), "a parameter is not float32"
                assert all(torch.equal(_before[k], v) for k, v in _model.state_dict().items()), "a parameter changed"
            _rl, _rloss = _reference_amp(_model, _x, _y, _crit, _device_type, _dtype)
            with _requirement("the logits and loss are autocast's"):
                assert torch.allclose(_logits.float(), _rl.float(), rtol=1e-2, atol=1e-2), "logits differ"
                assert torch.allclose(_loss.detach(), _rloss.detach(), rtol=1e-3, atol=1e-3), \
                    f"loss {_loss.item()}, expected {_rloss.item()}"
            with _requirement("the loss is differentiable and its gradients reach the float32 parameters"):
                assert _loss.requires_grad, "the loss is detached from the graph"
                _loss.backward()
                assert all(p.grad is not None and p.grad.dtype == torch.float32 for p in _model.parameters())
            with _requirement("autocast is off again on return"):
                assert not torch.is_autocast_enabled(_device_type)
    # a criterion that is not cross-entropy: mse_loss between logits and a target
    _model = torch.nn.Linear(4, 2)
    _x, _t = torch.randn(7, 4), torch.randn(7, 2)
    with _requirement("the loss is criterion(logits, y) under autocast, for any criterion (here MSELoss)"):
        _logits, _loss = amp_forward(_model, _x, _t, torch.nn.MSELoss(), "cpu", torch.bfloat16)
        _rl, _rloss = _reference_amp(_model, _x, _t, torch.nn.MSELoss(), "cpu", torch.bfloat16)
        assert _logits.dtype == torch.bfloat16 and _loss.dtype == _rloss.dtype, f"loss {_loss.dtype}"
        assert torch.allclose(_loss.detach().float(), _rloss.detach().float(), rtol=1e-3, atol=1e-3), \
            f"loss {_loss.item()}, expected {_rloss.item()}"
    from gpucourse.contract import for_all as _for_all

    def _covering():
        return amp_covering() + [(m, training, dtype, crit, 2, 7 * m + crit) for m in range(4)
                                 for training in (True, False) for dtype in (torch.float16, torch.bfloat16)
                                 for crit in range(len(CRITERIA))]

    with _requirement("amp_forward keeps its contract for any model of the course's kinds (dropout and BatchNorm "
                      "too, in training or eval mode), float16 and bfloat16, and any criterion"):
        _for_all(amp_cases, one_forward_under_autocast, "one forward under autocast with dtype, its output as the "
                 "logits, criterion(logits, y) as autocast computes it, differentiable, the model as it was",
                 examples=100, cases=_covering())
        _for_all(amp_cases, inputs_unchanged, "x and y not modified", examples=20, cases=_covering()[::5])
        _for_all(amp_cases, error_passes, "the criterion's exception reaches the caller as the same object, autocast "
                 "off", examples=10, cases=_covering()[::8])
### END HIDDEN TESTS

# %% [markdown] fixtures="amp_forward"
# ### Mistakes and correct alternatives for `amp_forward` (author-only: in no generated notebook)
#
# **mistake `model-half`**, sample, loses `test_amp_forward`: converts the model itself to 16 bits instead of autocasting
# ```diff
# @@
# -    with torch.autocast(device_type=device_type, dtype=dtype):
# -        logits = model(x)
# -        loss = criterion(logits, y)
# -    return logits, loss
# +    model.to(dtype)
# +    logits = model(x.to(dtype))
# +    return logits, criterion(logits.float(), y)
# ```
#
# **mistake `half-then-restore`**, loses `test_amp_forward`: rounds the weights to 16 bits and back: parameters changed
# ```diff
# @@
# +    model.to(dtype)
#      with torch.autocast(device_type=device_type, dtype=dtype):
# @@
#          loss = criterion(logits, y)
# +    model.float()
# ```
#
# **mistake `loss-outside`**, loses `test_amp_forward`: computes the loss outside autocast, in 16 bits
# ```diff
# @@
# -        loss = criterion(logits, y)
# -    return logits, loss
# +    return logits, criterion(logits, y)
# ```
#
# **mistake `hardcoded-cuda`**, loses `test_amp_forward`: ignores device_type: on a CPU autocast is disabled
# ```diff
# @@
# -    with torch.autocast(device_type=device_type, dtype=dtype):
# +    with torch.autocast(device_type="cuda", dtype=dtype):
# ```
#
# **mistake `default-dtype`**, loses `test_amp_forward`: ignores dtype and gets the device's default
# ```diff
# @@
# -    with torch.autocast(device_type=device_type, dtype=dtype):
# +    with torch.autocast(device_type=device_type):
# ```
#
# **mistake `float-logits`**, loses `test_amp_forward`: casts the logits back to float32
# ```diff
# @@
# -        logits = model(x)
# +        logits = model(x).float()
# ```
#
# **mistake `cast-output`**, loses `test_amp_forward`: computes in float32 and casts the result: no autocast at all
# ```diff
# @@
# -    with torch.autocast(device_type=device_type, dtype=dtype):
# -        logits = model(x)
# -        loss = criterion(logits, y)
# -    return logits, loss
# +    logits = model(x)
# +    return logits.to(dtype), criterion(logits, y)
# ```
#
# **mistake `no-grad`**, loses `test_amp_forward`: runs without autograd: the loss cannot be backpropagated
# ```diff
# @@
# -    with torch.autocast(device_type=device_type, dtype=dtype):
# +    with torch.no_grad(), torch.autocast(device_type=device_type, dtype=dtype):
# ```
#
# **mistake `swapped-return`**, loses `test_amp_forward`: returns (loss, logits), the other order
# ```diff
# @@
# -    return logits, loss
# +    return loss, logits
# ```
#
# **mistake `cross-entropy-always`**, loses `test_amp_forward`: computes cross-entropy whatever criterion it is given
# ```diff
# @@
# -        loss = criterion(logits, y)
# +        loss = torch.nn.functional.cross_entropy(logits, y)
# ```
#
# **mistake `autocast-left-on`**, loses `test_amp_forward`: enters autocast by hand and never leaves it
# ```diff
# @@
# -    with torch.autocast(device_type=device_type, dtype=dtype):
# -        logits = model(x)
# -        loss = criterion(logits, y)
# +    torch.autocast(device_type=device_type, dtype=dtype).__enter__()
# +    logits = model(x)
# +    loss = criterion(logits, y)
# ```
#
# **alternative `amp-autocast`**: torch.amp.autocast, locals named _logits/_loss
# ```python
# def amp_forward(model, x, y, criterion, device_type, dtype):
#     with torch.amp.autocast(device_type, dtype=dtype, enabled=True):
#         _logits = model(x)
#         _loss = criterion(_logits, y)
#     return (_logits, _loss)
# ```
#
# **alternative `context-object`**: enters and exits the context by hand
# ```python
# def amp_forward(model, x, y, criterion, device_type, dtype):
#     ctx = torch.autocast(device_type=device_type, dtype=dtype)
#     ctx.__enter__()
#     try:
#         out = model(x)
#         loss = criterion(out, y)
#     finally:
#         ctx.__exit__(None, None, None)
#     return out, loss
# ```
#
# **alternative `inner-return`**: returns from inside the block, positional arguments, a warning
# ```python
# import warnings
#
# def amp_forward(model, x, y, criterion, device_type, dtype):
#     if dtype not in (torch.float16, torch.bfloat16):
#         warnings.warn(f"autocast to {dtype} is unusual")
#     with torch.autocast(device_type, dtype):
#         logits = model(x)
#         return logits, criterion(logits, y)
# ```
#
# **clauses of `amp_forward`**
# - "Forward pass": visible "run model(x) inside torch.autocast(device_type=device_type, dtype=dtype)" by `cast-output`
# - "and loss under torch.autocast": visible "Compute the loss inside the autocast block too" by `loss-outside`
# - "torch.autocast(device_type=device_type": visible "inside torch.autocast(device_type=device_type" by `hardcoded-cuda`
# - "dtype=dtype).": visible "Pass dtype on to torch.autocast" by `default-dtype`
# - "torch.autocast(device_type=device_type, dtype=dtype).": allows `amp-autocast`, `context-object`, `inner-return`
# - "Returns (logits, loss)": visible "Returns (logits, loss) in that order" by `swapped-return`
# - "the model's matmuls run in dtype": visible "The model's matmuls run in dtype" by `cast-output`
# - "so the logits are in dtype": visible "The logits must come out of autocast in the low-precision dtype" by `float-logits`
# - "the loss is criterion(logits, y)": visible "The loss is criterion(logits, y): use the criterion you are given" by `cross-entropy-always`
# - "as computed under autocast (float32 for cross-entropy)": visible "cross-entropy runs in float32 there" by `loss-outside`
# - "differentiable.": visible "The loss must stay attached to the graph" by `no-grad`
# - "The model's parameters are not modified": visible "The model's parameters are not modified" by `half-then-restore`
# - "(still float32)": visible "The parameters must stay float32" by `model-half`
# - "autocast is off again on return.": visible "Leave autocast off on return" by `autocast-left-on`

# %% [markdown] id="ex2"
# ## Exercise 2: `output_dtypes` (4 points)
#
# Write `output_dtypes(model, x, device_type, dtype)` that runs `model(x)` once under autocast and returns, for every
# **leaf** module (a module without children) that runs, the dtype of its output: `{name: dtype}`.
#
# - `name` is the module's name as `model.named_modules()` gives it (`"0"`, `"body.1"`, ...); a model that is itself
#   a leaf has the name `""`. Leaves that do not run in this forward pass are left out.
# - The entries are in the order the leaves ran (a dict keeps the order you insert in: do not sort it).
# - Record the dtypes with **forward hooks** (`module.register_forward_hook(hook)`, where `hook(module, inputs, output)`
#   is called after each forward), and **remove** every hook you added before returning (`handle.remove()`), even if
#   the forward pass raises: hooks left behind would fire in every later forward pass. If `model(x)` raises, let the
#   exception reach the caller. Hooks the model already had must stay, and autocast is off again afterwards.
# - A leaf that runs more than once in the forward pass (one module called twice), or whose output is not a tensor
#   (a tuple), is outside this exercise: record what you like for it, no check uses one.

# %% nbgrader={"grade": false, "grade_id": "output_dtypes", "locked": false, "schema_version": 3, "solution": true}
def output_dtypes(model, x, device_type, dtype):
    """{name: output dtype} of every leaf module of model that runs in one forward pass of x under
    torch.autocast(device_type=device_type, dtype=dtype).

    Names as model.named_modules() gives them ("" for a model that is itself a leaf); leaves that do
    not run are left out; entries in the order the leaves ran. Recorded with forward hooks, every
    one of them removed before returning, also when model(x) raises (the exception propagates);
    hooks the model already had stay; autocast is off again afterwards. A leaf that runs more than
    once, or whose output is not a tensor, is outside this contract: record what you like for it."""
    ### BEGIN SOLUTION
    dtypes = {}
    handles = []
    for name, module in model.named_modules():
        if next(module.children(), None) is None:          # a leaf
            def hook(mod, inputs, output, name=name):
                dtypes[name] = output.dtype
            handles.append(module.register_forward_hook(hook))
    try:
        with torch.no_grad(), torch.autocast(device_type=device_type, dtype=dtype):
            model(x)
    finally:
        for handle in handles:
            handle.remove()
    return dtypes
    ### END SOLUTION


# %% nbgrader={"grade": true, "grade_id": "test_output_dtypes", "locked": true, "points": 4, "schema_version": 3, "solution": false}
import warnings
from gpucourse.checks import Check

def _hook_count(model):
    from torch.nn.modules import module as _module
    return (sum(len(m._forward_hooks) + len(m._forward_pre_hooks) for m in model.modules())
            + len(_module._global_forward_hooks) + len(_module._global_forward_pre_hooks))

class _Upcast(torch.nn.Module):
    """A leaf whose output dtype (float32) is not its input's (bfloat16 under autocast)."""
    def forward(self, inputs):
        return inputs.float()


class _Probe(torch.nn.Module):
    """Leaves defined in one order, run in another; one nested; one that never runs."""
    def __init__(self):
        super().__init__()
        self.proj = torch.nn.Linear(12, 6)
        self.block = torch.nn.Sequential(torch.nn.ReLU(), torch.nn.Linear(6, 2))
        self.spare = torch.nn.Linear(2, 2)        # never runs
        self.flat = torch.nn.Flatten()
        self.up = _Upcast()
    def forward(self, inputs):
        return self.up(self.block(self.proj(self.flat(inputs))))

# The domain the docstring states: models built of leaves of many kinds (Linear, activations, Dropout, BatchNorm,
# LayerNorm, Flatten, Identity), nested in Sequentials and in blocks of their own, a model that is itself a leaf,
# leaves that never run or run in another order than they are defined, one leaf under two names, hooks of the
# model's own, in training or eval mode; float16 and bfloat16. Each leaf logs what it ran, so the models themselves
# say what the answer must report.
from hypothesis import strategies as st
from gpucourse import contract

LOG = []

def logged(cls):
    """cls as a leaf that logs each forward: itself, its output dtype, and the autocast state it ran under."""
    class Logged(cls):
        def forward(self, *inputs):
            out = super().forward(*inputs)
            LOG.append((self, out.dtype, torch.is_autocast_enabled("cpu"), torch.get_autocast_dtype("cpu")))
            return out
    Logged.__name__ = Logged.__qualname__ = cls.__name__
    return Logged

LLinear, LReLU, LGELU, LDropout, LBatchNorm, LLayerNorm, LFlatten, LIdentity = map(logged, (
    torch.nn.Linear, torch.nn.ReLU, torch.nn.GELU, torch.nn.Dropout, torch.nn.BatchNorm1d, torch.nn.LayerNorm,
    torch.nn.Flatten, torch.nn.Identity))

class Block(torch.nn.Module):
    """A block of its own: a module with children, so not a leaf."""
    def __init__(self, d, h):
        super().__init__()
        self.fc, self.act, self.norm = LLinear(d, h), LGELU(), LLayerNorm(h)

    def forward(self, inputs):
        return self.norm(self.act(self.fc(inputs)))

class Reordered(torch.nn.Module):
    """Leaves defined in one order and run in another; one never runs; one leaf under two names."""
    def __init__(self, d, h, k):
        super().__init__()
        self.head = LLinear(h, k)
        self.spare = LLinear(k, k)              # never runs
        self.act = LReLU()
        self.alias = self.act                   # the same leaf, a second name: named_modules() gives "act"
        self.stem = torch.nn.Sequential(LFlatten(), Block(d, h))

    def forward(self, inputs):
        return self.head(self.alias(self.stem(inputs)))

class Raising(torch.nn.Module):
    """A leaf that raises its own exception object."""
    def forward(self, inputs):
        self.error = ValueError("this leaf fails")
        raise self.error

#: (model, training, dtype, batch size, seed)
leaf_cases = st.tuples(st.integers(0, 3), st.booleans(), st.sampled_from([torch.float16, torch.bfloat16]),
                       st.integers(2, 5), st.integers(0, 2**16))

def leaf_covering():
    """A fixed sample, made anew for each property: every model in both modes and both dtypes."""
    return [(kind, training, dtype, 2 + kind, kind) for kind in range(4) for training in (True, False)
            for dtype in (torch.float16, torch.bfloat16)]

def leaf_call(case):
    """(model, x, calls): a fresh model of the case, with a forward hook and a forward pre-hook of its own on its
    first leaf, each appending to calls when it fires."""
    kind, training, dtype, n, seed = case
    d, h, k = 4, 6, 3
    with torch.random.fork_rng(devices=[]):
        torch.manual_seed(seed)
        model = [lambda: LLinear(d, k),
                 lambda: torch.nn.Sequential(LFlatten(), LLinear(d, h), LReLU(), LDropout(0.5), LLinear(h, k)),
                 lambda: torch.nn.Sequential(LLinear(d, h), LBatchNorm(h), LIdentity(), LLinear(h, k)),
                 lambda: Reordered(d, h, k)][kind]().train(training)
        x = torch.randn(n, d)
    calls = []
    first = next(m for m in model.modules() if next(m.children(), None) is None)
    first.register_forward_hook(lambda module, inputs, output: calls.append("hook"))
    first.register_forward_pre_hook(lambda module, inputs: calls.append("pre-hook"))
    return model, x, calls

def hooks_of(model):
    from torch.nn.modules import module as torch_module
    return ([(len(m._forward_hooks), len(m._forward_pre_hooks)) for m in model.modules()],
            len(torch_module._global_forward_hooks), len(torch_module._global_forward_pre_hooks))

def reports_what_ran(case):
    """One forward pass under autocast with dtype; one entry per leaf that ran (as the leaves themselves logged it),
    named as named_modules() names it, in the order they ran, with the dtype its forward returned."""
    model, x, calls = leaf_call(case)
    names = {id(m): name for name, m in model.named_modules()}
    LOG.clear()
    got = output_dtypes(model, x, "cpu", case[2])
    ran = list(LOG)
    return (isinstance(got, dict) and calls == ["pre-hook", "hook"] and len({id(e[0]) for e in ran}) == len(ran)
            and all(on and low == case[2] for _, _, on, low in ran)
            and list(got.items()) == [(names[id(leaf)], out) for leaf, out, _, _ in ran])

def model_as_found(case):
    """The model comes back as it was: its own hooks (and only those) still there and firing, every module in the
    mode it was in, the same parameters."""
    model, x, calls = leaf_call(case)
    before = (hooks_of(model), [m.training for m in model.modules()],
              [contract.snapshot(p) for p in model.parameters()])
    output_dtypes(model, x, "cpu", case[2])
    after = (hooks_of(model), [m.training for m in model.modules()],
             [contract.snapshot(p) for p in model.parameters()])
    calls.clear()
    model(x)
    return before == after and calls == ["pre-hook", "hook"]

def leaf_error_passes(case):
    """When model(x) raises, the exception reaches the caller as it is (the same object), every hook added is
    removed, and autocast is off again."""
    model, x, calls = leaf_call(case)
    failing = torch.nn.Sequential(model, Raising())
    before = hooks_of(failing)
    try:
        output_dtypes(failing, x, "cpu", case[2])
    except Exception as error:  # the student's code may raise anything: what it is is the finding
        return (error is getattr(failing[1], "error", None) and hooks_of(failing) == before
                and not torch.is_autocast_enabled("cpu"))
    return False

with Check("output_dtypes") as check, warnings.catch_warnings():
    warnings.simplefilter("ignore")
    probe = _Probe()
    calls = []
    own = probe.proj.register_forward_hook(lambda module, inputs, output: calls.append(output.shape))
    got = check.call(output_dtypes, probe, torch.randn(3, 3, 4), "cpu", torch.bfloat16)
    check.that(isinstance(got, dict), "Return a dict {module name: dtype}.")
    check.equal(len(calls), 1, "Run model(x) once: one forward pass of x (the model's own hook fired more often)")
    modules = dict(probe.named_modules())
    check.that(all(name in modules for name in got),
               "Names as model.named_modules() gives them, e.g. \"block.1\" (got " + ", ".join(map(repr, got)) + ")")
    check.that(set(got) >= {"flat", "proj", "block.0", "block.1", "up"} and not {"", "block"} & set(got),
               "Every leaf module that runs, nested leaves too, no containers")
    check.that("spare" not in got, "Leaves that do not run are left out (no leaf that did not run)")
    check.equal(sorted(got), ["block.0", "block.1", "flat", "proj", "up"],
                "One entry per leaf module that ran, each named as model.named_modules() names it")
    check.equal(list(got), ["flat", "proj", "block.0", "block.1", "up"],
                "Keep the entries in the order the leaves ran (insert them as the hooks fire; do not sort)")
    check.equal(got["up"], torch.float32,
                "Record each leaf's output dtype (what its forward returned), not its input's.")
    check.equal(got["proj"], torch.bfloat16, "Record each module's output dtype, under autocast.")
    check.equal(got["flat"], torch.float32,
                "Flatten is on no autocast list: its output keeps the float32 of its input.")
    check.equal(got["block.1"], torch.bfloat16, "The last Linear runs under autocast too: record what it returned.")
    calls.clear()
    probe(torch.randn(3, 3, 4))
    check.equal(len(calls), 1, "Hooks the model already had must stay and keep firing: remove only your handles")
    check.equal(_hook_count(probe), 1, "Remove every hook you registered (handle.remove()), and only those")
    check.that(not torch.is_autocast_enabled("cpu"),
               "Leave autocast off afterwards: use torch.autocast in a with block.")
    own.remove()
    half = check.call(output_dtypes, probe, torch.randn(2, 12), "cpu", torch.float16)
    check.equal(half.get("proj"), torch.float16,
                "Pass dtype on to torch.autocast: with torch.float16 a Linear's output is float16 "
                "(CPU autocast's default would be bfloat16)")
    check.equal(check.call(output_dtypes, torch.nn.Linear(5, 3), torch.randn(2, 5), "cpu", torch.bfloat16),
                {"": torch.bfloat16}, "A model without children is itself a leaf, named \"\" by named_modules()")
    broken = torch.nn.Sequential(torch.nn.Linear(4, 3), torch.nn.Linear(5, 2))   # shapes do not fit: model(x) raises
    try:
        output_dtypes(broken, torch.randn(2, 4), "cpu", torch.bfloat16)
        raised = False
    except Exception:
        raised = True
    check.equal(_hook_count(broken), 0, "Remove your hooks even when the forward pass raises (try/finally)")
    check.that(raised, "When model(x) raises, let the exception reach the caller (do not catch it).")
    # the whole contract, over its domain (see leaf_cases and leaf_covering above)
    check.forall(leaf_cases, reports_what_ran, "One forward pass of x under torch.autocast(device_type=device_type, "
                 "dtype=dtype); one entry per leaf module (a module without children, not a block of your own that "
                 "has some) that ran, named as model.named_modules() names it (a leaf reachable under two names has "
                 "one), in the order the leaves ran, with the dtype its forward returned: for any nesting, in "
                 "training or eval mode, with float16 or bfloat16.", examples=10, cases=leaf_covering())
    check.forall(leaf_cases, model_as_found, "The model comes back as it was: every hook you added removed, its "
                 "own hooks still there and firing, every module in the mode it was in (train or eval).",
                 examples=10, cases=leaf_covering())
    check.forall(leaf_cases, leaf_error_passes, "When model(x) raises, its exception reaches the caller as it is (the "
                 "same object, not a new one), your hooks are removed, and autocast is off again.", examples=5,
                 cases=leaf_covering()[::2])

### BEGIN HIDDEN TESTS
from gpucourse.checks import requirement as _requirement

def _reference_dtypes(model, x, device_type, dtype):
    """Independent of hooks on the model: a global hook on every module, keeping the leaves."""
    names = {id(m): n for n, m in model.named_modules() if next(m.children(), None) is None}
    seen = {}
    def record(module, inputs, output):
        if id(module) in names:
            seen[names[id(module)]] = output.dtype
    handle = torch.nn.modules.module.register_module_forward_hook(record)
    try:
        with torch.no_grad(), torch.autocast(device_type=device_type, dtype=dtype):
            model(x)
    finally:
        handle.remove()
    return seen

class _Net(torch.nn.Module):
    def __init__(self, d, h, k):
        super().__init__()
        self.head = torch.nn.Sequential(torch.nn.Sequential(torch.nn.Linear(h, k)))
        self.unused = torch.nn.Dropout(0.5)                 # a leaf that never runs
        self.stem = torch.nn.Sequential(torch.nn.Linear(d, h), torch.nn.GELU(), torch.nn.LayerNorm(h))
        self.soft = torch.nn.Softmax(dim=1)
    def forward(self, x):
        # runs stem, head, soft: neither the order defined nor the order of the names sorted
        return self.soft(self.head(self.stem(x)))

with warnings.catch_warnings():
    warnings.simplefilter("ignore")
    _cases = [("cpu", torch.bfloat16), ("cpu", torch.float16)]
    if torch.cuda.is_available():
        _cases += [("cuda", torch.float16), ("cuda", torch.bfloat16)]
    for _device_type, _dtype in _cases:
        _d, _h, _k = [int(v) for v in torch.randint(3, 12, (3,))]
        _net = _Net(_d, _h, _k).to(_device_type)
        _x = torch.randn(int(torch.randint(2, 6, ())), _d, device=_device_type)
        _calls = []
        _own = _net.stem[1].register_forward_hook(lambda m, i, o: _calls.append(1))   # the model's own hook
        _before = _hook_count(_net)
        with _requirement(f"output_dtypes runs under {_device_type} autocast with {_dtype}"):
            _got = output_dtypes(_net, _x, _device_type, _dtype)
        with _requirement("one forward pass of x"):
            assert _calls == [1], f"the model ran {len(_calls)} times"
        _expected = _reference_dtypes(_net, _x, _device_type, _dtype)
        with _requirement("one entry per leaf that ran, named as named_modules() names it (none that did not run)"):
            assert isinstance(_got, dict), f"got a {type(_got).__name__}"
            assert set(_got) == set(_expected), f"got {sorted(_got)}, expected {sorted(_expected)}"
        with _requirement("the entries in the order the leaves ran"):
            assert list(_got) == list(_expected), f"got {list(_got)}, expected {list(_expected)}"
        with _requirement(f"each leaf's output dtype under {_device_type} autocast with {_dtype}"):
            assert all(isinstance(v, torch.dtype) for v in _got.values()), f"got {_got}"
            assert _got == _expected, f"got {_got}, expected {_expected}"
        with _requirement("every hook output_dtypes added is removed, and only those"):
            assert _hook_count(_net) == _before, f"{_hook_count(_net)} hooks after the call, {_before} before"
            _calls.clear()
            _net(_x)
            assert _calls == [1], "the model's own hook no longer fires"
        _own.remove()
        with _requirement("autocast is off again afterwards"):
            assert not torch.is_autocast_enabled(_device_type)
    with _requirement("a model that is itself a leaf is named \"\""):
        _lin = torch.nn.Linear(int(torch.randint(2, 9, ())), 3)
        _out = output_dtypes(_lin, torch.randn(2, _lin.in_features), "cpu", torch.float16)
        assert _out == {"": torch.float16}, f"got {_out}"
        assert _hook_count(_lin) == 0, "a hook was left behind"
    _bad = torch.nn.Sequential(torch.nn.ReLU(), torch.nn.Linear(4, 3), torch.nn.Linear(5, 2))
    _bad[0].register_forward_pre_hook(lambda m, i: None)
    _raised = False
    try:
        output_dtypes(_bad, torch.randn(2, 4), "cpu", torch.bfloat16)
    except Exception:
        _raised = True
    with _requirement("when model(x) raises, the hooks are removed (try/finally) and the exception propagates"):
        assert _hook_count(_bad) == 1, f"{_hook_count(_bad)} hooks after the call, 1 (the model's own) before"
        assert _raised, "the exception was swallowed"
from gpucourse.contract import for_all as _for_all

def _covering():
    return leaf_covering() + [(kind, training, dtype, 2, 100 + kind) for kind in range(4) for training in (True, False)
                              for dtype in (torch.float16, torch.bfloat16)]

with warnings.catch_warnings():
    warnings.simplefilter("ignore")
    with _requirement("output_dtypes keeps its contract for any nesting (blocks of their own too), a model that is "
                      "itself a leaf, leaves that never run or run out of order, a leaf under two names, hooks of "
                      "the model's own, training or eval mode, float16 and bfloat16"):
        _for_all(leaf_cases, reports_what_ran, "one forward under autocast; one entry per leaf that ran, named as "
                 "named_modules() names it, in the order they ran, with its output dtype", examples=60,
                 cases=_covering())
        _for_all(leaf_cases, model_as_found, "the model as it was: only its own hooks, still firing, every mode kept",
                 examples=40, cases=_covering())
        _for_all(leaf_cases, leaf_error_passes, "the exception propagates as the same object, hooks removed, autocast "
                 "off", examples=20, cases=_covering()[::2])
### END HIDDEN TESTS

# %% [markdown] fixtures="output_dtypes"
# ### Mistakes and correct alternatives for `output_dtypes` (author-only: in no generated notebook)
#
# **mistake `hooks-kept`**, sample, loses `test_output_dtypes`: never removes its hooks
# ```diff
# @@
# -    handles = []
# @@
# -        if next(module.children(), None) is None:          # a leaf
# -            def hook(mod, inputs, output, name=name):
# -                dtypes[name] = output.dtype
# -            handles.append(module.register_forward_hook(hook))
# -    try:
# -        with torch.no_grad(), torch.autocast(device_type=device_type, dtype=dtype):
# -            model(x)
# -    finally:
# -        for handle in handles:
# -            handle.remove()
# +        if len(list(module.children())) == 0:
# +            module.register_forward_hook(lambda m, i, o, name=name: dtypes.__setitem__(name, o.dtype))
# +    with torch.autocast(device_type=device_type, dtype=dtype):
# +        model(x)
# ```
#
# **mistake `no-autocast`**, loses `test_output_dtypes`: forgets the autocast block
# ```diff
# @@
# -    dtypes = {}
# -    handles = []
# +    dtypes, handles = {}, []
# @@
# -        if next(module.children(), None) is None:          # a leaf
# -            def hook(mod, inputs, output, name=name):
# -                dtypes[name] = output.dtype
# -            handles.append(module.register_forward_hook(hook))
# -    try:
# -        with torch.no_grad(), torch.autocast(device_type=device_type, dtype=dtype):
# -            model(x)
# -    finally:
# -        for handle in handles:
# -            handle.remove()
# +        if len(list(module.children())) == 0:
# +            handles.append(module.register_forward_hook(
# +                lambda m, i, o, name=name: dtypes.__setitem__(name, o.dtype)))
# +    model(x)
# +    for h in handles:
# +        h.remove()
# ```
#
# **mistake `input-dtype`**, loses `test_output_dtypes`: records the input's dtype instead of the output's
# ```diff
# @@
# -    dtypes = {}
# -    handles = []
# +    dtypes, handles = {}, []
# @@
# -        if next(module.children(), None) is None:          # a leaf
# -            def hook(mod, inputs, output, name=name):
# -                dtypes[name] = output.dtype
# -            handles.append(module.register_forward_hook(hook))
# -    try:
# -        with torch.no_grad(), torch.autocast(device_type=device_type, dtype=dtype):
# -            model(x)
# -    finally:
# -        for handle in handles:
# -            handle.remove()
# +        if len(list(module.children())) == 0:
# +            handles.append(module.register_forward_hook(
# +                lambda m, i, o, name=name: dtypes.__setitem__(name, i[0].dtype)))
# +    with torch.autocast(device_type=device_type, dtype=dtype):
# +        model(x)
# +    for h in handles:
# +        h.remove()
# ```
#
# **mistake `all-modules`**, loses `test_output_dtypes`: includes the containers, not only the leaves
# ```diff
# @@
# -    dtypes = {}
# -    handles = []
# +    dtypes, handles = {}, []
# @@
# -        if next(module.children(), None) is None:          # a leaf
# -            def hook(mod, inputs, output, name=name):
# -                dtypes[name] = output.dtype
# -            handles.append(module.register_forward_hook(hook))
# -    try:
# -        with torch.no_grad(), torch.autocast(device_type=device_type, dtype=dtype):
# -            model(x)
# -    finally:
# -        for handle in handles:
# -            handle.remove()
# +        handles.append(module.register_forward_hook(
# +            lambda m, i, o, name=name: dtypes.__setitem__(name, o.dtype)))
# +    with torch.autocast(device_type=device_type, dtype=dtype):
# +        model(x)
# +    for h in handles:
# +        h.remove()
# ```
#
# **mistake `children-only`**, loses `test_output_dtypes`: looks only at the direct children, not at nested leaves
# ```diff
# @@
# -    dtypes = {}
# -    handles = []
# -    for name, module in model.named_modules():
# -        if next(module.children(), None) is None:          # a leaf
# -            def hook(mod, inputs, output, name=name):
# -                dtypes[name] = output.dtype
# -            handles.append(module.register_forward_hook(hook))
# -    try:
# -        with torch.no_grad(), torch.autocast(device_type=device_type, dtype=dtype):
# -            model(x)
# -    finally:
# -        for handle in handles:
# -            handle.remove()
# +    dtypes, handles = {}, []
# +    for name, module in model.named_children():
# +        handles.append(module.register_forward_hook(
# +            lambda m, i, o, name=name: dtypes.__setitem__(name, o.dtype)))
# +    with torch.autocast(device_type=device_type, dtype=dtype):
# +        model(x)
# +    for h in handles:
# +        h.remove()
# ```
#
# **mistake `no-finally`**, loses `test_output_dtypes`: leaves hooks behind when the forward pass raises
# ```diff
# @@
# -    dtypes = {}
# -    handles = []
# +    dtypes, handles = {}, []
# @@
# -        if next(module.children(), None) is None:          # a leaf
# -            def hook(mod, inputs, output, name=name):
# -                dtypes[name] = output.dtype
# -            handles.append(module.register_forward_hook(hook))
# -    try:
# -        with torch.no_grad(), torch.autocast(device_type=device_type, dtype=dtype):
# -            model(x)
# -    finally:
# -        for handle in handles:
# -            handle.remove()
# +        if len(list(module.children())) == 0:
# +            handles.append(module.register_forward_hook(
# +                lambda m, i, o, name=name: dtypes.__setitem__(name, o.dtype)))
# +    with torch.autocast(device_type=device_type, dtype=dtype):
# +        model(x)
# +    for h in handles:
# +        h.remove()
# ```
#
# **mistake `clears-all-hooks`**, loses `test_output_dtypes`: removes the model's own hooks along with its own
# ```diff
# @@
# -    handles = []
# @@
# -        if next(module.children(), None) is None:          # a leaf
# -            def hook(mod, inputs, output, name=name):
# -                dtypes[name] = output.dtype
# -            handles.append(module.register_forward_hook(hook))
# +        if len(list(module.children())) == 0:
# +            module.register_forward_hook(lambda m, i, o, name=name: dtypes.__setitem__(name, o.dtype))
# @@
# -        with torch.no_grad(), torch.autocast(device_type=device_type, dtype=dtype):
# +        with torch.autocast(device_type=device_type, dtype=dtype):
# @@
# -        for handle in handles:
# -            handle.remove()
# +        for module in model.modules():
# +            module._forward_hooks.clear()
# ```
#
# **mistake `prefill`**, loses `test_output_dtypes`: pre-fills every leaf, so leaves that never ran are listed too
# ```diff
# @@
# -    dtypes = {}
# +    dtypes = {name: x.dtype for name, m in model.named_modules() if next(m.children(), None) is None}
# ```
#
# **mistake `sorted`**, loses `test_output_dtypes`: sorts the table by name instead of keeping the order the leaves ran
# ```diff
# @@
# -    return dtypes
# +    return dict(sorted(dtypes.items()))
# ```
#
# **mistake `swallows-error`**, loses `test_output_dtypes`: catches the forward pass's exception and returns what it has
# ```diff
# @@
# -    finally:
# -        for handle in handles:
# -            handle.remove()
# +    except Exception as error:
# +        print("forward pass failed:", error)
# +    for handle in handles:
# +        handle.remove()
# ```
#
# **mistake `skips-root`**, loses `test_output_dtypes`: skips the name "" so a model that is itself a leaf gives {}
# ```diff
# @@
# -        if next(module.children(), None) is None:          # a leaf
# +        if name and next(module.children(), None) is None:  # a leaf (the "" module is the model: skipped)
# ```
#
# **mistake `hooks-after-error-kept`**, loses `test_output_dtypes`: removes its hooks only after a successful forward
# ```diff
# @@
# -    try:
# -        with torch.no_grad(), torch.autocast(device_type=device_type, dtype=dtype):
# -            model(x)
# -    finally:
# -        for handle in handles:
# -            handle.remove()
# +    with torch.no_grad(), torch.autocast(device_type=device_type, dtype=dtype):
# +        model(x)
# +    for handle in handles:
# +        handle.remove()
# ```
#
# **mistake `pairs-list`**, loses `test_output_dtypes`: returns the (name, dtype) pairs as a list, not a dict
# ```diff
# @@
# -    return dtypes
# +    return list(dtypes.items())
# ```
#
# **mistake `warmup-pass`**, loses `test_output_dtypes`: runs the model once more first, as a warm-up (notebook 03's habit)
# ```diff
# @@
#      dtypes = {}
#      handles = []
# +    with torch.no_grad():
# +        model(x)                                            # warm-up
# ```
#
# **mistake `class-names`**, loses `test_output_dtypes`: names each leaf by its class, not as named_modules() does
# ```diff
# @@
# -            def hook(mod, inputs, output, name=name):
# -                dtypes[name] = output.dtype
# +            def hook(mod, inputs, output):
# +                dtypes[type(mod).__name__] = output.dtype
# ```
#
# **mistake `dtypes-default-dtype`**, loses `test_output_dtypes`: ignores dtype and gets the device's default
# ```diff
# @@
# -        with torch.no_grad(), torch.autocast(device_type=device_type, dtype=dtype):
# +        with torch.no_grad(), torch.autocast(device_type=device_type):
# ```
#
# **mistake `dtypes-autocast-left-on`**, loses `test_output_dtypes`: enters autocast by hand and never leaves it
# ```diff
# @@
# -        with torch.no_grad(), torch.autocast(device_type=device_type, dtype=dtype):
# -            model(x)
# +        torch.autocast(device_type=device_type, dtype=dtype).__enter__()
# +        with torch.no_grad():
# +            model(x)
# ```
#
# **alternative `global-hook`**: one global forward hook (register_module_forward_hook), leaves found by id
# ```python
# def output_dtypes(model, x, device_type, dtype):
#     leaf_names = {id(m): n for n, m in model.named_modules() if not list(m.children())}
#     table = {}
#
#     def _record(module, inputs, output):
#         if id(module) in leaf_names:
#             table[leaf_names[id(module)]] = output.dtype
#
#     handle = torch.nn.modules.module.register_module_forward_hook(_record)
#     try:
#         with torch.autocast(device_type=device_type, dtype=dtype):
#             model(x)
#     finally:
#         handle.remove()
#     return table
# ```
#
# **alternative `ordered-list`**: (name, dtype) pairs appended as the hooks fire, a dict at the end, ExitStack
# ```python
# import contextlib
#
# def output_dtypes(model, x, device_type, dtype):
#     pairs = []
#     with contextlib.ExitStack() as stack:
#         for name, module in model.named_modules():
#             if sum(1 for _ in module.children()) == 0:
#                 handle = module.register_forward_hook(
#                     lambda m, i, o, name=name: pairs.append((name, o.dtype)))
#                 stack.callback(handle.remove)
#         with torch.autocast(device_type, dtype=dtype), torch.no_grad():
#             model(x)
#     result = {}
#     for name, out_dtype in pairs:
#         result.setdefault(name, out_dtype)
#     return result
# ```
#
# **alternative `named-children-leaves`**: lambdas as hooks, inference_mode
# ```python
# def output_dtypes(model, x, device_type, dtype):
#     seen = {}
#     leaves = [(n, m) for n, m in model.named_modules() if len(list(m.children())) == 0]
#     handles = [m.register_forward_hook(lambda mod, inp, out, n=n: seen.__setitem__(n, out.dtype))
#                for n, m in leaves]
#     try:
#         with torch.autocast(device_type=device_type, dtype=dtype), torch.inference_mode():
#             model(x)
#     finally:
#         for h in handles:
#             h.remove()
#     return seen
# ```
#
# **alternative `hook-class`**: an own _Recorder class
# ```python
# class _Recorder:
#     def __init__(self):
#         self.dtypes = {}
#         self.handles = []
#     def attach(self, name, module):
#         def _hook(_mod, _inputs, _output):
#             self.dtypes[name] = _output.dtype
#         self.handles.append(module.register_forward_hook(_hook))
#     def detach(self):
#         while self.handles:
#             self.handles.pop().remove()
#
# def output_dtypes(model, x, device_type, dtype):
#     rec = _Recorder()
#     for name, module in model.named_modules():
#         if not any(True for _ in module.children()):
#             rec.attach(name, module)
#     try:
#         with torch.autocast(device_type=device_type, dtype=dtype):
#             with torch.no_grad():
#                 model(x)
#     finally:
#         rec.detach()
#     return dict(rec.dtypes)
# ```
#
# **alternative `grad-on`**: keeps autograd on (the docstring does not ask for no_grad), prints
# ```python
# def output_dtypes(model, x, device_type, dtype):
#     result, handles = {}, []
#     for name, module in model.named_modules():
#         if list(module.children()):
#             continue
#         handles.append(module.register_forward_hook(
#             lambda m, i, o, key=name: result.update({key: o.dtype})))
#     try:
#         with torch.autocast(device_type=device_type, dtype=dtype):
#             model(x)
#     finally:
#         [h.remove() for h in handles]
#     print(result)
#     return result
# ```
#
# **clauses of `output_dtypes`**
# - "{name: output dtype}": visible "Return a dict {module name: dtype}" by `pairs-list`
# - "output dtype": visible "Record each leaf's output dtype (what its forward returned), not its input's" by `input-dtype`
# - "of every leaf module of model": visible "Every leaf module that runs, nested leaves too, no containers" by `all-modules`, `children-only`
# - "that runs in one forward pass of x": visible "Run model(x) once: one forward pass of x" by `warmup-pass`
# - "under torch.autocast(device_type=device_type, dtype=dtype)": visible "Record each module's output dtype, under autocast" by `no-autocast`
# - "dtype=dtype)": visible "Pass dtype on to torch.autocast" by `dtypes-default-dtype`
# - "Names as model.named_modules() gives them": visible "Names as model.named_modules() gives them" by `class-names`
# - "("" for a model that is itself a leaf)": visible "A model without children is itself a leaf" by `skips-root`
# - "leaves that do not run are left out": visible "Leaves that do not run are left out" by `prefill`
# - "entries in the order the leaves ran.": visible "Keep the entries in the order the leaves ran" by `sorted`
# - "Recorded with forward hooks": allows `global-hook`, `hook-class`, `named-children-leaves`
# - "every one of them removed before returning": visible "Remove every hook you registered (handle.remove())" by `hooks-kept`
# - "also when model(x) raises": visible "Remove your hooks even when the forward pass raises" by `hooks-after-error-kept`, `no-finally`
# - "(the exception propagates)": visible "let the exception reach the caller" by `swallows-error`
# - "hooks the model already had stay": visible "Hooks the model already had must stay" by `clears-all-hooks`
# - "autocast is off again afterwards.": visible "Leave autocast off afterwards" by `dtypes-autocast-left-on`
# - "A leaf that runs more than once, or whose output is not a tensor, is outside this contract: record what you like for it.": no requirement (it frees the answer on inputs no check uses: no test model calls a leaf twice or has a leaf that returns a tuple)

# %% id="ex2-demo"
# The MLP, leaf by leaf, under this machine's autocast
if needs("output_dtypes"):
    images = torch.randn(64, 1, 28, 28, device=DEVICE)
    for name, dtype in output_dtypes(make_mlp().to(DEVICE), images, AMP_DEVICE, AMP_DTYPE).items():
        print(f"  {name}: {short(dtype)}")
    # "0" is the Flatten: a reshape of the float32 input, on no list, so it stays float32.

# %% [markdown] id="ex3"
# ## Exercise 3: predict CUDA autocast (3 points)
#
# Open the docs' [Autocast Op Reference](https://pytorch.org/docs/stable/amp.html#autocast-op-reference) and predict,
# for **CUDA** autocast with `dtype=torch.float16`, the dtype of each result below. `a` and `b` are float32 tensors;
# `h = a @ b` is computed inside the autocast block, and the other operations take `h` as their input, the way a loss
# takes a layer's output:
#
# | key | operation, inside `torch.autocast("cuda", dtype=torch.float16)` |
# |---|---|
# | `"matmul"` | `h = a @ b` |
# | `"softmax"` | `torch.softmax(h, dim=1)` |
# | `"cross_entropy"` | `F.cross_entropy(h, target)` |
# | `"sum"` | `h.sum()` |
# | `"add"` | `h + a` |
#
# Set `CUDA_AUTOCAST_ANSWERS` to a dict from exactly those five keys to `torch.dtype` values, like
# `{"matmul": torch.float16, ...}` (`torch.half` is the same object as `torch.float16`, `torch.float` as
# `torch.float32`). Write it in place of `raise NotImplementedError()`, inside the `with` block or instead of it: the
# block only keeps this cell from failing while the exercise is unanswered; the check below then says `[TODO]`, and
# "Run All" stops there, as at every unanswered check. (A grader may have no GPU: it checks your answers
# against the documented CUDA lists. Section 6 shows why CPU autocast would give different answers.)

# %% nbgrader={"grade": false, "grade_id": "CUDA_AUTOCAST_ANSWERS", "locked": false, "schema_version": 3, "solution": true}
import contextlib

CUDA_AUTOCAST_ANSWERS = None   # your answer: {key: torch.dtype} for the five keys of the table
with contextlib.suppress(NotImplementedError):   # until you answer, the check below says [TODO]
    ### BEGIN SOLUTION
    CUDA_AUTOCAST_ANSWERS = {
        "matmul": torch.float16,         # "CUDA ops that can autocast to float16"
        "softmax": torch.float32,        # "CUDA ops that can autocast to float32"
        "cross_entropy": torch.float32,  # float32 list
        "sum": torch.float32,            # float32 list
        "add": torch.float32,            # no list: type promotion, float16 + float32 -> float32
    }
    ### END SOLUTION

# %% nbgrader={"grade": true, "grade_id": "test_CUDA_AUTOCAST_ANSWERS", "locked": true, "points": 3, "schema_version": 3, "solution": false}
import hashlib
from gpucourse.checks import Check

def _fingerprint(key, value):
    """A one-way fingerprint of one answer: this cell checks the values without printing them."""
    return hashlib.sha256(f"04_autocast {key} {value}".encode()).hexdigest()[:16]

_DOCUMENTED_FINGERPRINTS = {"matmul": "10f3cc14dac65d40", "softmax": "9807f533ded15a46",
                            "cross_entropy": "d54b7e32dffbefbe", "sum": "1ac681a26207514c", "add": "652a90be7305228d"}

def _left_switched():
    """What the answer cell left switched in torch (an autocast block entered and not left, grad mode off, another
    default dtype), each put back so that later cells run as they should."""
    left = []
    for device in ("cpu", "cuda"):
        if torch.is_autocast_enabled(device):
            left.append(f"autocast on {device} is still enabled")
            torch.set_autocast_enabled(device, False)
    from gpucourse.contract import torch_state
    level = torch_state()["the number of autocast blocks entered and not left"]
    while level > 0:
        level = torch.autocast_decrement_nesting()
    if not torch.is_grad_enabled():
        left.append("grad mode is off")
        torch.set_grad_enabled(True)
    if torch.get_default_dtype() != torch.float32:
        left.append(f"the default dtype is {torch.get_default_dtype()}")
        torch.set_default_dtype(torch.float32)
    return left

# Read before the check starts (it compares torch's settings at its end with those at its start), once per answer:
# running this cell again must not find the settings it put back and pass.
answer_left = globals().get("answer_left")
if answer_left is None or answer_left[0] is not CUDA_AUTOCAST_ANSWERS:
    answer_left = (CUDA_AUTOCAST_ANSWERS, _left_switched())
left = answer_left[1]
with Check("CUDA_AUTOCAST_ANSWERS") as check:
    answers = CUDA_AUTOCAST_ANSWERS
    if answers is None:            # still the skeleton's placeholder
        raise NotImplementedError()
    check.that(isinstance(answers, dict), "CUDA_AUTOCAST_ANSWERS must be a dict.")
    check.equal(sorted(answers), sorted(_DOCUMENTED_FINGERPRINTS), "Use exactly the five keys of the table")
    check.that(all(isinstance(v, torch.dtype) for v in answers.values()),
               "Each value is a torch.dtype such as torch.float16, not a string.")
    for key in ("matmul", "softmax", "cross_entropy", "sum", "add"):
        check.that(_fingerprint(key, answers[key]) == _DOCUMENTED_FINGERPRINTS[key],
                   f"{key!r}: not the dtype the docs' CUDA lists give. Look the operation up in the CUDA part of "
                   "the Autocast Op Reference (an operation on no list runs in the type its inputs promote to).")
    check.that(not left, "Your cell must leave torch as it found it (enter autocast with a `with` block, never by "
               f"hand): {'; '.join(left)}.")

### BEGIN HIDDEN TESTS
from gpucourse.checks import requirement as _requirement

_CUDA_DOCUMENTED = {                  # the "Autocast Op Reference" of the PyTorch docs, CUDA, float16
    "matmul": torch.float16,          # on the "autocast to float16" list
    "softmax": torch.float32,         # on the "autocast to float32" list
    "cross_entropy": torch.float32,   # on the "autocast to float32" list
    "sum": torch.float32,             # on the "autocast to float32" list
    "add": torch.float32,             # not listed: ordinary type promotion, float16 + float32 -> float32
}
with _requirement("CUDA_AUTOCAST_ANSWERS is a dict with exactly the five keys of the table"):
    assert isinstance(CUDA_AUTOCAST_ANSWERS, dict), f"got a {type(CUDA_AUTOCAST_ANSWERS).__name__}"
    assert set(CUDA_AUTOCAST_ANSWERS) == set(_CUDA_DOCUMENTED), f"got the keys {sorted(CUDA_AUTOCAST_ANSWERS)}"
for _op, _dtype in _CUDA_DOCUMENTED.items():
    with _requirement(f"{_op!r}: the dtype the docs' CUDA lists give for it under float16 autocast"):
        assert isinstance(CUDA_AUTOCAST_ANSWERS[_op], torch.dtype), f"got {CUDA_AUTOCAST_ANSWERS[_op]!r}"
        assert CUDA_AUTOCAST_ANSWERS[_op] == _dtype, f"got {CUDA_AUTOCAST_ANSWERS[_op]}, expected {_dtype}"
with _requirement("the answer cell leaves torch's settings as it found them (no autocast block left entered)"):
    assert not left, "; ".join(left)
### END HIDDEN TESTS

# %% [markdown] fixtures="CUDA_AUTOCAST_ANSWERS"
# ### Mistakes and correct alternatives for `CUDA_AUTOCAST_ANSWERS` (author-only: in no generated notebook)
#
# **mistake `cpu-answers`**, sample, loses `test_CUDA_AUTOCAST_ANSWERS`: answers with CPU autocast's lists
# ```diff
# @@
# -    CUDA_AUTOCAST_ANSWERS = {
# -        "matmul": torch.float16,         # "CUDA ops that can autocast to float16"
# -        "softmax": torch.float32,        # "CUDA ops that can autocast to float32"
# -        "cross_entropy": torch.float32,  # float32 list
# -        "sum": torch.float32,            # float32 list
# -        "add": torch.float32,            # no list: type promotion, float16 + float32 -> float32
# -    }
# +    CUDA_AUTOCAST_ANSWERS = {"matmul": torch.float16, "softmax": torch.float16, "cross_entropy": torch.float32,
# +                             "sum": torch.float16, "add": torch.float32}
# ```
#
# **mistake `all-half`**, loses `test_CUDA_AUTOCAST_ANSWERS`: thinks autocast makes everything float16
# ```diff
# @@
# -    CUDA_AUTOCAST_ANSWERS = {
# -        "matmul": torch.float16,         # "CUDA ops that can autocast to float16"
# -        "softmax": torch.float32,        # "CUDA ops that can autocast to float32"
# -        "cross_entropy": torch.float32,  # float32 list
# -        "sum": torch.float32,            # float32 list
# -        "add": torch.float32,            # no list: type promotion, float16 + float32 -> float32
# -    }
# +    CUDA_AUTOCAST_ANSWERS = {k: torch.float16 for k in ["matmul", "softmax", "cross_entropy", "sum", "add"]}
# ```
#
# **mistake `add-half`**, loses `test_CUDA_AUTOCAST_ANSWERS`: forgets type promotion of float16 + float32
# ```diff
# @@
# -        "add": torch.float32,            # no list: type promotion, float16 + float32 -> float32
# +        "add": torch.float16,
# ```
#
# **mistake `softmax-half`**, loses `test_CUDA_AUTOCAST_ANSWERS`: only softmax wrong (CPU's behaviour for it)
# ```diff
# @@
# -        "softmax": torch.float32,        # "CUDA ops that can autocast to float32"
# +        "softmax": torch.float16,
# ```
#
# **mistake `sum-half`**, loses `test_CUDA_AUTOCAST_ANSWERS`: only sum wrong: a reduction of float16 stays float16
# ```diff
# @@
# -        "sum": torch.float32,            # float32 list
# +        "sum": torch.float16,
# ```
#
# **mistake `matmul-float32`**, loses `test_CUDA_AUTOCAST_ANSWERS`: thinks a float32 matmul stays float32
# ```diff
# @@
# -        "matmul": torch.float16,         # "CUDA ops that can autocast to float16"
# +        "matmul": torch.float32,
# ```
#
# **mistake `strings`**, loses `test_CUDA_AUTOCAST_ANSWERS`: strings instead of torch.dtype values
# ```diff
# @@
# -    CUDA_AUTOCAST_ANSWERS = {
# -        "matmul": torch.float16,         # "CUDA ops that can autocast to float16"
# -        "softmax": torch.float32,        # "CUDA ops that can autocast to float32"
# -        "cross_entropy": torch.float32,  # float32 list
# -        "sum": torch.float32,            # float32 list
# -        "add": torch.float32,            # no list: type promotion, float16 + float32 -> float32
# -    }
# +    CUDA_AUTOCAST_ANSWERS = {"matmul": "float16", "softmax": "float32", "cross_entropy": "float32",
# +                             "sum": "float32", "add": "float32"}
# ```
#
# **mistake `extra-key`**, loses `test_CUDA_AUTOCAST_ANSWERS`: adds an operation the table does not ask about
# ```diff
# @@
# -        "add": torch.float32,            # no list: type promotion, float16 + float32 -> float32
# +        "add": torch.float32,
# +        "relu": torch.float16,
# ```
#
# **alternative `dict-call`**: dict(...) and the dtype aliases torch.half / torch.float, no with block
# ```python
# CUDA_AUTOCAST_ANSWERS = dict(matmul=torch.half, softmax=torch.float, cross_entropy=torch.float32,
#                              sum=torch.float32, add=torch.float32)
# ```
#
# **alternative `built-up`**: built in a loop, in another order
# ```python
# CUDA_AUTOCAST_ANSWERS = {}
# for _op in ("softmax", "cross_entropy", "sum", "add"):
#     CUDA_AUTOCAST_ANSWERS[_op] = torch.float32
# CUDA_AUTOCAST_ANSWERS["matmul"] = torch.float16
# print(CUDA_AUTOCAST_ANSWERS)
# ```
#
# **alternative `measured`**: type promotion computed with torch.promote_types, inside the with block
# ```python
# import contextlib
#
# CUDA_AUTOCAST_ANSWERS = None
# with contextlib.suppress(NotImplementedError):
#     _low = torch.float16
#     CUDA_AUTOCAST_ANSWERS = {
#         "add": torch.promote_types(_low, torch.float32),
#         "sum": torch.float32,
#         "cross_entropy": torch.float32,
#         "softmax": torch.float32,
#         "matmul": _low,
#     }
# ```

# %% [markdown] id="s6"
# ## 6. CPU autocast has its own lists
#
# > **Myth vs. current PyTorch:** "Under autocast, softmax (and sum) run in float32."
# > That is true on **CUDA**. CPU autocast's float32 list is a different one (it has linear algebra and FFTs such as
# > `linalg_inv` and `fft_rfft`, which CUDA's has not), and softmax, log_softmax, sum, exp, log, pow and layer_norm
# > are not on it, so under CPU autocast they keep their input's dtype: a 16-bit input stays bfloat16 or float16.
# > Cross-entropy is on both float32 lists. Code (and tests) that assume CUDA's behaviour fail on a CPU.
#
# The cell runs the five operations of exercise 3 under real autocast on this machine (and on CUDA when there is a
# GPU). Note `softmax` and `sum` of a 16-bit `h`: CUDA autocast casts `h` up to float32 first, CPU autocast does not.

# %% id="s6-demo"
from gpucourse.amp import autocast_op_dtypes

OPS = ["matmul", "softmax", "cross_entropy", "sum", "add"]
try:
    predicted = CUDA_AUTOCAST_ANSWERS   # your exercise 3: what the docs' CUDA lists say
except NameError:                       # exercise 3's cell not run
    predicted = None
if not isinstance(predicted, dict):     # not answered yet: that row shows "-"
    predicted = {}
rows = {"CUDA, your answers (float16)": predicted,
        "CPU, measured (bfloat16)": autocast_op_dtypes("cpu", torch.bfloat16),
        "CPU, measured (float16)": autocast_op_dtypes("cpu", torch.float16)}
if torch.cuda.is_available():
    rows["CUDA, measured (float16)"] = autocast_op_dtypes("cuda", torch.float16)
print(f"{'':<32}" + "".join(f"{op:<15}" for op in OPS))
for name, row in rows.items():
    cells = [short(row.get(op)) if isinstance(row.get(op), torch.dtype) else "-" for op in OPS]
    print(f"{name:<32}" + "".join(f"{cell:<15}" for cell in cells))

# %% [markdown] id="s7"
# ## 7. Does it cost accuracy?
#
# The title's claim, measured: the same MLP trained on Fashion-MNIST in float32 and under autocast (your
# `amp_forward`), with the same seed, data and AdamW plus cosine schedule. (In quick mode, on a small subset.)

# %% id="s7-train"
import time
from torch.utils.data import DataLoader
from tqdm.auto import tqdm
from gpucourse.data import fashion_mnist, float_dataset
from gpucourse.model import make_adamw_cosine
from gpucourse.readings import Ratio, in_rounds, median, read_autocast_step, read_speedup
from gpucourse.throughput import bound_of, read_bound
from gpucourse.timing import synchronize

train_set = float_dataset(fashion_mnist(train=True), limit=2_000 if QUICK else None)
test_set = float_dataset(fashion_mnist(train=False), limit=1_000 if QUICK else None)
epochs = 1 if QUICK else 3

def run(use_amp):
    """(test accuracy, seconds per epoch) of one training run."""
    torch.manual_seed(0)
    loader = DataLoader(train_set, batch_size=256, shuffle=True, drop_last=True)
    model = make_mlp().to(DEVICE)
    optimizer, scheduler = make_adamw_cosine(model, total_steps=epochs * len(loader), lr=2e-3)
    epoch_s = []
    for _ in tqdm(range(epochs), desc="amp" if use_amp else "float32"):
        start = time.perf_counter()
        for xb, yb in loader:
            xb, yb = xb.to(DEVICE, non_blocking=True), yb.to(DEVICE, non_blocking=True)
            if use_amp:
                _, loss = amp_forward(model, xb, yb, F.cross_entropy, AMP_DEVICE, AMP_DTYPE)
            else:
                loss = F.cross_entropy(model(xb), yb)
            optimizer.zero_grad(set_to_none=True)
            loss.backward()      # (float16 on a GPU also wants a GradScaler: notebook 05)
            optimizer.step()
            scheduler.step()
        synchronize(DEVICE)
        epoch_s.append(time.perf_counter() - start)
    model.eval()
    correct = 0
    with torch.no_grad():
        for xb, yb in DataLoader(test_set, batch_size=1000):
            correct += (model(xb.to(DEVICE)).argmax(1) == yb.to(DEVICE)).sum().item()
    return correct / len(test_set), epoch_s

if needs("amp_forward"):
    runs = {"float32": run(False), f"autocast {short(AMP_DTYPE)}": run(True)}
    for name, (acc, seconds) in runs.items():
        print(f"{name:<18} test accuracy {acc:.1%}, epochs of " + ", ".join(f"{s:.2f}" for s in seconds)
              + " s (data loading included)")
    if epochs > 1:
        # the epochs after the first, paired: each is one round of the comparison (the first pays one-off costs)
        epoch_speedup = Ratio.between(runs["float32"][1][1:], runs[f"autocast {short(AMP_DTYPE)}"][1][1:])
        print(read_speedup(epoch_speedup, "Autocast on a whole epoch after the first"),
              "Section 8 times the training step alone.")
    else:
        print("One epoch each (quick mode): it includes one-off costs, so the times are not compared here.")

# %% [markdown] id="s8"
# ## 8. Does it make the training step faster?
#
# Section 4 timed matrix multiplies alone. A training step is more: the forward and backward passes (one matmul per
# layer forward and two backward, the ReLU, the loss), the optimizer's update of every parameter, and, under autocast,
# the casts of the weights and the inputs. On a GPU each of those is a kernel the host has to launch. The cell times
# one whole step (warmed up, synchronized, the median of several, in three rounds) in float32 and under autocast, on
# data already on the device, for two configurations: the MLP of section 7 at its batch of 256, and a much wider one at
# a large batch, meant to make the matmuls most of the work. It also times the float32 step at half the batch: a step
# that takes about as long for half the work is held back by a fixed cost per step (host-bound), one that takes about
# half as long by its arithmetic (compute-bound); notebook 08 explains the test. Each line says what its figures mean
# on this machine. (A float16 run on a GPU would also want notebook 05's GradScaler, which adds a little work of its
# own; it is left out here to time autocast alone.)

# %% id="s8-step"
def train_step(model, xb, yb, use_amp):
    optimizer = torch.optim.AdamW(model.parameters(), lr=1e-3)
    def step():
        with torch.autocast(device_type=AMP_DEVICE, dtype=AMP_DTYPE, enabled=use_amp):
            loss = F.cross_entropy(model(xb), yb)
        optimizer.zero_grad(set_to_none=True)
        loss.backward()
        optimizer.step()
    return step

# (hidden units, batch): the wide configuration is sized to the device, a GPU's matmuls being 100x a laptop CPU's
configs = {"MLP 256, batch 256": (256, 256)}
if DEVICE.type == "cuda":
    configs["MLP 4096, batch 8192"] = (4096, 8192)
else:
    configs["MLP 1024, batch 1024" if not QUICK else "MLP 512, batch 512"] = (1024, 1024) if not QUICK else (512, 512)
repeats = 3 if QUICK or DEVICE.type == "cpu" else 20
step_speedup = {}
for name, (hidden, batch) in configs.items():
    xb = torch.randn(batch, 1, 28, 28, device=DEVICE)
    yb = torch.randint(0, 10, (batch,), device=DEVICE)
    steps = {"float32": train_step(make_mlp(hidden=hidden).to(DEVICE), xb, yb, False),
             "autocast": train_step(make_mlp(hidden=hidden).to(DEVICE), xb, yb, True),
             # half the batch, in float32: what limits the step (notebook 08's section 4 explains the test)
             "half": train_step(make_mlp(hidden=hidden).to(DEVICE), xb[:batch // 2], yb[:batch // 2], False)}
    ms = in_rounds({kind: lambda step=step: median_ms(step, DEVICE, warmup=2, repeats=repeats)
                    for kind, step in steps.items()})
    step_speedup[name] = Ratio.between(ms["float32"], ms["autocast"])
    time_ratio = Ratio.between(ms["float32"], ms["half"])   # per round: the full batch's time / half the batch's
    print(f"{name}: float32 {median(ms['float32']):.3f} ms, autocast {short(AMP_DTYPE)} "
          f"{median(ms['autocast']):.3f} ms per step ({step_speedup[name].value:.2f}x); half the batch in float32 "
          f"{median(ms['half']):.3f} ms")
    print("  So the step is", read_bound(2, time_ratio))
    print(" ", read_autocast_step(step_speedup[name], matmul_speedup, name, AMP_DEVICE, bound_of(2, time_ratio)))
small, wide = (ratio.value for ratio in step_speedup.values())
print(f"RESULT autocast_speedup = {small:.2f} x")
print(f"RESULT autocast_speedup_wide = {wide:.2f} x")

# %% [markdown] id="s8-read"
# On a GPU, what decides it is how much arithmetic each kernel launch carries. A small step is a few dozen kernels of a
# few microseconds each; where the host launching them is the bottleneck (the step is *host-bound*, as the half-batch
# timing shows), faster arithmetic changes nothing, and autocast's extra casts can make the step, and the epochs of
# section 7, slower. At a large enough batch and width the matmuls dominate, and the tensor cores' 16-bit speed of
# section 4 starts to show. A CPU has no queue to fall behind, but a small step there too can be held back by a fixed
# cost per step (Python, PyTorch's dispatch): autocast pays where the CPU does 16-bit arithmetic faster (section 4 says
# whether yours does) and the casts and the rest of the step do not eat the gain. Notebook 08 measures this on whole
# training runs.

# %% [markdown] id="summary"
# ## Summary
#
# - `torch.autocast(device_type=..., dtype=...)` picks a dtype per operation from its device's lists: matmuls in
#   16 bits and losses in float32 on both; on CUDA also softmax, sums, `exp` and `log` in float32, which CPU autocast
#   leaves in their input's dtype.
# - Parameters and gradients stay float32; autocast casts copies. Never `model.half()` for training.
# - Activations saved for backward shrink by about half; on tensor-core GPUs, 16-bit matmuls can run several
#   times faster (section 4 measures it on your GPU).
# - A whole training step gets faster only where its arithmetic dominates: a small step is host-bound, and autocast's
#   casts can make it slower; section 8 measures a small and a wide step on your machine and says which it was.
# - `torch.cuda.amp.*` is deprecated: `torch.autocast("cuda", ...)` and `torch.amp.GradScaler("cuda")`.
