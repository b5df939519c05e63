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
# float16 has 5 exponent bits: its smallest positive value is 2⁻²⁴ ≈ 6·10⁻⁸ (anything at or below half of it,
# 2⁻²⁵ ≈ 3·10⁻⁸, becomes zero), and below 2⁻¹⁴ ≈ 6·10⁻⁵ precision falls away.
# Gradients late in training are often that small. Under autocast the backward pass computes many gradients in
# float16, and those that are too small become **zero**: they *underflow*. The **gradient scaler** multiplies the
# loss by a large factor before backward, so the gradients are computed large, then divides them again (in float32)
# before the optimizer sees them. If the factor is too large, some gradient becomes `inf`; the scaler then skips that
# step and halves the factor.
#
# **You will learn to**
# - see the underflow in a histogram of real gradient magnitudes, and measure what a 2¹⁶ scale saves;
# - write the canonical scaled training step, with gradient clipping in the right place;
# - watch the scaler skip a step and back off on `inf`, grow after 2000 clean steps, and refuse to run without
#   `update()`;
# - write the scale-update rule yourself and check it against `torch.amp.GradScaler`.
#
# **Time:** about 35 minutes on a Colab T4, about 35 minutes on a laptop CPU.

# %% nbgrader={"grade": false, "grade_id": "setup", "locked": true, "schema_version": 3, "solution": false}
# The shared set-up: `python -m graders build` writes its install part above these lines.
from gpucourse.bootstrap import setup
DEVICE, QUICK = setup()
import torch
from gpucourse.checks import needs  # a demonstration that runs your answers waits until they are answered


# %% [markdown] id="recap"
# ## Recap
#
# - **Notebook 04**: `torch.autocast(device_type=..., dtype=...)` runs matmuls in 16 bits and keeps the parameters
#   and their gradients in float32. Activation gradients inside the backward pass are 16-bit.
# - **Module 6**: AdamW, a cosine schedule, and gradient clipping with `torch.nn.utils.clip_grad_norm_`.
#
# The scaler is `torch.amp.GradScaler(device)`. On a GPU that is `GradScaler("cuda")`; without CUDA,
# `GradScaler("cuda")` **disables itself** with a warning (its `step` is then a plain `optimizer.step()`), so on a CPU
# we use `GradScaler("cpu")`, which exists since PyTorch 2.3 and works exactly the same way.

# %% id="config"
import math
import warnings
import matplotlib.pyplot as plt
import torch.nn.functional as F
from gpucourse.amp import FP16_SMALLEST_NORMAL, FP16_SMALLEST_SUBNORMAL
from gpucourse.model import make_mlp, make_adamw_cosine

AMP_DEVICE = "cuda" if DEVICE.type == "cuda" else "cpu"
print(f"scaler and autocast here: {AMP_DEVICE!r}, with float16")
if not torch.cuda.is_available():
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        cuda_scaler = torch.amp.GradScaler("cuda")
    print(f"GradScaler('cuda') on this machine: enabled={cuda_scaler.is_enabled()}  ({caught[0].message})")
    print(f"GradScaler('cpu') on this machine:  enabled={torch.amp.GradScaler('cpu').is_enabled()}")

# %% [markdown] id="s1"
# ## 1. float16's floor
#
# `torch.finfo(torch.float16)` gives the limits: the largest value 65504, the smallest **normal** value 2⁻¹⁴, and
# below it the **subnormals**, down to 2⁻²⁴, which keep fewer and fewer significant bits. Below 2⁻²⁴ a value rounds
# to the nearer of 0 and 2⁻²⁴: anything above 2⁻²⁵ rounds up to 2⁻²⁴ (3·10⁻⁸ below does), 2⁻²⁵ itself is a tie that
# round-half-to-even sends to 0, and anything smaller becomes 0.

# %% id="s1-demo"
info = torch.finfo(torch.float16)
print(f"float16: max {info.max}, smallest normal {info.smallest_normal:.3e} (2**-14), "
      f"smallest subnormal {FP16_SMALLEST_SUBNORMAL:.3e} (2**-24)")
values = torch.tensor([1e-3, 1e-5, 1e-7, 3e-8, 1e-8])
for v, h in zip(values.tolist(), values.half().tolist()):
    print(f"  {v:.0e} -> float16 {h:.4e}" + ("   (underflow: zero)" if h == 0 else ""))

# %% [markdown] id="s2"
# ## 2. Real gradients, late in training
#
# We train the MLP in float32 for a while, then look at the gradients of one batch: the parameters' gradients, and
# the gradient of the hidden activations (the tensor that autocast's backward pass computes in float16). The question
# is which of them float16 could hold. (In quick mode, a short run on a subset.)

# %% id="s2-train"
from torch.utils.data import DataLoader
from tqdm.auto import tqdm
from gpucourse.data import fashion_mnist, float_dataset

train_set = float_dataset(fashion_mnist(train=True), limit=2_000 if QUICK else None)
loader = DataLoader(train_set, batch_size=256, shuffle=True, drop_last=True)
epochs = 4 if QUICK else 5
torch.manual_seed(0)
model = make_mlp().to(DEVICE)
optimizer, scheduler = make_adamw_cosine(model, total_steps=epochs * len(loader), lr=2e-3)
for _ in tqdm(range(epochs), desc="float32 training"):
    for xb, yb in loader:
        xb, yb = xb.to(DEVICE), yb.to(DEVICE)
        optimizer.zero_grad(set_to_none=True)
        F.cross_entropy(model(xb), yb).backward()
        optimizer.step()
        scheduler.step()

# one more batch: keep the gradients of the parameters and of the hidden activations
optimizer.zero_grad(set_to_none=True)
hidden = model[1](model[0](xb))
hidden.retain_grad()
F.cross_entropy(model[3](model[2](hidden)), yb).backward()
grads = {"parameters": torch.cat([p.grad.flatten() for p in model.parameters()]).cpu(),
         "hidden activations": hidden.grad.flatten().cpu()}

# %% id="s2-hist"
fig, ax = plt.subplots(figsize=(9, 3.6))
for (name, g), colour in zip(grads.items(), ("tab:blue", "tab:orange")):
    nonzero = g[g != 0].abs()
    ax.hist(nonzero.log10().numpy(), bins=120, alpha=0.6, color=colour, label=f"{name} ({nonzero.numel():,} non-zero)")
ax.axvline(math.log10(FP16_SMALLEST_NORMAL), color="k", ls="--", label="float16 smallest normal 2**-14")
ax.axvline(math.log10(FP16_SMALLEST_SUBNORMAL), color="tab:red", ls="-", label="float16 smallest subnormal 2**-24")
ax.axvspan(ax.get_xlim()[0], math.log10(FP16_SMALLEST_SUBNORMAL / 2), color="tab:red", alpha=0.08)
ax.set(xlabel="log10 |gradient|", ylabel="count", title="gradients late in training, against float16's floor")
ax.legend(fontsize=8)
fig.tight_layout()
plt.show()


# %% [markdown] id="s2-read"
# Everything in the shaded band (at or below 2⁻²⁵, half the smallest subnormal) becomes zero in float16; between the
# band and the red line values round up to 2⁻²⁴; everything between the two lines is subnormal, kept with reduced
# precision. The activation gradients sit lower than the parameter gradients: the loss is a *mean* over
# the batch, so each example's gradient carries a factor 1/256.

# %% [markdown] id="ex1"
# ## Exercise 1: `underflow_fraction` (3 points)
#
# Write `underflow_fraction(t, dtype=torch.float16)`: the share of the **non-zero** entries of `t` that become
# exactly zero when converted to `dtype`, as a Python `float` in [0, 1]. Entries that are already zero do not count
# (they are not lost), and a tensor without non-zero entries gives `0.0`. Negative values underflow too (to `-0.0`,
# which equals zero). What counts is what the conversion really gives: subnormals survive, and so does a value just
# under the smallest subnormal that rounds up to it. `t` may have any shape and any floating dtype.

# %% nbgrader={"grade": false, "grade_id": "underflow_fraction", "locked": false, "schema_version": 3, "solution": true}
def underflow_fraction(t, dtype=torch.float16) -> float:
    """Fraction of the non-zero entries of t that become exactly zero when converted to dtype.

    A Python float in [0, 1]; entries already zero do not count, and a tensor without non-zero
    entries gives 0.0. Negative values count too (they become -0.0). Any shape, any input dtype."""
    ### BEGIN SOLUTION
    nonzero = t[t != 0]
    if nonzero.numel() == 0:
        return 0.0
    return (nonzero.to(dtype) == 0).sum().item() / nonzero.numel()
    ### END SOLUTION


# %% nbgrader={"grade": true, "grade_id": "test_underflow_fraction", "locked": true, "points": 3, "schema_version": 3, "solution": false}
import math
import warnings
from hypothesis import strategies as st
from gpucourse import domains
from gpucourse.checks import Check
from gpucourse.contract import snapshot

# The domain the docstring states: every input dtype torch can count in (bool, integers, the floating types,
# complex), shapes () and zero-size included, transposed views, values from 0 and -0.0 through float16's ties to
# beyond its range, and every floating dtype to convert to.
IN_DTYPES = (torch.bool, torch.uint8, torch.int8, torch.int16, torch.int32, torch.int64, torch.float16,
             torch.bfloat16, torch.float32, torch.float64, torch.complex64, torch.complex128)
TARGETS = (torch.float16, torch.bfloat16, torch.float32, torch.float64)
EDGES = [0.0, -0.0, 1.0, -3.0, 1e-3, -1e-5, 6e-8, 4e-8, -3e-8, 2.0**-24, 2.0**-25, -2.0**-25, 2.0**-25 * 1.01,
         2e-8, 1e-9, 1e-30, -1e-39, 1e-42, 2.0**-134, 2.0**-150, 1e-50, 7e4, -1e5, 1e39]

def make(values, shape, dtype, transposed=False):
    """A tensor of dtype and shape holding values (Python floats) as that dtype holds them."""
    v = torch.tensor(values, dtype=torch.float64).reshape(shape)
    if dtype is torch.bool:
        t = v != 0
    elif dtype.is_complex:
        t = torch.complex(v, v.reshape(-1).roll(1).reshape(shape)).to(dtype)
    elif not dtype.is_floating_point:
        t = v.clamp(-1e6, 1e6).round().clamp(torch.iinfo(dtype).min, torch.iinfo(dtype).max).to(dtype)
    else:
        t = v.to(dtype)
    return t.transpose(0, -1) if transposed and t.dim() >= 2 else t

def tensors_of(shape):
    size = math.prod(shape)
    return st.builds(make, st.lists(st.one_of(st.sampled_from(EDGES), st.floats(allow_nan=False)),
                                    min_size=size, max_size=size),
                     st.just(shape), st.sampled_from(IN_DTYPES), st.booleans())

calls = st.tuples(domains.shapes(max_dims=3, max_side=3).flatmap(tensors_of), st.sampled_from(TARGETS))

def covering():
    """A fixed sample, made anew for each property: every input dtype in the shapes (), (0,), (2, 0), (2, 3) and a
    transposed (4, 6), with every dtype to convert to."""
    return [(t, target) for dtype in IN_DTYPES for target in TARGETS
            for t in (make([1e-9], (), dtype), make([], (0,), dtype), make([], (2, 0), dtype),
                      make([0.0, 1e-9, -0.0, 3e-8, 7e4, 1e-42], (2, 3), dtype),
                      make(EDGES, (4, 6), dtype, transposed=True))]

def fraction_in_range(c):
    got = underflow_fraction(*c)
    return isinstance(got, float) and 0.0 <= got <= 1.0 and (got == 0.0 or bool((c[0] != 0).any()))

def entry_by_entry(c):
    """The fraction is the share, among the non-zero entries, of those that become 0 when converted: each entry alone
    (a 1-entry tensor) gives 1.0 when it does, 0.0 when it does not or is zero already."""
    t, target = c
    flat = t.reshape(-1)
    alone = [underflow_fraction(flat[i:i + 1], target) for i in range(flat.numel())]
    due = [float(bool(e != 0) and bool(e.to(target) == 0)) for e in flat[:, None]]
    nonzero = int((flat != 0).sum())
    share = sum(alone) / nonzero if nonzero else 0.0
    return alone == due and math.isclose(underflow_fraction(t, target), share, abs_tol=1e-6)

def unchanged(c):
    before = snapshot(c)
    underflow_fraction(*c)
    return snapshot(c) == before

with Check("underflow_fraction") as check:
    t = torch.tensor([1.0, 1e-9, 0.0, 0.0, -1e-9, 1e-4])
    got = check.call(underflow_fraction, t)
    check.that(isinstance(got, float), "Return a Python float (use .item()).")
    check.that(0.0 <= got <= 1.0, "A Python float in [0, 1]: a fraction, not a percentage.")
    check.close(underflow_fraction(torch.tensor([0.0, 1.0, 0.0, 2.0])), 0.0,
                "Entries already zero do not count: they are not lost (here nothing underflows).")
    check.close(underflow_fraction(torch.tensor([1e-9, 1.0, 0.0, 0.0])), 0.5,
                "The fraction of the non-zero entries: 1 of the 2 non-zero entries underflows; zeros are not in it.")
    check.close(underflow_fraction(torch.zeros(3)), 0.0, "A tensor without non-zero entries gives 0.0.")
    check.close(underflow_fraction(torch.tensor([-1e-9, 1.0])), 0.5,
                "Negative values count too: -1e-9 becomes -0.0 in float16, which equals zero.")
    check.close(underflow_fraction(torch.tensor([1e-6, 1e-9])), 0.5,
                "1e-6 is below float16's smallest normal but survives as a subnormal: "
                "count only the entries that become exactly zero.")
    check.close(underflow_fraction(torch.tensor([4e-8, 2e-8])), 0.5,
                "Convert to the dtype and look: 4e-8 rounds up to float16's smallest subnormal 2**-24, 2e-8 to 0.")
    check.close(underflow_fraction(torch.tensor([[1e-9, 1.0, 0.0], [2.0, 1e-9, 3.0]])), 2 / 5,
                "Any shape: every entry of a 2-D tensor counts (here 2 of its 5 non-zero entries underflow).")
    check.close(underflow_fraction(torch.tensor([[1e-9, 1e-30], [1e-3, 0.0]]), torch.bfloat16), 0.0,
                "Convert to the dtype you are given: bfloat16 keeps 1e-30.")
    check.close(underflow_fraction(torch.tensor([1e-50, 1.0, 0.0, 1e-60], dtype=torch.float64)), 2 / 3,
                "Any input dtype: a float64 tensor's entries count as they are, also those too small for float32.")
    check.close(got, 0.5, "Two of the four non-zero entries underflow in float16; zeros do not count.")
    # the whole contract, over its domain (see calls and covering above)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")   # complex to real discards the imaginary part, with a warning
        check.forall(calls, fraction_in_range, "A Python float in [0, 1], and 0.0 for a tensor without non-zero "
                     "entries: for any shape (() and zero-size ones too) and any input dtype.", cases=covering())
        check.forall(calls, entry_by_entry, "The fraction of the non-zero entries that become exactly zero when "
                     "converted to dtype (an entry that becomes inf is not lost): for any shape, any input dtype "
                     "and any dtype to convert to.", cases=covering())
        check.forall(calls, unchanged, "t itself is not modified.", cases=covering())

### BEGIN HIDDEN TESTS
import math as _math
from gpucourse.checks import requirement as _requirement

for _trial in range(4):
    _n = int(torch.randint(50, 400, ()))
    _t = torch.randn(_n) * torch.pow(10.0, torch.empty(_n).uniform_(-12, 2))
    _t[torch.rand(_n) < 0.3] = 0.0
    if _trial % 2:  # any shape: the same entries as a 2-D tensor
        _t = _t[:_n - _n % 2].reshape(2, -1)
    for _dtype in (torch.float16, torch.bfloat16):
        _nz = [v for v in _t.flatten().tolist() if v != 0]
        _lost = sum(1 for v in _nz if torch.tensor(v).to(_dtype).item() == 0)
        _expected = _lost / len(_nz)
        with _requirement(f"the share of the non-zero entries of a tensor of shape {tuple(_t.shape)} that become 0 in "
                          f"{_dtype}, as a Python float in [0, 1]"):
            _got = underflow_fraction(_t, _dtype)
            assert isinstance(_got, float), f"got a {type(_got).__name__}"
            # 1e-6: a fraction computed in float32 is as right as one in float64; a wrong count is off by >= 1/400
            assert _math.isclose(_got, _expected, abs_tol=1e-6), f"got {_got}, expected {_expected}"
    with _requirement("the default dtype is float16"):
        assert _math.isclose(underflow_fraction(_t), underflow_fraction(_t, torch.float16), abs_tol=1e-6)
with _requirement("rounding at the bottom of float16: 2**-25 is a tie that goes to 0, just above it survives"):
    _edge = torch.tensor([2.0**-25, 2.0**-25 * 1.01, 2.0**-24, -2.0**-26, 1e-45, 3.0])
    _got = underflow_fraction(_edge)
    assert _math.isclose(_got, 3 / 6), f"got {_got}, expected 0.5"
with _requirement("bfloat16 keeps values down to about 1e-40; a tensor of zeros gives 0.0"):
    _got = underflow_fraction(torch.tensor([1e-30, 1e-39]), torch.bfloat16)
    assert _math.isclose(_got, 0.0), f"got {_got}, expected 0.0"
    _got = underflow_fraction(torch.zeros(5), torch.bfloat16)
    assert _got == 0.0, f"got {_got!r}, expected 0.0"
with _requirement("any shape and input dtype"):
    _got = underflow_fraction(torch.full((2, 3), 1e-9))
    assert _math.isclose(_got, 1.0), f"a 2x3 tensor of 1e-9: got {_got}, expected 1.0"
    _got = underflow_fraction(torch.tensor([1e-9, 1.0, 0.0], dtype=torch.float64))
    assert _math.isclose(_got, 0.5), f"float64 input: got {_got}, expected 0.5"
for _dtype in (torch.float16, torch.bfloat16, torch.float32):
    # float64 entries far below float32's smallest subnormal (1.4e-45): non-zero as given, 0 in any of these dtypes
    _tiny = torch.pow(10.0, torch.empty(int(torch.randint(5, 40, ())), dtype=torch.float64).uniform_(-80, -47))
    _big = torch.empty(int(torch.randint(5, 40, ())), dtype=torch.float64).uniform_(1, 100)
    _t = torch.cat([_tiny, _big, torch.zeros(3, dtype=torch.float64)])[torch.randperm(len(_tiny) + len(_big) + 3)]
    with _requirement(f"any input dtype: float64 entries too small for float32 are non-zero entries lost in {_dtype}"):
        _got = underflow_fraction(_t, _dtype)
        _expected = len(_tiny) / (len(_tiny) + len(_big))
        assert _math.isclose(_got, _expected, abs_tol=1e-6), f"got {_got}, expected {_expected}"
from gpucourse.contract import for_all as _for_all

def _covering():
    return [(t, target) for dtype in IN_DTYPES for target in TARGETS
            for t in (make([-1e-9], (), dtype), make([0.0], (), dtype), make([], (0,), dtype),
                      make([], (1, 0, 2), dtype), make(EDGES[::-1], (24,), dtype),
                      make(EDGES, (2, 3, 4), dtype, transposed=True), make([0.0] * 6, (3, 2), dtype, transposed=True))]

with warnings.catch_warnings():
    warnings.simplefilter("ignore")
    with _requirement("underflow_fraction keeps its contract for any shape (() and zero-size too), any input dtype "
                      "(bool, integers, floating, complex) and any floating dtype to convert to"):
        _for_all(calls, fraction_in_range, "a Python float in [0, 1], 0.0 without non-zero entries", examples=300,
                 cases=_covering())
        _for_all(calls, entry_by_entry, "the share of the non-zero entries that become exactly zero when converted",
                 examples=300, cases=_covering())
        _for_all(calls, unchanged, "t is not modified", examples=300, cases=_covering())
### END HIDDEN TESTS

# %% [markdown] fixtures="underflow_fraction"
# ### Mistakes and correct alternatives for `underflow_fraction` (author-only: in no generated notebook)
#
# **mistake `counts-zeros`**, sample, loses `test_underflow_fraction`: counts entries that were zero already
# ```diff
# @@
# -    nonzero = t[t != 0]
# -    if nonzero.numel() == 0:
# -        return 0.0
# -    return (nonzero.to(dtype) == 0).sum().item() / nonzero.numel()
# +    return (t.to(dtype) == 0).float().mean().item()
# ```
#
# **mistake `denominator-all`**, loses `test_underflow_fraction`: divides by every entry, not the non-zero ones
# ```diff
# @@
# -    nonzero = t[t != 0]
# -    if nonzero.numel() == 0:
# -        return 0.0
# -    return (nonzero.to(dtype) == 0).sum().item() / nonzero.numel()
# +    lost = ((t != 0) & (t.to(dtype) == 0)).sum().item()
# +    return lost / t.numel()
# ```
#
# **mistake `below-normal`**, loses `test_underflow_fraction`: counts subnormals as lost: they are kept
# ```diff
# @@
# -    nonzero = t[t != 0]
# -    if nonzero.numel() == 0:
# +    nz = t[t != 0]
# +    if nz.numel() == 0:
# @@
# -    return (nonzero.to(dtype) == 0).sum().item() / nonzero.numel()
# +    return (nz.abs() < torch.finfo(dtype).tiny).float().mean().item()
# ```
#
# **mistake `fp16-only`**, loses `test_underflow_fraction`: ignores dtype
# ```diff
# @@
# -    nonzero = t[t != 0]
# -    if nonzero.numel() == 0:
# +    nz = t[t != 0]
# +    if nz.numel() == 0:
# @@
# -    return (nonzero.to(dtype) == 0).sum().item() / nonzero.numel()
# +    return (nz.half() == 0).float().mean().item()
# ```
#
# **mistake `positive-only`**, loses `test_underflow_fraction`: forgets that negative values underflow too
# ```diff
# @@
# -    nonzero = t[t != 0]
# -    if nonzero.numel() == 0:
# +    nz = t[t != 0]
# +    if nz.numel() == 0:
# @@
# -    return (nonzero.to(dtype) == 0).sum().item() / nonzero.numel()
# +    return ((nz.to(dtype) == 0) & (nz > 0)).float().mean().item()
# ```
#
# **mistake `nan-on-empty`**, loses `test_underflow_fraction`: returns nan for a tensor of zeros
# ```diff
# @@
# -    nonzero = t[t != 0]
# -    if nonzero.numel() == 0:
# -        return 0.0
# -    return (nonzero.to(dtype) == 0).sum().item() / nonzero.numel()
# +    nz = t[t != 0]
# +    return (nz.to(dtype) == 0).float().mean().item()
# ```
#
# **mistake `below-smallest-subnormal`**, loses `test_underflow_fraction`: compares with 2**-24 instead of converting
# ```diff
# @@
# -    return (nonzero.to(dtype) == 0).sum().item() / nonzero.numel()
# +    smallest = torch.finfo(dtype).smallest_normal * torch.finfo(dtype).eps
# +    return (nonzero.abs() < smallest).sum().item() / nonzero.numel()
# ```
#
# **mistake `via-float32`**, loses `test_underflow_fraction`: converts to float32 first, so float64 entries below float32's range no longer count as non-zero
# ```diff
# @@
# +    t = t.float()
#      nonzero = t[t != 0]
# ```
#
# **mistake `tensor-result`**, loses `test_underflow_fraction`: returns the 0-d tensor of the division, not a Python float
# ```diff
# @@
# -    return (nonzero.to(dtype) == 0).sum().item() / nonzero.numel()
# +    return (nonzero.to(dtype) == 0).sum() / nonzero.numel()
# ```
#
# **mistake `percent`**, loses `test_underflow_fraction`: returns a percentage (as the demo prints it), not a fraction in [0, 1]
# ```diff
# @@
# -    return (nonzero.to(dtype) == 0).sum().item() / nonzero.numel()
# +    return 100 * (nonzero.to(dtype) == 0).sum().item() / nonzero.numel()
# ```
#
# **mistake `len-rows`**, loses `test_underflow_fraction`: counts the entries with len(t), the number of rows of a 2-D tensor
# ```diff
# @@
# -    nonzero = t[t != 0]
# -    if nonzero.numel() == 0:
# +    lost = ((t != 0) & (t.to(dtype) == 0)).sum().item()
# +    nonzero = len(t) - (t == 0).sum().item()
# +    if nonzero == 0:
#          return 0.0
# -    return (nonzero.to(dtype) == 0).sum().item() / nonzero.numel()
# +    return lost / nonzero
# ```
#
# **alternative `float32-mean`**: the fraction computed in float32 (mean of a float mask)
# ```python
# def underflow_fraction(t, dtype=torch.float16) -> float:
#     mask = t != 0
#     if not mask.any():
#         return 0.0
#     lost = (t.to(dtype) == 0) & mask
#     return lost[mask].float().mean().item()
# ```
#
# **alternative `count-ints`**: counts with count_nonzero; zeros stay zeros
# ```python
# def underflow_fraction(t, dtype=torch.float16) -> float:
#     _nonzero = int(torch.count_nonzero(t))
#     _survive = int(torch.count_nonzero(t.to(dtype)))
#     return (_nonzero - _survive) / _nonzero if _nonzero else 0.0
# ```
#
# **alternative `python-loop`**: a Python list of the non-zero values
# ```python
# def underflow_fraction(t, dtype=torch.float16) -> float:
#     values = [v for v in t.flatten().tolist() if v != 0.0]
#     if not values:
#         return 0.0
#     low = torch.tensor(values, dtype=t.dtype).to(dtype)
#     return float((low == 0).sum()) / len(values)
# ```
#
# **clauses of `underflow_fraction`**
# - "Fraction of the non-zero entries of t": visible "The fraction of the non-zero entries" by `denominator-all`
# - "that become exactly zero": visible "count only the entries that become exactly zero" by `below-normal`
# - "when converted": visible "Convert to the dtype and look" by `below-smallest-subnormal`
# - "converted to dtype": visible "Convert to the dtype you are given" by `fp16-only`
# - "A Python float": visible "Return a Python float" by `tensor-result`
# - "in [0, 1]": visible "A Python float in [0, 1]" by `percent`
# - "entries already zero do not count": visible "Entries already zero do not count" by `counts-zeros`
# - "a tensor without non-zero entries gives 0.0": visible "A tensor without non-zero entries gives 0.0" by `nan-on-empty`
# - "Negative values count too (they become -0.0).": visible "Negative values count too" by `positive-only`
# - "Any shape": visible "Any shape" by `len-rows`
# - "any input dtype": visible "Any input dtype" by `via-float32`
# - "Any shape, any input dtype.": allows `python-loop`, `count-ints`
# - "A Python float in [0, 1]": allows `float32-mean`

# %% [markdown] id="s3"
# ### What a 2¹⁶ scale saves
#
# The scaler's default initial scale is 2¹⁶ = 65536. Multiplying a gradient by it shifts its exponent up by 16,
# far above the red line, and the largest gradients stay well below float16's maximum 65504:

# %% id="s3-fraction"
def subnormal_fraction(t):
    """Share of the non-zero entries below float16's smallest normal: kept, but with fewer bits."""
    nonzero = t[t != 0].abs()
    return (nonzero < FP16_SMALLEST_NORMAL).float().mean().item()

if needs("underflow_fraction"):
    scale = 2.0**16
    rows = {}
    for name, g in grads.items():
        rows[name] = (underflow_fraction(g), underflow_fraction(g * scale))
        print(f"{name}:")
        print(f"   lost (zero) in float16:        {rows[name][0]:8.3%} unscaled, {rows[name][1]:8.3%} scaled by 2**16")
        print(f"   subnormal (reduced precision): {subnormal_fraction(g):8.3%} unscaled, "
              f"{subnormal_fraction(g * scale):8.3%} scaled by 2**16")
        print(f"   largest |g| x 2**16 = {(g.abs().max() * scale).item():.3g} (float16 max 65504)")

    fig, ax = plt.subplots(figsize=(7, 2.8))
    labels = list(rows)
    ax.barh([name + ", unscaled" for name in labels], [rows[name][0] * 100 for name in labels], color="tab:red")
    ax.barh([name + ", x 2**16" for name in labels], [rows[name][1] * 100 for name in labels], color="tab:green")
    ax.set(xlabel="% of non-zero gradient entries that become 0 in float16", title="underflow with and without scaling")
    fig.tight_layout()
    plt.show()


# %% [markdown] id="s3-read"
# How much underflows depends on the model, the data and how far training has gone: gradients shrink as the loss
# falls. What the numbers show is the pattern: the activation gradients sit lowest, a large share of them is
# subnormal, and the 2¹⁶ scale lifts them by 16 binary orders of magnitude while the largest stays far from 65504.
# After a long run on easy data (the full run here), even 2¹⁶ may leave some activation gradients below the floor,
# with room to spare at the top: that is why the scaler keeps *growing* the scale while no `inf` appears (section 4).

# %% [markdown] id="s4"
# ## 3. The canonical step
#
# ```python
# optimizer.zero_grad()
# with torch.autocast(device_type=device_type, dtype=torch.float16):
#     loss = criterion(model(x), y)
# scaler.scale(loss).backward()      # gradients of loss * scale
# scaler.unscale_(optimizer)         # only if you clip: divide the gradients by the scale, in place
# clip_grad_norm_(model.parameters(), max_norm)
# scaler.step(optimizer)             # unscales (if not done), checks for inf/NaN, skips the step if any
# scaler.update()                    # adjusts the scale for the next iteration
# ```
#
# `backward()` runs **outside** the autocast block (its ops use the dtypes autocast chose in forward). `unscale_` is
# needed only when something between backward and step looks at the gradients, like clipping: the norm must be taken
# of the real gradients, not of gradients 65536 times too large.

# %% [markdown] id="ex2"
# ## Exercise 2: `scaled_train_step` (4 points)
#
# Write `scaled_train_step(model, x, y, optimizer, scaler, criterion, device_type, dtype=torch.float16, max_norm=None)`:
# one canonical mixed-precision step as above, returning the loss before the step (not scaled) as a Python `float`;
# the parameters stay float32:
#
# - zero the gradients first; forward and loss under `torch.autocast(device_type=device_type, dtype=dtype)`;
# - backward through `scaler.scale(loss)`;
# - if `max_norm` is not None (it is None or a positive number): `scaler.unscale_(optimizer)`, then
#   `torch.nn.utils.clip_grad_norm_(model.parameters(), max_norm)`;
# - `scaler.step(optimizer)`, then `scaler.update()`.

# %% nbgrader={"grade": false, "grade_id": "scaled_train_step", "locked": false, "schema_version": 3, "solution": true}
def scaled_train_step(model, x, y, optimizer, scaler, criterion, device_type,
                      dtype=torch.float16, max_norm=None) -> float:
    """One mixed-precision training step with a gradient scaler; returns the unscaled loss as a float.

    In order: zero the gradients; forward and loss under torch.autocast(device_type=device_type,
    dtype=dtype) (the loss may also follow the block); backward through scaler.scale(loss); if
    max_norm is not None (it is None or a positive number), scaler.unscale_(optimizer) then clip
    the gradients' total norm to max_norm (unscale_ may also be called, or a clip to an infinite
    norm made, when max_norm is None: neither changes the step); scaler.step(optimizer);
    scaler.update().
    Returns the loss before the step (not scaled) as a Python float; the parameters stay float32."""
    ### BEGIN SOLUTION
    optimizer.zero_grad(set_to_none=True)
    with torch.autocast(device_type=device_type, dtype=dtype):
        loss = criterion(model(x), y)
    scaler.scale(loss).backward()
    if max_norm is not None:
        scaler.unscale_(optimizer)
        torch.nn.utils.clip_grad_norm_(model.parameters(), max_norm)
    scaler.step(optimizer)
    scaler.update()
    return loss.item()
    ### END SOLUTION


# %% nbgrader={"grade": true, "grade_id": "test_scaled_train_step", "locked": true, "points": 4, "schema_version": 3, "solution": false}
import copy
import math
import warnings
from gpucourse.amp import OpDtypes
from gpucourse.checks import Check, CheckFailed

#: GradScaler's own complaints, and the docstring's words for what each means
_SCALER_SAYS = [("_scale is None", "Backward through scaler.scale(loss): without it GradScaler has no scale for "
                                   "the step."),
                ("No inf checks were recorded", "Call scaler.step(optimizer), not optimizer.step(): scaler.step checks "
                                                "the gradients for inf/NaN before scaler.update()."),
                ("unscale FP16 gradients", "Keep the parameters float32: GradScaler refuses float16 gradients.")]

def _step(*args, **kwargs):
    """Call scaled_train_step; an error GradScaler raises becomes the hint for the step it says is missing."""
    try:
        return scaled_train_step(*args, **kwargs)
    except (AssertionError, ValueError) as error:
        for words, hint in _SCALER_SAYS:
            if words in str(error):
                raise CheckFailed(f"{hint} (GradScaler said: {error})") from None
        raise

def _moved(model, start):
    """How far a step moved the parameters: the norm of the change, over all of them."""
    return math.sqrt(sum(((p.detach() - q) ** 2).sum().item() for p, q in zip(model.parameters(), start)))

# The domain the docstring states: models of the kinds the course builds (dropout and BatchNorm too), optimizers
# with one or several parameter groups, float16 and bfloat16, max_norm None or a positive number (an int too), a
# scaler enabled or not (GradScaler(enabled=False), as often with bfloat16), any criterion.
import contextlib
from hypothesis import strategies as st
from gpucourse import contract, domains

class Counted(torch.nn.Module):
    """A model that records each forward: the grad mode and autocast state it ran under, and its output."""
    def __init__(self, inner):
        super().__init__()
        self.inner, self.seen = inner, []

    def forward(self, x):
        out = self.inner(x)
        self.seen.append({"grad": torch.is_grad_enabled(), "autocast": torch.is_autocast_enabled("cpu"),
                          "dtype": torch.get_autocast_dtype("cpu"), "out": out.detach()})
        return out

CRITERIA = (torch.nn.CrossEntropyLoss(), torch.nn.CrossEntropyLoss(reduction="sum"),
            lambda out, target: torch.nn.functional.cross_entropy(out, target, label_smoothing=0.1))
MAX_NORMS = (None, 1e-3, 0.05, 1, 2, 1e6)
#: (model, optimizer, dtype, max_norm, init_scale, scaler enabled, criterion, batch size, seed, input scale)
step_cases = st.tuples(st.integers(0, 3), st.integers(0, 3), st.sampled_from([torch.float16, torch.bfloat16]),
                       st.sampled_from(MAX_NORMS), st.sampled_from([1.0, 2.0**4, 2.0**10]), st.booleans(),
                       st.integers(0, len(CRITERIA) - 1), st.integers(2, 8), st.integers(0, 2**16),
                       st.sampled_from([1.0, 5.0]))

def step_covering(both_dtypes=False):
    """A fixed sample, made anew for each property: every model with every optimizer, both dtypes, every max_norm
    (an int one with two parameter groups too), the scaler enabled and disabled, every criterion; both_dtypes: each
    of them in both dtypes."""
    dtypes = (torch.float16, torch.bfloat16)
    return [(m, o, dtypes[(i + j) % 2], MAX_NORMS[i % len(MAX_NORMS)], 2.0**10, i % 3 != 1, i % len(CRITERIA), 6,
             i, 1.0 if i % 4 == 3 else 5.0)
            for j in range(2 if both_dtypes else 1) for i, (m, o) in enumerate((m, o) for m in range(4)
                                                                               for o in range(4))]

@contextlib.contextmanager
def one_thread():
    """Tiny tensors: one thread is faster than several that wait for each other (the setting is put back)."""
    threads = torch.get_num_threads()
    torch.set_num_threads(1)
    try:
        yield
    finally:
        torch.set_num_threads(threads)

def run_step(case, stale=False, sgd_lr_1=False, **changes):
    """One step of a fresh, seeded case: (the loss returned, the model, the scaler, its parameters before); stale:
    every parameter starts with a gradient left over; sgd_lr_1: plain SGD with lr=1 (one or two groups), so that the
    parameters move by exactly the (clipped) gradient."""
    m, o, dtype, max_norm, init_scale, enabled, crit, n, seed, x_scale = case
    max_norm, init_scale = changes.get("max_norm", max_norm), changes.get("init_scale", init_scale)
    model = Counted(domains.model_cases(in_features=5, classes=3)[m])
    if sgd_lr_1:
        named = list(model.named_parameters())
        groups = [[p for name, p in named if name.endswith("weight")], [p for name, p in named
                                                                       if not name.endswith("weight")]]
        optimizer = torch.optim.SGD([{"params": g} for g in groups] if o % 2 else model.parameters(), lr=1.0)
    else:
        optimizer = domains.optimizer_cases(model)[o]
    x, y = domains.batches([n], in_features=5, classes=3, seed=seed)[0]
    if stale:
        for p in model.parameters():
            p.grad = torch.full_like(p, 0.25)
    start = [p.detach().clone() for p in model.parameters()]
    scaler = torch.amp.GradScaler("cpu", init_scale=init_scale, growth_interval=1, enabled=enabled)
    with torch.random.fork_rng(devices=[]):   # dropout draws the same masks in every run of a case
        torch.manual_seed(seed)
        loss = scaled_train_step(model, x * x_scale, y, optimizer, scaler, CRITERIA[crit], "cpu", dtype=dtype,
                                 max_norm=max_norm)
    return loss, model, scaler, start

def one_forward_under_autocast(case):
    """One forward, with grad enabled and autocast on with dtype; the loss returned is that forward's loss, a Python
    float; the parameters stay float32; the scaler was updated (growth_interval=1: doubled, or halved on inf)."""
    m, o, dtype, max_norm, init_scale, enabled, crit, n, seed, x_scale = case
    loss, model, scaler, _ = run_step(case)
    if len(model.seen) != 1:
        return False
    seen = model.seen[0]
    x, y = domains.batches([n], in_features=5, classes=3, seed=seed)[0]
    due = float(CRITERIA[crit](seen["out"].float(), y))
    eps = torch.finfo(dtype).eps
    return (seen["grad"] and seen["autocast"] and seen["dtype"] == dtype and isinstance(loss, float)
            and math.isclose(loss, due, rel_tol=8 * eps, abs_tol=8 * eps)
            and all(p.dtype == torch.float32 for p in model.parameters())
            and scaler.get_scale() in ((init_scale * 2, init_scale / 2) if enabled else (1.0,)))

def same_parameters(a, b, rtol=1e-5, atol=1e-7):
    return all(torch.allclose(p, q, rtol=rtol, atol=atol) for p, q in zip(a.parameters(), b.parameters()))

def stale_gradients_ignored(case):
    """Gradients left from an earlier step on every parameter (in every parameter group) change nothing."""
    fresh, stale = run_step(case), run_step(case, stale=True)
    return fresh[0] == stale[0] and same_parameters(fresh[1], stale[1])

def clipped_to_total_norm(case):
    """With plain SGD at lr=1 a step moves the parameters by the gradient: with max_norm it moves by the gradient
    scaled to a total norm of at most max_norm (over all parameters, in every group); with None by all of it."""
    def moved(**changes):
        _, model, _, start = run_step(case, sgd_lr_1=True, **changes)
        return [p.detach() - q for p, q in zip(model.parameters(), start)]
    full, clipped, huge = moved(max_norm=None), moved(), moved(max_norm=1e30)
    norm = math.sqrt(sum(float((d.double() ** 2).sum()) for d in full))
    max_norm = case[3]
    factor = 1.0 if max_norm is None else min(1.0, max_norm / (norm + 1e-6))
    return (all(torch.allclose(c, f * factor, rtol=1e-3, atol=1e-6) for c, f in zip(clipped, full))
            and all(torch.allclose(h, f, rtol=1e-5, atol=1e-6) for h, f in zip(huge, full)))

def scale_does_not_matter(case):
    """The scale is divided out again: the same step with another (non-overflowing) scale gives the same
    parameters."""
    return same_parameters(run_step(case, sgd_lr_1=True, init_scale=2.0**3)[1],
                           run_step(case, sgd_lr_1=True, init_scale=2.0**8)[1], rtol=1e-3, atol=1e-6)

def inputs_unchanged(case):
    m, o, dtype, max_norm, init_scale, enabled, crit, n, seed, x_scale = case
    x, y = domains.batches([n], in_features=5, classes=3, seed=seed)[0]
    model = Counted(domains.model_cases(in_features=5, classes=3)[m])
    inputs = (x, y)
    before = contract.snapshot(inputs)
    scaled_train_step(model, x, y, domains.optimizer_cases(model)[o], torch.amp.GradScaler("cpu", enabled=enabled),
                      CRITERIA[crit], "cpu", dtype=dtype, max_norm=max_norm)
    return contract.snapshot(inputs) == before

class Boom(Exception):
    """What the model below raises."""

class Failing(torch.nn.Linear):
    """A model whose forward raises its own exception object."""
    def forward(self, x):
        self.error = Boom("the model failed")
        raise self.error

def error_passes():
    """True when the exception the model raises reaches the caller as the same object."""
    failing = Failing(5, 3)
    try:
        scaled_train_step(failing, torch.randn(4, 5), torch.tensor([0, 1, 2, 0]),
                          torch.optim.SGD(failing.parameters(), lr=0.1), torch.amp.GradScaler("cpu"),
                          torch.nn.CrossEntropyLoss(), "cpu")
    except Exception as error:  # the student's code may raise anything: what it is is the finding
        return error is getattr(failing, "error", None)
    return False

with Check("scaled_train_step") as check, warnings.catch_warnings():
    warnings.simplefilter("ignore")
    def mlp():
        return torch.nn.Sequential(torch.nn.Linear(6, 8), torch.nn.ReLU(), torch.nn.Linear(8, 3))
    x, y = torch.randn(10, 6), torch.randint(0, 3, (10,))
    # a clean step
    model = mlp()
    with torch.no_grad(), torch.autocast(device_type="cpu", dtype=torch.float16):
        loss_before = torch.nn.functional.cross_entropy(model(x), y).item()   # this batch's loss, before the step
    before = copy.deepcopy(model.state_dict())
    scaler = torch.amp.GradScaler("cpu", init_scale=2.0**10, growth_interval=1)
    loss = _step(model, x, y, torch.optim.SGD(model.parameters(), lr=0.5), scaler, torch.nn.CrossEntropyLoss(),
                 "cpu", dtype=torch.float16)
    check.that(isinstance(loss, float), f"Return the loss as a Python float (loss.item()) (got {type(loss).__name__})")
    check.that(all(p.dtype == torch.float32 for p in model.parameters()), "Keep the parameters float32.")
    # the dtype asked for is the one autocast uses
    model = mlp()
    with OpDtypes() as ops:
        _step(model, x, y, torch.optim.SGD(model.parameters(), lr=0.1), torch.amp.GradScaler("cpu", init_scale=2.0**10),
              torch.nn.CrossEntropyLoss(), "cpu", dtype=torch.float16)
    check.that(any(op in ("addmm", "mm") and out == torch.float16 for op, _, out in ops.rows),
               "With device_type='cpu' and dtype=torch.float16 the matrix multiplies must run in float16 on the CPU: "
               "forward and loss under torch.autocast(device_type=device_type, dtype=dtype).")
    check.that(not math.isclose(loss, loss_before * 2**10, rel_tol=1e-2),
               "Return the unscaled loss, not the scaled loss (scaler.scale(loss) is the loss times the scale, "
               f"2**10 here) (got {loss!r})")
    check.close(loss, loss_before, "Return the batch's loss before the step (the optimizer step changes it).",
                rel=2e-3)
    check.that(any(not torch.equal(before[k], v) for k, v in model.state_dict().items()),
               "A clean step must update the parameters: scaler.step(optimizer).")
    check.equal(scaler.get_scale(), 2.0**11, "After a clean step with growth_interval=1 the scale doubles: "
                "end the step with scaler.update().")
    # a step whose scaled gradients overflow float16
    model = mlp()
    before = copy.deepcopy(model.state_dict())
    scaler = torch.amp.GradScaler("cpu", init_scale=2.0**40)
    _step(model, x, y, torch.optim.SGD(model.parameters(), lr=0.1), scaler, torch.nn.CrossEntropyLoss(), "cpu",
          dtype=torch.float16)
    check.that(all(torch.equal(before[k], v) for k, v in model.state_dict().items()),
               "With a scale of 2**40 the float16 gradients overflow and the step must be skipped: "
               "call scaler.step(optimizer), not optimizer.step().")
    check.equal(scaler.get_scale(), 2.0**39, "After an overflow, scaler.update() halves the scale.")
    # clipping: with lr=1 and plain SGD the parameters move by exactly the clipped gradient norm
    model = mlp()
    start = [p.detach().clone() for p in model.parameters()]
    _step(model, x, y, torch.optim.SGD(model.parameters(), lr=1.0), torch.amp.GradScaler("cpu", init_scale=2.0**10),
          torch.nn.CrossEntropyLoss(), "cpu", dtype=torch.float16, max_norm=1e-3)
    moved = _moved(model, start)
    check.that(moved <= 1e-3 * 1.05, "With max_norm=1e-3 and lr=1 the parameters may move by at most 1e-3: "
               f"clip the gradients' total norm to max_norm (they moved by {moved:.3g}).")
    check.that(moved >= 1e-3 * 0.95, "With max_norm=1e-3 and lr=1 the parameters must move by 1e-3: clip the true "
               f"gradients, after scaler.unscale_(optimizer), to max_norm (they moved by {moved:.3g}).")
    # no clipping when max_norm is None: the parameters move by the whole gradient's norm (here well above 1)
    model = mlp()
    big_x = x * 30
    twin = copy.deepcopy(model)
    torch.nn.functional.cross_entropy(twin(big_x), y).backward()
    full = math.sqrt(sum((p.grad ** 2).sum().item() for p in twin.parameters()))
    start = [p.detach().clone() for p in model.parameters()]
    _step(model, big_x, y, torch.optim.SGD(model.parameters(), lr=1.0), torch.amp.GradScaler("cpu", init_scale=1.0),
          torch.nn.CrossEntropyLoss(), "cpu", dtype=torch.float16)
    check.close(_moved(model, start), full, f"With max_norm=None nothing is clipped: with lr=1 the parameters must "
                f"move by the whole gradient's norm, {full:.3g} here.", rel=5e-2)
    # gradients left over from an earlier step (NaN here) must not reach this one
    model = mlp()
    for p in model.parameters():
        p.grad = torch.full_like(p, float("nan"))
    start = [p.detach().clone() for p in model.parameters()]
    scaler = torch.amp.GradScaler("cpu", init_scale=2.0**10, growth_interval=1)
    _step(model, x, y, torch.optim.SGD(model.parameters(), lr=0.1), scaler, torch.nn.CrossEntropyLoss(), "cpu",
          dtype=torch.float16)
    check.that(scaler.get_scale() == 2.0**11 and all(torch.isfinite(p).all() for p in model.parameters())
               and any(not torch.equal(p, q) for p, q in zip(model.parameters(), start)),
               "Gradients left from an earlier step must not count: zero them first (optimizer.zero_grad()).")
    # the whole contract, over its domain (see step_cases and step_covering above)
    with one_thread():
        check.forall(step_cases, one_forward_under_autocast, "One forward and loss under torch.autocast(device_type="
                     "device_type, dtype=dtype) with the criterion you are given; return that forward's loss as a "
                     "Python float, keep the parameters float32, end with scaler.update(): for any model (dropout and "
                     "BatchNorm too), optimizer, dtype, max_norm, criterion, and a scaler enabled or not.",
                     examples=10, cases=step_covering())
        check.forall(step_cases, stale_gradients_ignored, "Zero the gradients first: gradients left on the "
                     "parameters (in every parameter group of the optimizer) must not change the step.",
                     examples=10, cases=step_covering())
        check.forall(step_cases, clipped_to_total_norm, "If max_norm is not None (None or a positive number, an "
                     "int too): scaler.unscale_(optimizer), then clip the gradients' total norm (over all the "
                     "parameters, whatever the optimizer's parameter groups) to max_norm; with None nothing is "
                     "clipped.", examples=10, cases=step_covering())
        check.forall(step_cases, scale_does_not_matter, "Backward through scaler.scale(loss) and step with "
                     "scaler.step(optimizer): the scale is divided out, so the step does not depend on it.",
                     examples=5, cases=step_covering()[::3])
        check.forall(step_cases, inputs_unchanged, "x and y are not modified.", examples=5,
                     cases=step_covering()[::3])
        check.that(error_passes(), "An exception raised by the model must reach the caller as it is (the same "
                   "exception object), not be caught or replaced.")

### BEGIN HIDDEN TESTS
def _reference_step(model, x, y, optimizer, scaler, criterion, device_type, dtype, max_norm, loss_inside=True):
    """The docstring's step; loss_inside=False: the loss follows the autocast block (allowed), computed on the
    low-precision output as it is."""
    optimizer.zero_grad(set_to_none=True)
    with torch.autocast(device_type=device_type, dtype=dtype):
        out = model(x)
        if loss_inside:
            loss = criterion(out, y)
    if not loss_inside:
        loss = criterion(out, y)
    scaler.scale(loss).backward()
    if max_norm is not None:
        scaler.unscale_(optimizer)
        torch.nn.utils.clip_grad_norm_(model.parameters(), max_norm)
    scaler.step(optimizer)
    scaler.update()
    return loss.item()

def _compare(device_type, dtype, max_norm, init_scale, steps, d=6, h=8, k=3, n=10, x_scale=1.0):
    """Run the student's step and the reference side by side on copies; return both histories. The reference is
    run both ways the docstring allows (the loss inside the autocast block, or after it on the low-precision
    output); the student's answer is compared with the one whose losses it follows."""
    model = torch.nn.Sequential(torch.nn.Linear(d, h), torch.nn.ReLU(), torch.nn.Linear(h, k)).to(device_type)
    for p in model.parameters():
        p.grad = torch.ones_like(p) * 3.0           # stale gradients that must be zeroed
    twins = [copy.deepcopy(model) for _ in range(2)]
    opts = [torch.optim.SGD(m.parameters(), lr=0.1, momentum=0.9) for m in (model, *twins)]
    scalers = [torch.amp.GradScaler(device_type, init_scale=init_scale, growth_interval=2) for _ in range(3)]
    losses = [[], [], []]
    for _ in range(steps):
        x = torch.randn(n, d, device=device_type) * x_scale
        y = torch.randint(0, k, (n,), device=device_type)
        losses[0].append(scaled_train_step(model, x, y, opts[0], scalers[0], torch.nn.CrossEntropyLoss(),
                                           device_type, dtype=dtype, max_norm=max_norm))
        for j, inside in ((1, True), (2, False)):
            losses[j].append(_reference_step(twins[j - 1], x, y, opts[j], scalers[j], torch.nn.CrossEntropyLoss(),
                                             device_type, dtype, max_norm, loss_inside=inside))
    def _gap(j):
        return sum(abs(float(a) - b) for a, b in zip(losses[0], losses[j])
                   if isinstance(a, (int, float)) and math.isfinite(a) and math.isfinite(b))
    j = min((1, 2), key=_gap)
    return model, twins[j - 1], [scalers[0], scalers[j]], [losses[0], losses[j]]

with warnings.catch_warnings():
    warnings.simplefilter("ignore")
    _cases = [("cpu", torch.float16, None, 2.0**8), ("cpu", torch.float16, 0.05, 2.0**12),
              ("cpu", torch.float16, 1e6, 2.0**12), ("cpu", torch.bfloat16, 0.05, 2.0**16),
              ("cpu", torch.float16, None, 2.0**40),        # overflows: steps skipped, scale backs off
              ("cpu", torch.float16, 0.05, 2.0**40),
              ("cpu", torch.float16, None, 1.0, 30.0)]     # large gradients, not clipped: max_norm is None
    if torch.cuda.is_available():
        _cases += [("cuda", torch.float16, None, 2.0**12), ("cuda", torch.float16, 0.05, 2.0**40)]
    from gpucourse.checks import requirement as _requirement
    for _case in _cases:
        _dims = [int(v) for v in torch.randint(3, 12, (3,))]
        _what = f"{_case[0]}, {_case[1]}, max_norm={_case[2]}, init_scale={_case[3]:g}" + (
            f", inputs x {_case[4]:g}" if len(_case) > 4 else "")
        with _requirement(f"three canonical steps ({_what}) run"):
            _model, _twin, _scalers, _losses = _compare(*_case[:4], steps=3, d=_dims[0], h=_dims[1], k=_dims[2],
                                                        x_scale=_case[4] if len(_case) > 4 else 1.0)
        with _requirement(f"each step returns the unscaled loss as a Python float ({_what})"):
            assert all(isinstance(v, float) for v in _losses[0]), f"got {_losses[0]!r}"
            assert all(abs(a - b) <= 1e-4 * max(1.0, abs(b)) for a, b in zip(*_losses)), \
                f"got {_losses[0]}, expected {_losses[1]}"
        with _requirement(f"the parameters after three steps are the canonical step's, in float32 ({_what})"):
            for _p, _q in zip(_model.parameters(), _twin.parameters()):
                assert _p.dtype == torch.float32, f"a parameter is {_p.dtype}"
                assert torch.allclose(_p, _q, rtol=1e-5, atol=1e-6), \
                    f"largest difference {(_p - _q).abs().max().item():.3g}"
        with _requirement(f"the scaler's scale and growth tracker are the canonical step's ({_what})"):
            assert _scalers[0].get_scale() == _scalers[1].get_scale(), \
                f"scale {_scalers[0].get_scale()}, expected {_scalers[1].get_scale()}"
            assert int(_scalers[0]._growth_tracker) == int(_scalers[1]._growth_tracker), \
                f"tracker {int(_scalers[0]._growth_tracker)}, expected {int(_scalers[1]._growth_tracker)}"
        with _requirement("autocast is off again after the step"):
            assert not torch.is_autocast_enabled(_case[0])
    from gpucourse.contract import for_all as _for_all

    def _covering():
        return step_covering(both_dtypes=True) + [
            (m, o, dtype, max_norm, 2.0**4, enabled, crit, 3, 7 * m + o, 5.0) for m in range(4) for o in (1, 3)
            for dtype in (torch.float16, torch.bfloat16) for max_norm, enabled, crit in ((1, True, 1), (2, False, 2))]

    with _requirement("scaled_train_step keeps its contract for any model (dropout and BatchNorm too), optimizer "
                      "(several parameter groups too), float16 and bfloat16, max_norm None or a positive number, "
                      "any criterion, and a scaler enabled or not"), one_thread():
        _for_all(step_cases, one_forward_under_autocast, "one forward and loss under autocast(device_type, dtype) "
                 "with the criterion given, its loss returned as a float, float32 parameters, scaler.update()",
                 examples=60, cases=_covering())
        _for_all(step_cases, stale_gradients_ignored, "the gradients zeroed first, in every parameter group",
                 examples=60, cases=_covering())
        _for_all(step_cases, clipped_to_total_norm, "with max_norm the gradients' total norm clipped to it after "
                 "unscale_, over all parameters; with None nothing clipped", examples=60, cases=_covering())
        _for_all(step_cases, scale_does_not_matter, "the step does not depend on the scale", examples=30,
                 cases=_covering()[::3])
        _for_all(step_cases, inputs_unchanged, "x and y not modified", examples=30, cases=_covering()[::3])
    with _requirement("an exception raised by the model reaches the caller as the same object"):
        assert error_passes(), "the model's exception was caught or replaced"
### END HIDDEN TESTS

# %% [markdown] fixtures="scaled_train_step"
# ### Mistakes and correct alternatives for `scaled_train_step` (author-only: in no generated notebook)
#
# **mistake `optimizer-step`**, sample, loses `test_scaled_train_step`: optimizer.step() instead of scaler.step(optimizer)
# ```diff
# @@
# -    optimizer.zero_grad(set_to_none=True)
# +    optimizer.zero_grad()
# @@
# -    scaler.step(optimizer)
# +    optimizer.step()
# ```
#
# **mistake `optimizer-step-no-update`**, loses `test_scaled_train_step`: steps with the scaled gradients, never updates the scale
# ```diff
# @@
# -    optimizer.zero_grad(set_to_none=True)
# +    optimizer.zero_grad()
# @@
# -    if max_norm is not None:
# -        scaler.unscale_(optimizer)
# -        torch.nn.utils.clip_grad_norm_(model.parameters(), max_norm)
# -    scaler.step(optimizer)
# -    scaler.update()
# +    optimizer.step()
# ```
#
# **mistake `no-update`**, loses `test_scaled_train_step`: forgets scaler.update()
# ```diff
# @@
# -    optimizer.zero_grad(set_to_none=True)
# +    optimizer.zero_grad()
# @@
# -    scaler.update()
# ```
#
# **mistake `clip-scaled`**, loses `test_scaled_train_step`: clips the scaled gradients
# ```diff
# @@
# -    optimizer.zero_grad(set_to_none=True)
# +    optimizer.zero_grad()
# @@
# -        scaler.unscale_(optimizer)
# ```
#
# **mistake `clip-then-unscale`**, loses `test_scaled_train_step`: unscale_ after clipping
# ```diff
# @@
# -    optimizer.zero_grad(set_to_none=True)
# +    optimizer.zero_grad()
#      with torch.autocast(device_type=device_type, dtype=dtype):
# @@
#      if max_norm is not None:
# +        torch.nn.utils.clip_grad_norm_(model.parameters(), max_norm)
#          scaler.unscale_(optimizer)
# -        torch.nn.utils.clip_grad_norm_(model.parameters(), max_norm)
# ```
#
# **mistake `unscaled-backward`**, loses `test_scaled_train_step`: backward on the unscaled loss: step divides by the scale anyway
# ```diff
# @@
# -    optimizer.zero_grad(set_to_none=True)
# +    optimizer.zero_grad()
# @@
# -    scaler.scale(loss).backward()
# +    loss.backward()
# ```
#
# **mistake `scaled-loss-returned`**, loses `test_scaled_train_step`: returns the scaled loss
# ```diff
# @@
# -    optimizer.zero_grad(set_to_none=True)
# +    optimizer.zero_grad()
# @@
# -    scaler.scale(loss).backward()
# +    scaled = scaler.scale(loss)
# +    scaled.backward()
# @@
# -    return loss.item()
# +    return scaled.item()
# ```
#
# **mistake `no-zero-grad`**, loses `test_scaled_train_step`: gradients accumulate across steps
# ```diff
# @@
# -    optimizer.zero_grad(set_to_none=True)
# ```
#
# **mistake `ignores-dtype`**, loses `test_scaled_train_step`: autocasts to a fixed dtype instead of dtype
# ```diff
# @@
# -    optimizer.zero_grad(set_to_none=True)
# -    with torch.autocast(device_type=device_type, dtype=dtype):
# +    optimizer.zero_grad()
# +    with torch.autocast(device_type=device_type, dtype=torch.bfloat16):
# ```
#
# **mistake `zero-grad-last`**, loses `test_scaled_train_step`: zeros the gradients after the step, not before
# ```diff
# @@
# -    optimizer.zero_grad(set_to_none=True)
#      with torch.autocast(device_type=device_type, dtype=dtype):
# @@
#      scaler.update()
# +    optimizer.zero_grad(set_to_none=True)
# ```
#
# **mistake `tensor-loss`**, loses `test_scaled_train_step`: returns the loss tensor (detached), not a Python float
# ```diff
# @@
# -    return loss.item()
# +    return loss.detach()
# ```
#
# **mistake `loss-after-step`**, loses `test_scaled_train_step`: reports the loss measured again after the step
# ```diff
# @@
#      scaler.update()
# -    return loss.item()
# +    with torch.no_grad(), torch.autocast(device_type=device_type, dtype=dtype):
# +        return criterion(model(x), y).item()
# ```
#
# **mistake `half-model`**, loses `test_scaled_train_step`: casts the model to dtype, as if mixed precision meant 16-bit parameters
# ```diff
# @@
#      optimizer.zero_grad(set_to_none=True)
# +    model.to(dtype)
# ```
#
# **mistake `autocast-cuda`**, loses `test_scaled_train_step`: autocasts for CUDA whatever device_type it is given
# ```diff
# @@
# -    with torch.autocast(device_type=device_type, dtype=dtype):
# +    with torch.autocast(device_type="cuda", dtype=dtype):
# ```
#
# **mistake `clip-value`**, loses `test_scaled_train_step`: clips each gradient entry to max_norm, not the total norm
# ```diff
# @@
# -        torch.nn.utils.clip_grad_norm_(model.parameters(), max_norm)
# +        torch.nn.utils.clip_grad_value_(model.parameters(), max_norm)
# ```
#
# **mistake `clip-default`**, loses `test_scaled_train_step`: clips to 1.0 when max_norm is None, as module 6 did
# ```diff
# @@
# -    if max_norm is not None:
# -        scaler.unscale_(optimizer)
# -        torch.nn.utils.clip_grad_norm_(model.parameters(), max_norm)
# +    scaler.unscale_(optimizer)
# +    torch.nn.utils.clip_grad_norm_(model.parameters(), 1.0 if max_norm is None else max_norm)
# ```
#
# **alternative `clip-if`**: zero_grad() keeps zeros, float(loss.detach())
# ```python
# def scaled_train_step(model, x, y, optimizer, scaler, criterion, device_type,
#                       dtype=torch.float16, max_norm=None) -> float:
#     optimizer.zero_grad()
#     with torch.autocast(device_type, dtype=dtype):
#         output = model(x)
#         loss = criterion(output, y)
#     scaled = scaler.scale(loss)
#     scaled.backward()
#     if max_norm:
#         scaler.unscale_(optimizer)
#         torch.nn.utils.clip_grad_norm_(model.parameters(), max_norm=max_norm)
#     scaler.step(optimizer)
#     scaler.update()
#     return float(loss.detach())
# ```
#
# **alternative `param-list`**: clears the gradients by hand, a parameter list named _params
# ```python
# def scaled_train_step(model, x, y, optimizer, scaler, criterion, device_type,
#                       dtype=torch.float16, max_norm=None) -> float:
#     _params = [p for p in model.parameters() if p.requires_grad]
#     for _p in _params:
#         _p.grad = None
#     with torch.autocast(device_type=device_type, dtype=dtype):
#         _loss = criterion(model(x), y)
#     scaler.scale(_loss).backward()
#     if max_norm is not None:
#         scaler.unscale_(optimizer)
#         torch.nn.utils.clip_grad_norm_(_params, max_norm)
#     scaler.step(optimizer)
#     scaler.update()
#     return _loss.item()
# ```
#
# **alternative `loss-after-low`**: the loss after the block, on the float16 output as it is (a float16 loss)
# ```python
# def scaled_train_step(model, x, y, optimizer, scaler, criterion, device_type,
#                       dtype=torch.float16, max_norm=None) -> float:
#     optimizer.zero_grad()
#     with torch.autocast(device_type=device_type, dtype=dtype):
#         _out = model(x)
#     loss = criterion(_out, y)
#     scaler.scale(loss).backward()
#     if max_norm is not None:
#         scaler.unscale_(optimizer)
#         torch.nn.utils.clip_grad_norm_(model.parameters(), max_norm)
#     scaler.step(optimizer)
#     scaler.update()
#     return loss.item()
# ```
#
# **alternative `loss-after`**: the loss in float32 outside the block (what autocast does for cross-entropy), a print
# ```python
# def scaled_train_step(model, x, y, optimizer, scaler, criterion, device_type,
#                       dtype=torch.float16, max_norm=None) -> float:
#     optimizer.zero_grad(set_to_none=True)
#     with torch.autocast(device_type=device_type, dtype=dtype):
#         logits = model(x)
#     loss = criterion(logits.float(), y)
#     scaler.scale(loss).backward()
#     if max_norm is not None:
#         scaler.unscale_(optimizer)
#         torch.nn.utils.clip_grad_norm_(model.parameters(), max_norm)
#     scaler.step(optimizer)
#     scaler.update()
#     value = loss.item()
#     print(f"loss {value:.4f}, scale {scaler.get_scale():g}")
#     return value
# ```
#
# **alternative `unscale-always`**: unscale_ on every step, clip only with a max_norm (step then does not unscale again)
# ```python
# def scaled_train_step(model, x, y, optimizer, scaler, criterion, device_type,
#                       dtype=torch.float16, max_norm=None) -> float:
#     optimizer.zero_grad(set_to_none=True)
#     with torch.autocast(device_type=device_type, dtype=dtype):
#         loss = criterion(model(x), y)
#     scaler.scale(loss).backward()
#     scaler.unscale_(optimizer)
#     if max_norm is not None:
#         torch.nn.utils.clip_grad_norm_(model.parameters(), max_norm)
#     scaler.step(optimizer)
#     scaler.update()
#     return loss.item()
# ```
#
# **alternative `clip-inf`**: one code path: unscale_ and clip on every step, to an infinite norm without a max_norm
# ```python
# def scaled_train_step(model, x, y, optimizer, scaler, criterion, device_type,
#                       dtype=torch.float16, max_norm=None) -> float:
#     optimizer.zero_grad()
#     with torch.autocast(device_type=device_type, dtype=dtype):
#         loss = criterion(model(x), y)
#     scaler.scale(loss).backward()
#     scaler.unscale_(optimizer)
#     _limit = float("inf") if max_norm is None else max_norm
#     torch.nn.utils.clip_grad_norm_(model.parameters(), _limit)
#     scaler.step(optimizer)
#     scaler.update()
#     return float(loss.detach())
# ```
#
# **clauses of `scaled_train_step`**
# - "One mixed-precision training step with a gradient scaler": no requirement (a summary: the next sentence states each part of the step, one clause each)
# - "returns the unscaled loss as a float": visible "Return the unscaled loss, not the scaled loss" by `scaled-loss-returned`
# - "In order: zero the gradients": visible "zero them first" by `no-zero-grad`, `zero-grad-last`
# - "forward and loss under torch.autocast(device_type=device_type, dtype=dtype)": visible "forward and loss under torch.autocast(device_type=device_type, dtype=dtype)" by `ignores-dtype`, `autocast-cuda`
# - "(the loss may also follow the block)": allows `loss-after`, `loss-after-low`
# - "backward through scaler.scale(loss)": visible "Backward through scaler.scale(loss)" by `unscaled-backward`
# - "if max_norm is not None": visible "With max_norm=None nothing is clipped" by `clip-default`
# - "(it is None or a positive number)": allows `clip-if`
# - "scaler.unscale_(optimizer) then clip": visible "after scaler.unscale_(optimizer)" by `clip-scaled`, `clip-then-unscale`
# - "unscale_ may also be called, or a clip to an infinite norm made, when max_norm is None": allows `unscale-always`, `clip-inf`
# - "clip the gradients' total norm to max_norm": visible "clip the gradients' total norm to max_norm" by `clip-value`
# - "scaler.step(optimizer)": visible "Call scaler.step(optimizer), not optimizer.step()" by `optimizer-step`
# - "scaler.update().": visible "end the step with scaler.update()" by `no-update`
# - "Returns the loss before the step": visible "Return the batch's loss before the step" by `loss-after-step`
# - "(not scaled)": visible "not the scaled loss" by `scaled-loss-returned`
# - "as a Python float": visible "Return the loss as a Python float" by `tensor-loss`
# - "the parameters stay float32": visible "Keep the parameters float32" by `half-model`
# - "zero the gradients": allows `param-list`

# %% [markdown] id="s5"
# ## 4. The scaler's rules, by running them
#
# ### A step with `inf` is skipped, and the scale backs off
#
# If any gradient is `inf` or `NaN` after unscaling, `scaler.step` does **not** call `optimizer.step()` (the
# parameters stay as they were) and `update()` multiplies the scale by `backoff_factor` (0.5). Here we inject the
# overflow by hand, as a too-large scale would cause it:

# %% id="s5-inf"
model = make_mlp(hidden=32).to(DEVICE)
optimizer = torch.optim.SGD(model.parameters(), lr=0.1)
scaler = torch.amp.GradScaler(AMP_DEVICE)
xb, yb = torch.randn(16, 1, 28, 28, device=DEVICE), torch.randint(0, 10, (16,), device=DEVICE)

before = [p.detach().clone() for p in model.parameters()]
with torch.autocast(device_type=AMP_DEVICE, dtype=torch.float16):
    loss = F.cross_entropy(model(xb), yb)
scaler.scale(loss).backward()
model[1].weight.grad[0, 0] = float("inf")          # the injected overflow
print("scale before:", scaler.get_scale())
scaler.step(optimizer)
scaler.update()
unchanged = all(torch.equal(a, p) for a, p in zip(before, model.parameters()))
print("parameters unchanged (step skipped):", unchanged)
print("scale after:", scaler.get_scale(), "| growth tracker:", int(scaler._growth_tracker))

# %% [markdown] id="s5-growth"
# ### After `growth_interval` clean steps, the scale grows
#
# Every step without `inf` adds one to a *growth tracker*; when it reaches `growth_interval` (default 2000) the scale
# is multiplied by `growth_factor` (2.0) and the tracker starts again. With `growth_interval=3` we can watch it:

# %% id="s5-growth-demo"
scaler = torch.amp.GradScaler(AMP_DEVICE, init_scale=8.0, growth_interval=3)
for step in range(7):
    optimizer.zero_grad()
    with torch.autocast(device_type=AMP_DEVICE, dtype=torch.float16):
        loss = F.cross_entropy(model(xb), yb)
    scaler.scale(loss).backward()
    scaler.step(optimizer)
    scaler.update()
    print(f"after step {step + 1}: scale {scaler.get_scale():5.0f}, growth tracker {int(scaler._growth_tracker)}")

# %% [markdown] id="s5-myth"
# > **Myth vs. current PyTorch:** "If you forget `scaler.update()`, the scale freezes and training slowly degrades."
# > It does not get that far. Each optimizer's state (ready → unscaled → stepped) is reset only by `update()`, so
# > the **next** `scaler.step()` raises `RuntimeError: step() has already been called since the last update().`
# > (On a machine without CUDA, `GradScaler("cuda")` is disabled and nothing at all happens: one more reason to test
# > with `GradScaler("cpu")`.)

# %% id="s5-no-update"
scaler = torch.amp.GradScaler(AMP_DEVICE)
try:
    for step in range(2):
        optimizer.zero_grad()
        with torch.autocast(device_type=AMP_DEVICE, dtype=torch.float16):
            loss = F.cross_entropy(model(xb), yb)
        scaler.scale(loss).backward()
        scaler.step(optimizer)          # ... and no scaler.update()
        print(f"step {step + 1} ran")
except RuntimeError as error:
    print(f"step {step + 1}: RuntimeError: {error}")

# %% [markdown] id="s5-clip"
# ### Clip after `unscale_`, never before
#
# Right after `scaler.scale(loss).backward()` the gradients are multiplied by the scale. Their norm is the scale times
# the real norm, so clipping them to `max_norm` would really clip to `max_norm / scale`: the step all but vanishes.
# `scaler.unscale_(optimizer)` divides them back first (and `scaler.step` then knows not to divide again). Both
# orders, on the same gradients:

# %% id="s5-clip-demo"
scaler = torch.amp.GradScaler(AMP_DEVICE)
optimizer.zero_grad()
with torch.autocast(device_type=AMP_DEVICE, dtype=torch.float16):
    loss = F.cross_entropy(model(xb), yb)
scaler.scale(loss).backward()
def norm():
    """The total norm of the model's gradients, as clip_grad_norm_ measures it."""
    return torch.linalg.vector_norm(torch.stack([p.grad.norm() for p in model.parameters()])).item()
print(f"gradient norm after backward (scaled):   {norm():12.4f}")
scaled_grads = [p.grad.clone() for p in model.parameters()]
used_scale = scaler.get_scale()
scaler.unscale_(optimizer)
print(f"gradient norm after unscale_ (the real): {norm():12.6f}   ratio = the scale {used_scale:.0f}")
torch.nn.utils.clip_grad_norm_(model.parameters(), max_norm=0.5)
print(f"right: unscale_, then clip to 0.5:       {norm():12.6f}")
scaler.step(optimizer)
scaler.update()

# wrong order: clip the scaled gradients to 0.5, then divide by the scale
for p, g in zip(model.parameters(), scaled_grads):
    p.grad = g
torch.nn.utils.clip_grad_norm_(model.parameters(), max_norm=0.5)
for p in model.parameters():
    p.grad /= used_scale
print(f"wrong: clip, then unscale:               {norm():12.8f}   (the step almost vanishes)")

# %% [markdown] id="s6"
# ## 5. The scale over a training run
#
# A real mixed-precision loop on the MLP, with overflows injected at a few steps (set `inf` into one gradient, as an
# exploding batch would), `growth_interval=10` so that growth shows within a short run. Skipped steps are marked.
# A skip at a step with nothing injected is a real overflow: the scale has grown until some gradient times the scale
# passed float16's 65504, and the scaler backs off. Whether that happens depends on the run; the cell says which
# skips were which.

# %% id="s6-trajectory"
from gpucourse.readings import read_skips   # reads which skips were injected and which were real overflows

torch.manual_seed(1)
model = make_mlp(hidden=64).to(DEVICE)
optimizer = torch.optim.AdamW(model.parameters(), lr=1e-3)
scaler = torch.amp.GradScaler(AMP_DEVICE, init_scale=2.0**16, growth_interval=10)
n_steps = 36 if QUICK else 150
inject = {3, 4, 5, 27, 28} | ({44, 80, 81, 120} if not QUICK else set())
scales, skipped = [], []
batches = iter(DataLoader(train_set, batch_size=64, shuffle=True))
for step in range(n_steps):
    try:
        xb, yb = next(batches)
    except StopIteration:
        batches = iter(DataLoader(train_set, batch_size=64, shuffle=True))
        xb, yb = next(batches)
    xb, yb = xb.to(DEVICE), yb.to(DEVICE)
    optimizer.zero_grad(set_to_none=True)
    with torch.autocast(device_type=AMP_DEVICE, dtype=torch.float16):
        loss = F.cross_entropy(model(xb), yb)
    scaler.scale(loss).backward()
    if step in inject:
        model[1].weight.grad[0, 0] = float("inf")
    scale_before = scaler.get_scale()
    scaler.step(optimizer)
    scaler.update()
    scales.append(scaler.get_scale())
    skipped.append(scaler.get_scale() < scale_before)   # a backoff means this step was skipped

fig, ax = plt.subplots(figsize=(9, 3.2))
ax.step(range(1, n_steps + 1), [math.log2(s) for s in scales], where="post", label="scale after update()")
ax.scatter([i + 1 for i, s in enumerate(skipped) if s], [math.log2(scales[i]) for i, s in enumerate(skipped) if s],
           color="tab:red", marker="x", zorder=3, label="skipped step (inf found)")
ax.set(xlabel="step", ylabel="log2(scale)", title="GradScaler's scale: halve on inf, double after 10 clean steps")
ax.legend()
fig.tight_layout()
plt.show()
print(f"{sum(skipped)} of {n_steps} steps skipped; final scale {scales[-1]:.0f}")
print(read_skips([i for i, s in enumerate(skipped) if s], inject, [2.0**16] + scales[:-1]))


# %% [markdown] id="ex3"
# ## Exercise 3: `next_scale` (3 points)
#
# Write the rule that `update()` applies, as a pure function:
# `next_scale(scale, growth_tracker, found_inf, growth_factor=2.0, backoff_factor=0.5, growth_interval=2000)`
# returns the new `(scale, growth_tracker)`:
#
# - if `found_inf`: the scale is multiplied by `backoff_factor` and the tracker goes back to 0;
# - otherwise the tracker counts one more clean step, and when it reaches `growth_interval`, the scale is multiplied by
#   `growth_factor` and the tracker goes back to 0; before that, the scale stays as it is.
#
# Return the scale as a Python `float` and the tracker as a Python `int`. The tests replay random sequences of
# overflows through the real `torch.amp.GradScaler` and compare after every update. `GradScaler` keeps its scale in
# a float32 tensor, so the scales are compared to float32's precision (relative 1e-5): computing in Python floats
# (float64) or in float32 are both right. The tests never grow a scale beyond float32's range (about 3.4·10³⁸).

# %% nbgrader={"grade": false, "grade_id": "next_scale", "locked": false, "schema_version": 3, "solution": true}
def next_scale(scale, growth_tracker, found_inf, growth_factor=2.0, backoff_factor=0.5,
               growth_interval=2000):
    """The (scale, growth_tracker) after one GradScaler.update(), given whether an inf/NaN was found.

    found_inf: (scale * backoff_factor, 0). Otherwise the tracker counts one more clean step; when it
    reaches growth_interval: (scale * growth_factor, 0); before that: (scale, growth_tracker + 1).
    Returns the scale as a Python float (also when it is given as an int) and the tracker as a Python int.
    Scales are compared with GradScaler's (float32) to a relative 1e-5; the tests never grow one beyond
    float32's range, so a growth that would leave it may keep the scale or not."""
    ### BEGIN SOLUTION
    if found_inf:
        return float(scale * backoff_factor), 0
    growth_tracker += 1
    if growth_tracker == growth_interval:
        return float(scale * growth_factor), 0
    return float(scale), int(growth_tracker)
    ### END SOLUTION


# %% nbgrader={"grade": true, "grade_id": "test_next_scale", "locked": true, "points": 3, "schema_version": 3, "solution": false}
import math
import random
from gpucourse.amp import drive_grad_scaler
from gpucourse.checks import Check

def _replay(flags, init_scale, **rule):
    scale, tracker, out = init_scale, 0, []
    for flag in flags:
        scale, tracker = next_scale(scale, tracker, flag, **rule)
        out.append((scale, tracker))
    return out

def _same(got, due):
    """(scale, tracker) pairs equal to float32's precision for the scale, exactly for the tracker."""
    return len(got) == len(due) and all(
        isinstance(s, float) and math.isclose(s, ds, rel_tol=1e-5) and isinstance(t, int) and t == dt
        for (s, t), (ds, dt) in zip(got, due))

def _typed(out):
    return (isinstance(out, tuple) and len(out) == 2 and isinstance(out[0], float)
            and isinstance(out[1], int) and not isinstance(out[1], bool))

# The domain the docstring states: a scale as a float or an int (powers of two and not, below 1 and far above 2**24),
# a tracker below growth_interval, found_inf, and factors and intervals as GradScaler takes them (an int
# growth_factor too), never growing a scale beyond float32's range.
from hypothesis import strategies as st

SCALES = (1.0, 2.0**16, 3.0, 0.1, 2.0**-20, 2.0**40, 12345.678, 1, 3, 2**10, 2**16, 2**30)
FACTORS = ((2.0, 0.5), (4.0, 0.25), (1.5, 0.8), (3.0, 0.1), (2, 0.5), (4, 0.5))
INTERVALS = (1, 2, 3, 7, 2000)

def rule_calls(max_interval=2000):
    """(scale, growth_tracker, found_inf, growth_factor, backoff_factor, growth_interval)."""
    scale = st.one_of(st.sampled_from(SCALES), st.floats(2.0**-60, 2.0**60), st.integers(1, 2**40))
    return st.tuples(scale, st.sampled_from([i for i in INTERVALS if i <= max_interval]),
                     st.sampled_from(FACTORS), st.booleans(), st.integers(0, 10**6)).map(
        lambda c: (c[0], c[4] % c[1], c[3], c[2][0], c[2][1], c[1]))

def rule_covering(intervals=INTERVALS):
    """Every scale of SCALES with every pair of factors, inf or not, and a tracker just before the interval, at 0,
    and in between."""
    return [(scale, tracker, found_inf, growth, backoff, interval)
            for scale in SCALES for growth, backoff in FACTORS for found_inf in (True, False)
            for interval in intervals for tracker in sorted({interval - 1, 0, interval // 2})]

def one_update(c):
    """The pair after one update, as the docstring states it: on inf (scale * backoff_factor, 0); otherwise the
    tracker counts one more clean step; when it reaches growth_interval (scale * growth_factor, 0); before that
    (scale, growth_tracker + 1). The scale a Python float (to float32's precision), the tracker a Python int."""
    scale, tracker, found_inf, growth, backoff, interval = c
    out = next_scale(scale, tracker, found_inf, growth, backoff, interval)
    if not _typed(out):
        return False
    factor, due_tracker = ((backoff, 0) if found_inf else (growth, 0) if tracker + 1 == interval else
                           (1.0, tracker + 1))
    return math.isclose(out[0], scale * factor, rel_tol=1e-5) and out[1] == due_tracker

def clean_run_then_inf(c):
    """From a tracker of 0, growth_interval clean updates leave the scale as it is until the last, which multiplies
    it by growth_factor and sets the tracker back to 0; an inf then multiplies it by backoff_factor."""
    scale, _, _, growth, backoff, interval = c
    pairs = [(scale, 0)]
    for _ in range(interval):
        pairs.append(next_scale(*pairs[-1], False, growth_factor=growth, backoff_factor=backoff,
                                growth_interval=interval))
    pairs.append(next_scale(*pairs[-1], True, growth_factor=growth, backoff_factor=backoff,
                            growth_interval=interval))
    due = [(float(scale), k) for k in range(1, interval)] + [(scale * growth, 0), (scale * growth * backoff, 0)]
    return _same(pairs[1:], due)

with Check("next_scale") as check:
    out = check.call(next_scale, 8.0, 0, False)
    check.that(isinstance(out, tuple) and len(out) == 2, f"Return a tuple (scale, growth_tracker) (got {out!r})")
    for args in [(8.0, 0, False), (8.0, 3, True), (8.0, 2, False, 2.0, 0.5, 3)]:
        out = next_scale(*args)
        check.that(isinstance(out[0], float), f"Return the scale as a Python float (next_scale{args} gave {out!r})")
        check.that(isinstance(out[1], int) and not isinstance(out[1], bool),
                   f"Return the tracker as a Python int (next_scale{args} gave {out!r})")
    check.that(_typed(next_scale(1024, 0, False)) and _typed(next_scale(1024, 1, False, growth_interval=9)),
               "Return the scale as a Python float even when the scale you are given is an int and stays as it is.")
    check.equal(next_scale(65536.0, 5, True)[0], 32768.0,
                "On inf: multiply the scale by backoff_factor (0.5 by default).")
    check.equal(next_scale(64.0, 1, True, growth_factor=4.0, backoff_factor=0.5)[0], 32.0,
                "On inf the scale is multiplied by backoff_factor (here 0.5), whatever growth_factor is.")
    check.equal(next_scale(64.0, 1, True, backoff_factor=0.25)[0], 16.0,
                "On inf the scale is multiplied by the backoff_factor you are given (here 0.25).")
    check.equal(next_scale(65536.0, 5, True)[1], 0, "On inf the tracker goes back to 0.")
    check.equal(next_scale(64.0, 5, False, growth_interval=9)[0], 64.0,
                "Before the tracker reaches growth_interval the scale stays as it is.")
    check.equal(next_scale(64.0, 5, False, growth_interval=9)[1], 6,
                "A clean step: the tracker counts one more clean step (5 becomes 6).")
    grown = next_scale(64.0, 2, False, growth_factor=4.0, growth_interval=3)
    check.that(grown[0] != 64.0,
               f"When the tracker reaches growth_interval (the 3rd clean step here), the scale grows (got {grown!r})")
    check.equal(grown[0], 256.0, "When the tracker reaches growth_interval, multiply the scale by growth_factor "
                "(here 4.0).")
    check.equal(grown[1], 0, "When the scale grows, set the tracker back to 0.")
    flags = [False, True, False, False, False, True, False, False, False, False]
    real = drive_grad_scaler(flags, init_scale=8.0, growth_factor=4.0, backoff_factor=0.5, growth_interval=3)
    mine = _replay(flags, 8.0, growth_factor=4.0, backoff_factor=0.5, growth_interval=3)
    check.that(_same(mine, real), "Replayed through 10 updates (overflow at updates 2 and 6, growth_factor=4.0, "
               f"growth_interval=3), your (scale, tracker) sequence differs from torch.amp.GradScaler's {real} "
               f"(got {mine})")
    # the whole rule, over its domain (see rule_calls and rule_covering above)
    check.forall(rule_calls(), one_update, "One update: on inf (scale * backoff_factor, 0); otherwise the tracker "
                 "counts one more clean step, and when it reaches growth_interval (scale * growth_factor, 0), before "
                 "that (scale, growth_tracker + 1); the scale a Python float (also from an int), the tracker a Python "
                 "int: for any scale (below 1, far above 2**24, not a power of two), factors and interval.",
                 cases=rule_covering())
    check.forall(rule_calls(max_interval=7), clean_run_then_inf, "From a tracker of 0, growth_interval clean "
                 "updates keep the scale until the last, which multiplies it by growth_factor and resets the "
                 "tracker; an inf then multiplies it by backoff_factor.", cases=rule_covering(intervals=(1, 3, 7)))

### BEGIN HIDDEN TESTS
from gpucourse.checks import requirement as _requirement

_rng = random.Random()
for _trial in range(25):
    _length = _rng.randint(1, 25)
    _p = _rng.choice([0.0, 0.1, 0.3, 0.7])
    _flags = [_rng.random() < _p for _ in range(_length)]
    _rule = dict(growth_factor=_rng.choice([2.0, 4.0, 1.5]), backoff_factor=_rng.choice([0.5, 0.25, 0.8]),
                 growth_interval=_rng.randint(1, 5))
    _init = _rng.choice([2.0**16, 8.0, 1.0, 3.0])
    _real = drive_grad_scaler(_flags, init_scale=_init, **_rule)
    with _requirement(f"next_scale replays GradScaler's updates from scale {_init} with {_rule}"):
        _scale, _tracker = _init, 0
        for _i, (_flag, _due) in enumerate(zip(_flags, _real)):
            _before = (_scale, _tracker)
            _out = next_scale(_scale, _tracker, _flag, **_rule)
            assert _same([_out], [_due]), (f"update {_i + 1}: next_scale{_before + (_flag,)} returned {_out!r}, "
                                           f"GradScaler gives {_due}")
            _scale, _tracker = _out
with _requirement("the defaults: growth_interval 2000, growth_factor 2.0, backoff_factor 0.5"):
    _s, _t = 65536.0, 0
    for _ in range(1999):
        _s, _t = next_scale(_s, _t, False)
    assert (_s, _t) == (65536.0, 1999), f"after 1999 clean steps got {(_s, _t)}, expected (65536.0, 1999)"
    assert next_scale(_s, _t, False) == (131072.0, 0), \
        f"the 2000th clean step gave {next_scale(_s, _t, False)}, expected (131072.0, 0)"
    assert next_scale(_s, _t, True) == (32768.0, 0), f"an inf gave {next_scale(_s, _t, True)}, expected (32768.0, 0)"
_gf, _gi = _rng.choice([1.5, 3.0, 4.0]), _rng.randint(2, 6)
with _requirement(f"a clean step counts one more; the {_gi}th grows the scale by growth_factor={_gf} "
                  "and resets the tracker"):
    _s, _t = 5.0, 0
    for _k in range(1, _gi):
        _s, _t = next_scale(_s, _t, False, growth_factor=_gf, growth_interval=_gi)
        assert (_s, _t) == (5.0, _k), f"after {_k} clean steps got {(_s, _t)}, expected (5.0, {_k})"
    _out = next_scale(_s, _t, False, growth_factor=_gf, growth_interval=_gi)
    assert math.isclose(_out[0], 5.0 * _gf, rel_tol=1e-5) and _out[1] == 0, f"got {_out}, expected ({5.0 * _gf}, 0)"
with _requirement("returns (a Python float, a Python int)"):
    _int_scale = _rng.choice([2**10, 2**16, 3, 7])   # an int scale: the result is a float in every branch
    for _args in [(1.0, 0, False), (3.0, 2, True), (8.0, 0, False, 2.0, 0.5, 1), (_int_scale, 0, False),
                  (_int_scale, 1, False, 2.0, 0.5, 5), (_int_scale, 0, False, 2.0, 0.5, 1), (_int_scale, 2, True)]:
        assert _typed(next_scale(*_args)), f"next_scale{_args} returned {next_scale(*_args)!r}"
from gpucourse.contract import for_all as _for_all
with _requirement("next_scale keeps the rule for any scale (a float or an int, below 1, far above 2**24, not a "
                  "power of two), any factors (an int growth_factor too), tracker and interval"):
    _for_all(rule_calls(), one_update, "one update as the docstring states it, a Python float and a Python int",
             examples=300, cases=rule_covering(intervals=(1, 2, 3, 5, 7, 2000)))
    _for_all(rule_calls(max_interval=7), clean_run_then_inf, "growth_interval clean updates then an inf",
             examples=300, cases=rule_covering(intervals=(1, 2, 3, 7)))
### END HIDDEN TESTS

# %% [markdown] fixtures="next_scale"
# ### Mistakes and correct alternatives for `next_scale` (author-only: in no generated notebook)
#
# **mistake `tracker-not-reset`**, sample, loses `test_next_scale`: keeps the growth tracker on inf
# ```diff
# @@
# -        return float(scale * backoff_factor), 0
# +        return float(scale * backoff_factor), growth_tracker
# ```
#
# **mistake `off-by-one`**, loses `test_next_scale`: grows one step late
# ```diff
# @@
# -    growth_tracker += 1
#      if growth_tracker == growth_interval:
#          return float(scale * growth_factor), 0
# -    return float(scale), int(growth_tracker)
# +    return float(scale), int(growth_tracker) + 1
# ```
#
# **mistake `no-reset-after-growth`**, loses `test_next_scale`: never resets the tracker after growing
# ```diff
# @@
# -    if growth_tracker == growth_interval:
# -        return float(scale * growth_factor), 0
# +    if growth_tracker % growth_interval == 0:
# +        return float(scale * growth_factor), growth_tracker
# ```
#
# **mistake `divide-by-growth`**, loses `test_next_scale`: backs off by 1/growth_factor instead of backoff_factor
# ```diff
# @@
# -        return float(scale * backoff_factor), 0
# +        return float(scale / growth_factor), 0
# ```
#
# **mistake `fixed-backoff`**, loses `test_next_scale`: always halves, whatever backoff_factor is
# ```diff
# @@
# -        return float(scale * backoff_factor), 0
# +        return float(scale / 2), 0
# ```
#
# **mistake `grow-every-step`**, loses `test_next_scale`: grows on every clean step
# ```diff
# @@
# -    growth_tracker += 1
# -    if growth_tracker == growth_interval:
# -        return float(scale * growth_factor), 0
# -    return float(scale), int(growth_tracker)
# +    return float(scale * growth_factor), growth_tracker + 1
# ```
#
# **mistake `float-tracker`**, loses `test_next_scale`: returns the tracker as a float
# ```diff
# @@
# -    return float(scale), int(growth_tracker)
# +    return float(scale), float(growth_tracker)
# ```
#
# **mistake `int-scale`**, loses `test_next_scale`: rounds the scale to an int (3.0 * 0.8 becomes 2)
# ```diff
# @@
# -        return float(scale * backoff_factor), 0
# +        return int(scale * backoff_factor), 0
# @@
# -        return float(scale * growth_factor), 0
# -    return float(scale), int(growth_tracker)
# +        return int(scale * growth_factor), 0
# +    return int(scale), int(growth_tracker)
# ```
#
# **mistake `int-passthrough`**, loses `test_next_scale`: hands back the caller's scale unchanged, so an int scale stays an int
# ```diff
# @@
# -    return float(scale), int(growth_tracker)
# +    return scale, int(growth_tracker)
# ```
#
# **mistake `tensor-scale`**, loses `test_next_scale`: returns the scale as a tensor, as GradScaler stores it
# ```diff
# @@
# -        return float(scale * backoff_factor), 0
# +        return torch.tensor(scale * backoff_factor), 0
# @@
# -        return float(scale * growth_factor), 0
# -    return float(scale), int(growth_tracker)
# +        return torch.tensor(scale * growth_factor), 0
# +    return torch.tensor(scale), int(growth_tracker)
# ```
#
# **mistake `tracker-unchanged`**, loses `test_next_scale`: counts the clean step in the comparison but hands back the tracker it was given
# ```diff
# @@
# -    growth_tracker += 1
# -    if growth_tracker == growth_interval:
# +    if growth_tracker + 1 == growth_interval:
# ```
#
# **mistake `fixed-growth`**, loses `test_next_scale`: always doubles on growth, whatever growth_factor is
# ```diff
# @@
# -        return float(scale * growth_factor), 0
# +        return float(scale * 2), 0
# ```
#
# **alternative `branches`**: one branch per case, >= for the interval
# ```python
# def next_scale(scale, growth_tracker, found_inf, growth_factor=2.0, backoff_factor=0.5,
#                growth_interval=2000):
#     if found_inf:
#         scale, growth_tracker = scale * backoff_factor, 0
#     elif growth_tracker + 1 >= growth_interval:
#         scale, growth_tracker = scale * growth_factor, 0
#     else:
#         growth_tracker = growth_tracker + 1
#     return float(scale), int(growth_tracker)
# ```
#
# **alternative `tensor-math`**: the scale as a float32 tensor, as GradScaler keeps it
# ```python
# def next_scale(scale, growth_tracker, found_inf, growth_factor=2.0, backoff_factor=0.5,
#                growth_interval=2000):
#     s = torch.tensor(float(scale), dtype=torch.float32)
#     if bool(found_inf):
#         return float(s * backoff_factor), 0
#     if growth_tracker + 1 == growth_interval:
#         return float(s * growth_factor), 0
#     return float(s), growth_tracker + 1
# ```
#
# **alternative `helper`**: an own _grow helper
# ```python
# def _grow(scale, factor):
#     return scale * factor
#
# def next_scale(scale, growth_tracker, found_inf, growth_factor=2.0, backoff_factor=0.5,
#                growth_interval=2000):
#     tracker = 0 if found_inf else growth_tracker + 1
#     if found_inf:
#         return _grow(float(scale), backoff_factor), tracker
#     if tracker == growth_interval:
#         return _grow(float(scale), growth_factor), 0
#     return float(scale), tracker
# ```
#
# **alternative `numpy-float32`**: the scale kept in NumPy float32, exactly as GradScaler rounds it, divmod
# ```python
# import numpy as np
#
# def next_scale(scale, growth_tracker, found_inf, growth_factor=2.0, backoff_factor=0.5,
#                growth_interval=2000):
#     s32 = np.float32(scale)
#     if found_inf:
#         return float(s32 * np.float32(backoff_factor)), 0
#     grows, tracker = divmod(growth_tracker + 1, growth_interval)
#     factor = np.float32(growth_factor) if grows else np.float32(1.0)
#     return float(s32 * factor), int(tracker)
# ```
#
# **alternative `keep-finite`**: a growth that would overflow float32 keeps the scale, as GradScaler's kernel does
# ```python
# def next_scale(scale, growth_tracker, found_inf, growth_factor=2.0, backoff_factor=0.5,
#                growth_interval=2000):
#     if found_inf:
#         return float(scale) * backoff_factor, 0
#     if growth_tracker + 1 < growth_interval:
#         return float(scale), growth_tracker + 1
#     grown = torch.tensor(float(scale) * growth_factor, dtype=torch.float32)
#     return (float(grown) if torch.isfinite(grown) else float(scale)), 0
# ```
#
# **clauses of `next_scale`**
# - "The (scale, growth_tracker) after one GradScaler.update(), given whether an inf/NaN was found.": no requirement (a summary: the next sentences state each part of the pair, one clause each)
# - "found_inf: (scale * backoff_factor": visible "On inf the scale is multiplied by the backoff_factor you are given" by `fixed-backoff`
# - "scale * backoff_factor": visible "whatever growth_factor is" by `divide-by-growth`
# - "found_inf: (scale * backoff_factor, 0).": visible "On inf the tracker goes back to 0" by `tracker-not-reset`
# - "Otherwise the tracker counts one more clean step": visible "the tracker counts one more clean step" by `tracker-unchanged`
# - "when it reaches growth_interval": visible "When the tracker reaches growth_interval (the 3rd clean step here), the scale grows" by `off-by-one`
# - "(scale * growth_factor, 0)": visible "multiply the scale by growth_factor" by `fixed-growth`
# - "when it reaches growth_interval: (scale * growth_factor, 0)": visible "When the scale grows, set the tracker back to 0" by `no-reset-after-growth`
# - "before that: (scale, growth_tracker + 1).": visible "the scale stays as it is" by `grow-every-step`
# - "Returns the scale as a Python float": visible "Return the scale as a Python float" by `int-scale`, `tensor-scale`
# - "(also when it is given as an int)": visible "even when the scale you are given is an int" by `int-passthrough`
# - "the tracker as a Python int": visible "Return the tracker as a Python int" by `float-tracker`
# - "Scales are compared with GradScaler's (float32) to a relative 1e-5": allows `tensor-math`, `numpy-float32`, `branches`
# - "a growth that would leave it may keep the scale or not": allows `branches`, `keep-finite`

# %% id="ex3-overlay"
# Your rule replayed on the run of section 5: it should follow the real scaler exactly.
if needs("next_scale"):
    predicted, tracker, s = [], 0, 2.0**16
    for flag in skipped:
        s, tracker = next_scale(s, tracker, flag, growth_interval=10)
        predicted.append(s)
    fig, ax = plt.subplots(figsize=(9, 3))
    ax.step(range(1, n_steps + 1), [math.log2(v) for v in scales], where="post", lw=4, alpha=0.4, label="GradScaler")
    ax.step(range(1, n_steps + 1), [math.log2(v) for v in predicted], where="post", color="k", label="your next_scale")
    ax.set(xlabel="step", ylabel="log2(scale)")
    ax.legend()
    plt.show()
    print("identical:", predicted == scales)

# %% [markdown] id="summary"
# ## Summary
#
# - float16 rounds everything at or below 2⁻²⁵ to zero (between 2⁻²⁵ and 2⁻²⁴ only 2⁻²⁴ is left) and loses
#   precision below 2⁻¹⁴; real gradients, especially activation gradients, live there. Scaling the loss by 2¹⁶ lifts
#   most of them into range; the scaler grows the scale further while no `inf` appears.
# - The canonical step: `scaler.scale(loss).backward()`, `unscale_` then clip (if clipping), `scaler.step`,
#   `scaler.update`. On inf the step is skipped and the scale halves; after 2000 clean steps it doubles.
# - Forgetting `update()` raises at the next `step()`. `GradScaler("cuda")` without CUDA is disabled; test with
#   `GradScaler("cpu")`.
