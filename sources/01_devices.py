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
# Every tensor lives on exactly one **device**: the CPU's memory or one GPU's memory. Every operation runs
# where its inputs live, and PyTorch never moves data behind your back, with one exception that section 2 shows: a
# 0-dim CPU tensor (one number, such as `torch.tensor(0.5)`) may join a tensor on another device in an elementwise
# operation, used like a Python number. Almost every "my GPU code is broken" question comes down to that one rule.
#
# **You will learn to**
# - read a tensor's device and predict where an operation runs;
# - recognise the cross-device error, and reproduce it without a GPU;
# - tell `Module.to` (moves in place) from `Tensor.to` (returns a new tensor), and avoid the unassigned `x.to(device)` bug;
# - write the device-agnostic helpers that the rest of the module uses: `pick_device`, `to_device`,
#   `train_one_epoch`, `evaluate`.
#
# **Time:** about 30 minutes on a Colab T4, about 35 minutes on a laptop CPU (the training run is the only slow part).

# %% nbgrader={"grade": false, "grade_id": "setup", "locked": true, "schema_version": 3, "solution": false}
# The shared set-up: `python -m graders build` writes its install part above these lines.
from gpucourse.bootstrap import setup
DEVICE, QUICK = setup()
import torch
from gpucourse.checks import needs  # a demonstration that runs your answers waits until they are answered


# %% [markdown] id="recap"
# ## Recap: what this module builds on
#
# - **Module 4**: a `DataLoader` yields batches `(x, y)` from a `Dataset`; shuffling and batch size are its job.
# - **Module 5**: the Fashion-MNIST MLP, `Flatten → Linear(784, 256) → ReLU → Linear(256, 10)`, trained with cross-entropy.
# - **Module 6**: AdamW with a cosine learning-rate schedule.
#
# `gpucourse.model` holds that model and optimizer, and `gpucourse.data` loads Fashion-MNIST, so that this module
# can concentrate on *where* the work runs.

# %% [markdown] id="s1"
# ## 1. Where does a tensor live?
#
# `tensor.device` answers it. A new tensor is created on the CPU unless you say otherwise; `device=` creates it
# somewhere else directly, which is cheaper than creating it on the CPU and copying.
#
# Besides `cpu`, `cuda` (NVIDIA) and `mps` (Apple), PyTorch has a **`meta`** device: tensors there have a shape and a
# dtype but no data. It costs nothing, and it behaves like a second device, so it lets us show the cross-device rules
# on a machine without a GPU.

# %% id="s1-demo"
x = torch.randn(2, 3)
print("x lives on:", x.device)
print("created where it is needed:", torch.zeros(2, 3, device=DEVICE).device)
m = torch.randn(2, 3, device="meta")
print("a meta tensor has a shape and a dtype but no data:", m.shape, m.dtype, m.device)

# %% id="s1-figure"
import matplotlib.pyplot as plt
from matplotlib.patches import FancyArrowPatch, FancyBboxPatch

fig, ax = plt.subplots(figsize=(8, 3))
for x0, title, items in [(0.02, "CPU memory (host)", ["model weights (before .to)", "x from the DataLoader"]),
                         (0.55, f"{'GPU' if DEVICE.type != 'cpu' else 'accelerator'} memory (device)",
                          ["model weights (after model.to)", "x_dev = x.to(device)"])]:
    ax.add_patch(FancyBboxPatch((x0, 0.1), 0.43, 0.8, boxstyle="round,pad=0.02", fc="#eef3fb", ec="#3b6db3"))
    ax.text(x0 + 0.215, 0.82, title, ha="center", fontsize=11, weight="bold")
    for i, item in enumerate(items):
        ax.text(x0 + 0.215, 0.58 - 0.25 * i, item, ha="center", fontsize=10)
ax.add_patch(FancyArrowPatch((0.45, 0.4), (0.57, 0.4), arrowstyle="-|>", mutation_scale=20, color="#c0392b"))
ax.text(0.51, 0.47, "copy over PCIe", ha="center", fontsize=9, color="#c0392b")
ax.text(0.5, 0.0, "Operations run where their inputs are; mixing devices is an error (0-dim CPU tensors aside).",
        ha="center", fontsize=10, style="italic")
ax.set_axis_off()
plt.show()

# %% [markdown] id="s2"
# ## 2. The cross-device error
#
# Mixing devices in one operation is an error, never a silent copy (with one small exception: the box below).
# On a CUDA GPU, torch 2.14 words it like this for a model on the GPU given a batch on the CPU (`mat1` is the batch, in
# the matrix product inside `Linear`):
# `Expected all tensors to be on the same device, but got mat1 is on cpu, different from other tensors on cuda:0 (when checking argument in method wrapper_CUDA_addmm)`,
# and for an elementwise operation such as `a + b`:
# `Expected all tensors to be on the same device, but found at least two devices, cuda:0 and cpu!`.
# With the `meta` device we can trigger the same kind of error on any machine (in meta's own words):

# %% id="s2-demo"
layer = torch.nn.Linear(3, 2).to("meta")   # the weights moved to the second device
x = torch.randn(4, 3)                      # the input stayed on the CPU
try:
    layer(x)
except RuntimeError as error:
    print("RuntimeError:", error)

# %% [markdown] id="s2-fix"
# The fix is always the same: put the inputs where the weights are, `layer(x.to(device))`, with the model moved
# once before training and every batch moved as it arrives.

# %% [markdown] id="myth-devices"
# > **Myth vs. current PyTorch:** *"Any operation that mixes a CPU tensor with a GPU tensor raises."* Almost. A
# > **0-dim** CPU tensor (one number, such as `torch.tensor(0.5)`) may join a tensor on another device in an
# > elementwise operation, the way a Python number does: its value is read on the host and handed to the kernel as a
# > scalar. One element is not enough: `torch.tensor([0.5])` has a dimension and raises, and so does the reverse, a
# > 0-dim GPU tensor with CPU tensors. The cell shows it with the `meta` device; CUDA's elementwise operations follow
# > the same rule (that is why `cuda_loss * torch.tensor(0.5)` works).

# %% id="myth-devices-demo"
a = torch.ones(3, device="meta")             # stands in for a tensor on the GPU
print("meta tensor * 0-dim CPU tensor: allowed, result on", (a * torch.tensor(0.5)).device)
for label, fn in [("meta tensor * 1-element CPU tensor", lambda: a * torch.tensor([0.5])),
                  ("CPU tensor * 0-dim meta tensor   ", lambda: torch.ones(3) * torch.tensor(0.5, device="meta"))]:
    try:
        fn()
    except RuntimeError as error:
        print(f"{label}: RuntimeError: {error}")

# %% [markdown] id="s3"
# ## 3. `Module.to` moves in place; `Tensor.to` returns a new tensor
#
# The two `.to` methods look alike and behave differently:
#
# - `model.to(device)` moves the module's parameters and buffers **in place** and returns **the same object**, so
#   `model.to(device)` on its own line is fine.
# - `x.to(device)` leaves `x` where it is and returns a **new** tensor on the device (or `x` itself when nothing needs
#   to change). On its own line it does nothing useful.

# %% id="s3-demo"
model = torch.nn.Linear(3, 2)
returned = model.to("meta")
print("Module.to returns the same object:", returned is model, "| weight now on", model.weight.device)

x = torch.randn(4, 3)
x.to("meta")                      # the bug: the result is thrown away
print("after the unassigned x.to('meta'), x is still on", x.device)
x = x.to("meta")                  # the fix: keep the result
print("after x = x.to('meta'), x is on", x.device)


# %% [markdown] id="s3-box"
# > **Common bug: the unassigned `x.to(device)`.** Because `model.to(device)` works on its own line, people write
# > `x.to(device)` the same way, and the next line fails with the cross-device error, or, worse, quietly runs on
# > the CPU when the model was never moved either. Always assign: `x = x.to(device)`.

# %% [markdown] id="ex1"
# ## Exercise 1: `pick_device` (2 points)
#
# Write a function that returns the best device available, as a `torch.device`: CUDA if available, else Apple's
# MPS if available, else the CPU. Check with `torch.cuda.is_available()` and `torch.backends.mps.is_available()`,
# or with `torch.accelerator` (current PyTorch's device-neutral API: `torch.accelerator.is_available()` and
# `torch.accelerator.current_accelerator()`); the checks accept either. "Available" means usable on this machine,
# not merely built into PyTorch. Other accelerators (Intel's XPU, ...) are outside the exercise: on a machine with
# one, returning it or the CPU are both accepted.

# %% nbgrader={"grade": false, "grade_id": "pick_device", "locked": false, "schema_version": 3, "solution": true}
def pick_device() -> torch.device:
    """Return torch.device("cuda") if CUDA is available, else torch.device("mps") if Apple's
    Metal backend is available, else torch.device("cpu"). Always a torch.device, never a string.

    CUDA comes before MPS when both are reported. "Available" means usable on this machine, not
    merely built into PyTorch. torch.accelerator may be used instead of torch.cuda /
    torch.backends.mps; other accelerators (XPU, ...) are outside this contract: on a machine
    with one, returning it or the CPU are both accepted, and no check uses one."""
    ### BEGIN SOLUTION
    if torch.cuda.is_available():
        return torch.device("cuda")
    if torch.backends.mps.is_available():
        return torch.device("mps")
    return torch.device("cpu")
    ### END SOLUTION


# %% nbgrader={"grade": true, "grade_id": "test_pick_device", "locked": true, "points": 2, "schema_version": 3, "solution": false}
import gpucourse.env
from gpucourse.checks import Check
from gpucourse.fakes import fake_accelerators
from gpucourse.origin import borrowed
from unittest import mock
from hypothesis import strategies as st

# the machines a check can fake: CUDA and MPS each reported or not, MPS built into PyTorch but not available, one GPU
# or several, of the compute capabilities this PyTorch supports
machines = st.fixed_dictionaries({"cuda": st.booleans(), "mps": st.booleans(), "mps built": st.booleans(),
                                  "GPUs": st.integers(1, 8),
                                  "capability": st.sampled_from([(7, 5), (8, 0), (8, 6), (9, 0), (10, 0), (12, 0)])})


def machine_cases(gpus=(1, 2)):
    """Every combination of CUDA, MPS, and MPS built but not available, with each number of GPUs in gpus."""
    return [{"cuda": cuda, "mps": mps, "mps built": built, "GPUs": n, "capability": (7, 5)}
            for n in gpus for cuda in (False, True) for mps in (False, True) for built in (False, True)]


def picks_as_documented(machine):
    """On the faked machine, pick_device() is torch.device("cuda"), else torch.device("mps"), else
    torch.device("cpu"): a torch.device, with no index."""
    with fake_accelerators(cuda=machine["cuda"], mps=machine["mps"], capability=machine["capability"],
                           count=machine["GPUs"]), \
            mock.patch.object(torch.backends.mps, "is_built", lambda: machine["mps"] or machine["mps built"]):
        device = pick_device()
    want = "cuda" if machine["cuda"] else "mps" if machine["mps"] else "cpu"
    return isinstance(device, torch.device) and device == torch.device(want)


with Check("pick_device") as check:
    where = borrowed(pick_device, answers=[gpucourse.env.best_device, gpucourse.env.environment_report])
    check.that(where is None, f"pick_device comes from {where}: write your own here.")
    device = check.call(pick_device)
    check.that(isinstance(device, torch.device), "Return a torch.device, e.g. torch.device('cpu'), not a string.")
    with fake_accelerators(cuda=False, mps=False):
        check.equal(pick_device(), torch.device("cpu"), "With no GPU at all, the answer is the CPU.")
    with fake_accelerators(cuda=True, mps=False):
        check.equal(pick_device(), torch.device("cuda"), "When torch.cuda.is_available() is True, pick cuda.")
    with fake_accelerators(cuda=False, mps=True):
        check.equal(pick_device(), torch.device("mps"),
                    "On a Mac without CUDA, torch.backends.mps.is_available() is True: pick mps there.")
    with fake_accelerators(cuda=True, mps=True):
        check.equal(pick_device(), torch.device("cuda"), "When CUDA and MPS are both reported, CUDA comes first.")
    # a Mac build of PyTorch on a Mac whose Metal cannot run it: MPS is built in but not available
    with fake_accelerators(cuda=False, mps=False), mock.patch.object(torch.backends.mps, "is_built", lambda: True):
        check.equal(pick_device(), torch.device("cpu"),
                    "MPS counts only when it is available on this machine, not merely built into PyTorch.")
    check.forall(machines, picks_as_documented,
                 'Return torch.device("cuda") if CUDA is available (one GPU or several: no index), else '
                 'torch.device("mps") if MPS is available, else torch.device("cpu"); CUDA comes before MPS, and a '
                 "torch.device always, on every machine.", cases=machine_cases())

### BEGIN HIDDEN TESTS
from gpucourse.checks import requirement as _requirement
with _requirement("pick_device returns torch.device('cuda'), else torch.device('mps'), else "
                  "torch.device('cpu'), written in this notebook"):
    import gpucourse.env as _env
    from gpucourse.origin import borrowed as _borrowed
    assert _borrowed(pick_device, answers=[_env.best_device, _env.environment_report]) is None, \
        "pick_device must be written in this notebook"
    with fake_accelerators(cuda=False, mps=True):
        assert pick_device() == torch.device("mps"), "MPS must be chosen when it is the only accelerator"
        assert isinstance(pick_device(), torch.device), "a torch.device, never a string"
    with fake_accelerators(cuda=True, mps=True):
        assert pick_device() == torch.device("cuda"), "CUDA comes before MPS"
    with fake_accelerators(cuda=False, mps=False):
        assert isinstance(pick_device(), torch.device) and pick_device().type == "cpu", "the CPU without accelerators"
    with fake_accelerators(cuda=False, mps=False), mock.patch.object(torch.backends.mps, "is_built", lambda: True):
        assert pick_device() == torch.device("cpu"), "MPS if Apple's Metal backend is available, not merely built"
from gpucourse.contract import for_all as _for_all
with _requirement("pick_device returns torch.device('cuda'), else torch.device('mps'), else torch.device('cpu') on "
                  "every machine: one GPU or several, any compute capability, MPS built but not available"):
    _for_all(machines, picks_as_documented, "cuda if CUDA is available, else mps if MPS is available, else cpu, as "
             "a torch.device without an index", examples=200, cases=machine_cases(gpus=(1, 2, 3, 8)))
### END HIDDEN TESTS

# %% [markdown] fixtures="pick_device"
# ### Mistakes and correct alternatives for `pick_device` (author-only: in no generated notebook)
#
# **mistake `device-string`**, sample, loses `test_pick_device`: returns a string, not a torch.device
# ```diff
# @@
# -        return torch.device("cuda")
# +        return "cuda"
# @@
# -        return torch.device("mps")
# -    return torch.device("cpu")
# +        return "mps"
# +    return "cpu"
# ```
#
# **mistake `no-mps`**, loses `test_pick_device`: forgets Apple's MPS
# ```diff
# @@
# -    if torch.cuda.is_available():
# -        return torch.device("cuda")
# -    if torch.backends.mps.is_available():
# -        return torch.device("mps")
# -    return torch.device("cpu")
# +    return torch.device("cuda" if torch.cuda.is_available() else "cpu")
# ```
#
# **mistake `mps-first`**, loses `test_pick_device`: prefers MPS over CUDA
# ```diff
# @@
# +    if torch.backends.mps.is_available():
# +        return torch.device("mps")
#      if torch.cuda.is_available():
#          return torch.device("cuda")
# -    if torch.backends.mps.is_available():
# -        return torch.device("mps")
# ```
#
# **mistake `mps-is-built`**, loses `test_pick_device`: asks whether PyTorch was built with MPS, not whether it is available
# ```diff
# @@
# -    if torch.backends.mps.is_available():
# +    if torch.backends.mps.is_built():
# ```
#
# **mistake `cuda-if-initialized`**, loses `test_pick_device`: asks whether CUDA has been initialised, not whether it is available
# ```diff
# @@
# -    if torch.cuda.is_available():
# +    if torch.cuda.is_initialized():
# ```
#
# **mistake `cuda-fallback`**, loses `test_pick_device`: falls back to CUDA (a GPU course), not to the CPU
# ```diff
# @@
# -    return torch.device("cpu")
# +    return torch.device("cuda")
# ```
#
# **alternative `ternary`**: one conditional expression
# ```python
# def pick_device() -> torch.device:
#     name = "cuda" if torch.cuda.is_available() else "mps" if torch.backends.mps.is_available() else "cpu"
#     return torch.device(name)
# ```
#
# **alternative `helper-loop`**: an own helper whose name starts with _, and a loop
# ```python
# def _available(kind):
#     return {"cuda": torch.cuda.is_available, "mps": torch.backends.mps.is_available}[kind]()
#
# def pick_device() -> torch.device:
#     for _kind in ("cuda", "mps"):
#         if _available(_kind):
#             return torch.device(_kind)
#     return torch.device("cpu")
# ```
#
# **alternative `debug-print`**: a debug print and a warning
# ```python
# import warnings
#
# def pick_device() -> torch.device:
#     if torch.cuda.is_available():
#         device = torch.device("cuda", 0).type
#     elif torch.backends.mps.is_available():
#         device = "mps"
#     else:
#         warnings.warn("no accelerator found, using the CPU")
#         device = "cpu"
#     print("picked", device)
#     return torch.device(device)
# ```
#
# **alternative `accelerator-api`**: torch.accelerator, current PyTorch's device-neutral API
# ```python
# def pick_device() -> torch.device:
#     if torch.accelerator.is_available():
#         return torch.device(torch.accelerator.current_accelerator().type)
#     return torch.device("cpu")
# ```
#
# **alternative `accelerator-or-cpu`**: current_accelerator(check_available=True), None without one
# ```python
# def pick_device() -> torch.device:
#     return torch.accelerator.current_accelerator(check_available=True) or torch.device("cpu")
# ```
#
# **clauses of `pick_device`**
# - "Return torch.device("cuda") if CUDA is available": visible "When torch.cuda.is_available() is True, pick cuda." by `cuda-if-initialized`
# - "else torch.device("mps") if Apple's Metal backend is available": visible "pick mps there" by `no-mps`
# - "else torch.device("cpu")": visible "With no GPU at all, the answer is the CPU." by `cuda-fallback`
# - "Always a torch.device, never a string.": visible "Return a torch.device" by `device-string`
# - "CUDA comes before MPS when both are reported.": visible "CUDA comes first" by `mps-first`
# - ""Available" means usable on this machine, not merely built into PyTorch.": visible "not merely built into PyTorch" by `mps-is-built`
# - "torch.accelerator may be used instead of torch.cuda / torch.backends.mps": allows `accelerator-api`, `accelerator-or-cpu`
# - "other accelerators (XPU, ...) are outside this contract": no requirement (it frees the answer on machines none of the checks can fake: no test uses such a device)

# %% [markdown] id="ex2"
# ## Exercise 2: `to_device` (3 points)
#
# A batch is rarely a single tensor: it is a tuple `(x, y)`, a dict of named tensors, sometimes lists inside dicts.
# Write `to_device(obj, device, non_blocking=False)` that returns a copy of `obj` with **every tensor moved** to
# `device`, however deeply it sits inside lists, tuples and dicts.
#
# The contract:
# - lists stay lists, tuples stay tuples, dicts stay dicts (with the same keys, in the same order);
# - anything that is not a tensor or one of those containers (numbers, strings, `None`) comes back untouched;
# - the input is **not modified**: build new containers;
# - `non_blocking` is passed on to every `Tensor.to` call (the next notebook shows why it matters).
#
# Only the built-in `list`, `tuple` and `dict` count as containers here. Their subclasses (`OrderedDict`,
# `defaultdict`, a `namedtuple`) are left out of this exercise: handle them as you like, no check uses one.

# %% nbgrader={"grade": false, "grade_id": "to_device", "locked": false, "schema_version": 3, "solution": true}
def to_device(obj, device, non_blocking=False):
    """Return obj with every tensor inside (nested lists, tuples, dicts) moved to device.

    A list comes back as a new list, a tuple as a new tuple, a dict as a new dict with the same
    keys in the same order; other objects (numbers, strings, None) are returned as they are.
    Only the built-in list, tuple and dict count: their subclasses (OrderedDict, defaultdict,
    namedtuple) are not part of this contract and no check uses them. obj itself and the
    containers inside it are not modified. non_blocking is passed to every Tensor.to call."""
    ### BEGIN SOLUTION
    if isinstance(obj, torch.Tensor):
        return obj.to(device, non_blocking=non_blocking)
    if isinstance(obj, dict):
        return type(obj)((key, to_device(value, device, non_blocking)) for key, value in obj.items())
    if isinstance(obj, (list, tuple)):
        return type(obj)(to_device(item, device, non_blocking) for item in obj)
    return obj
    ### END SOLUTION


# %% nbgrader={"grade": true, "grade_id": "test_to_device", "locked": true, "points": 3, "schema_version": 3, "solution": false}
from gpucourse.checks import Check
from gpucourse.fakes import RecordTransfers

with Check("to_device") as check:
    batch = (torch.randn(2, 3), torch.tensor([1, 0]))
    moved = check.call(to_device, batch, "meta")
    check.that(isinstance(moved, tuple) and len(moved) == 2,
               "A tuple comes back as a new tuple: (x, y) must come back as a tuple of two.")
    check.that(all(t.device.type == "meta" for t in moved),
               "Every tensor inside is moved to device: both tensors of the tuple must be on the new device.")
    check.that(batch[0].device.type == "cpu", "obj itself is not modified: return new containers.")
    label = 3
    moved = to_device({"label": label, "image": torch.ones(1)}, "meta")
    check.that(isinstance(moved, dict) and moved["image"].device.type == "meta",
               "Every tensor inside is moved to device: the tensors inside a dict too.")
    check.equal(list(moved), ["label", "image"],
                "A dict comes back as a new dict with the same keys in the same order: do not sort or drop them.")
    check.that(moved["label"] is label,
               "Other objects (numbers, strings, None) are returned as they are: the number 3 must come back as 3.")
    items = [torch.zeros(2), "note", None]
    moved = to_device(items, "meta")
    check.that(items[0].device.type == "cpu" and type(items[1]) is str,
               "obj itself and the containers inside it are not modified: build a new list, do not assign into "
               "the old one.")
    check.that(type(moved) is list and moved is not items and moved[0].device.type == "meta",
               "A list comes back as a new list (not a tuple, not the same list) with its tensors moved.")
    inner = [torch.zeros(2), (torch.ones(1),)]
    nested = {"x": torch.zeros(3), "rest": inner}
    moved = to_device(nested, "meta")
    check.that(isinstance(moved["rest"], list) and moved["rest"][0].device.type == "meta"
               and moved["rest"][1][0].device.type == "meta",
               "Every tensor inside nested lists, tuples and dicts is moved: tensors inside lists inside dicts "
               "must be moved too (call to_device on every item).")
    check.that(nested["x"].device.type == "cpu" and nested["rest"] is inner and inner[0].device.type == "cpu",
               "obj itself and the containers inside it are not modified: build new dicts and lists instead of "
               "assigning into the old ones.")
    empty_list, empty_dict = [], {}
    check.that(to_device(empty_list, "meta") is not empty_list,
               "A list comes back as a new list, an empty one included.")
    check.that(to_device(empty_dict, "meta") is not empty_dict,
               "A dict comes back as a new dict, an empty one included.")
    with RecordTransfers() as moves:
        to_device(nested, "meta", non_blocking=True)
    check.that(len(moves.transfers) >= 3 and moves.all_non_blocking,
               "non_blocking is passed to every Tensor.to call, however deep the tensor sits.")
    with RecordTransfers() as moves:
        to_device(nested, "meta")
    check.that(len(moves.transfers) >= 3 and not any(t.non_blocking for t in moves.transfers),
               "non_blocking is passed to every Tensor.to call: it is False unless the caller asks for it, so pass "
               "the argument on, not a constant.")
    # the whole contract, over its domain: any nesting of lists, tuples and dicts (empty ones too), tensors of every
    # dtype and shape (() and zero-size ones too), other objects, a device as a str or a torch.device
    from hypothesis import strategies as st
    from gpucourse import domains
    from gpucourse.contract import unchanged_by

    def mirrors(out, obj, device):
        """out is obj with every tensor on device: new lists and dicts (same keys, same order), tuples, tensors of
        the same dtype, shape and values, and every other object the very same object."""
        if isinstance(obj, torch.Tensor):
            return (isinstance(out, torch.Tensor) and out.device.type == torch.device(device).type
                    and out.dtype == obj.dtype and out.shape == obj.shape
                    and (out.device.type == "meta" or out.cpu().tolist() == obj.tolist()))  # every dtype
        if type(obj) in (list, tuple):
            return (type(out) is type(obj) and (type(obj) is tuple or out is not obj) and len(out) == len(obj)
                    and all(mirrors(a, b, device) for a, b in zip(out, obj)))
        if type(obj) is dict:
            return (type(out) is dict and out is not obj and list(out) == list(obj)
                    and all(mirrors(out[k], obj[k], device) for k in obj))
        return out is obj

    calls = st.tuples(domains.nested(), domains.devices(), st.booleans())

    def covering():
        """A fixed sample, made anew for each property (an answer may have written into the last one): every dtype in
        every kind of shape with every device spelling, and every kind of container."""
        return ([(obj, device, False) for device in domains.device_cases()
                 for obj in domains.tensor_cases() + domains.container_cases()]
                + [(obj, "meta", True) for obj in domains.container_cases()])

    check.forall(calls, lambda c: mirrors(to_device(*c), c[0], c[1]),
                 "Every tensor inside moves to device (same dtype, shape and values), lists come back as new lists, "
                 "tuples as tuples, dicts as new dicts with the same keys in the same order, and other objects as "
                 "they are: for any nesting, any dtype, any shape, and a device given as a str or a torch.device.",
                 cases=covering())

    unchanged = unchanged_by(to_device)  # c[0] as it was after to_device(*c)

    check.forall(calls, unchanged, "obj itself and the containers inside it are not modified, whatever they hold.",
                 cases=covering())

    def passes_non_blocking(c):
        with RecordTransfers() as moves:
            to_device(*c)
        return all(t.non_blocking == c[2] for t in moves.transfers)

    check.forall(calls, passes_non_blocking, "non_blocking is passed to every Tensor.to call, as the caller gave it.",
                 cases=covering())

### BEGIN HIDDEN TESTS
from gpucourse.checks import requirement as _requirement
with _requirement("to_device moves every tensor, keeps list, tuple and dict (keys in order), returns other "
                  "objects as they are, leaves its input unchanged and passes non_blocking on"):
    import random as _random
    _rng = _random.Random()
    _leaf = [torch.randn(_rng.randint(1, 4)) for _ in range(4)]
    _keys = ["a", "b", "d"]
    while _keys == sorted(_keys):  # an order sorting would change, so that a sorting answer never passes by chance
        _rng.shuffle(_keys)
    _number, _text = _rng.randint(1000, 10**6), "text"  # a large int: "as they are" is the same object
    _parts = {"a": [_leaf[0], (_leaf[1], _text, None)], "b": {"n": _number, "c": _leaf[2]}, "d": [[_leaf[3]]]}
    _nested = {_k: _parts[_k] for _k in _keys}
    _out = to_device(_nested, "meta")
    assert type(_out) is dict and list(_out) == _keys and type(_out["b"]) is dict and list(_out["b"]) == ["n", "c"], \
        "a dict comes back as a dict, same keys in the same order"
    assert type(_out["a"]) is list and type(_out["a"][1]) is tuple and type(_out["b"]) is dict, \
        "lists stay lists, tuples stay tuples, dicts stay dicts"
    assert _out["a"][0].device.type == "meta" and _out["a"][1][0].device.type == "meta", "every tensor moved"
    assert _out["b"]["c"].device.type == "meta" and _out["d"][0][0].device.type == "meta", "every tensor moved"
    assert _out["a"][1][1] is _text and _out["a"][1][2] is None and _out["b"]["n"] is _number, \
        "other objects (numbers, strings, None) are returned as they are"
    assert tuple(_out["b"]["c"].shape) == tuple(_leaf[2].shape), "a moved tensor keeps its shape"
    # the input is untouched, down to the inner containers
    assert _nested["a"] is _parts["a"] and _parts["a"][0] is _leaf[0] and _parts["b"]["c"] is _leaf[2] \
        and _parts["d"][0][0] is _leaf[3] and _parts["a"][1][0] is _leaf[1], "the input must not be modified"
    assert all(t.device.type == "cpu" for t in _leaf), "the input's tensors must stay where they were"
    # a plain list stays a list, an empty tuple a tuple, a bare tensor is moved, a non-tensor passes through
    assert type(to_device([_leaf[0]], "meta")) is list, "a list stays a list"
    assert to_device((), "meta") == () and type(to_device((), "meta")) is tuple, "a tuple stays a tuple"
    assert to_device(_leaf[1], "meta").device.type == "meta", "a bare tensor is moved"
    _obj = object()
    assert to_device(_obj, "meta") is _obj, "other objects come back as they are"
    _empty = {"e": [], "f": {}}
    _moved = to_device(_empty, "meta")
    assert _moved == _empty and type(_moved["e"]) is list and type(_moved["f"]) is dict \
        and _moved["e"] is not _empty["e"] and _moved["f"] is not _empty["f"], \
        "a list comes back as a new list, a dict as a new dict, empty ones too"
    # non_blocking reaches every Tensor.to call, and is off by default
    with RecordTransfers() as _rec:
        to_device(_nested, "cpu", non_blocking=True)
    assert len(_rec.transfers) >= 4 and _rec.all_non_blocking, "non_blocking=True must be passed to every Tensor.to"
    with RecordTransfers() as _rec:
        to_device(_nested, "cpu")
    assert not any(t.non_blocking for t in _rec.transfers), "non_blocking defaults to False"
from gpucourse.contract import for_all as _for_all
with _requirement("to_device keeps the whole contract for any nesting of lists, tuples and dicts, tensors of any "
                  "dtype and shape, other objects, and a device as a str or a torch.device"):
    _calls = st.tuples(domains.nested(max_leaves=12), domains.devices(), st.booleans())

    def _covering():
        _objects = domains.tensor_cases(shapes_=((), (0,), (1,), (2, 3), (1, 0, 2))) + domains.container_cases()
        return [(obj, device, flag) for device in domains.device_cases() for flag in (False, True) for obj in _objects]

    _for_all(_calls, lambda c: mirrors(to_device(*c), c[0], c[1]),
             "every tensor moved, containers rebuilt with their types and keys in order, other objects as they are",
             examples=300, cases=_covering())
    _for_all(_calls, unchanged, "obj and the containers inside it are not modified", examples=300,
             cases=_covering())
    _for_all(_calls, passes_non_blocking, "non_blocking passed to every Tensor.to call", examples=300,
             cases=_covering())
### END HIDDEN TESTS

# %% [markdown] fixtures="to_device"
# ### Mistakes and correct alternatives for `to_device` (author-only: in no generated notebook)
#
# **mistake `dict-ignored`**, loses `test_to_device`: dicts are returned as they are
# ```diff
# @@
# -    if isinstance(obj, dict):
# -        return type(obj)((key, to_device(value, device, non_blocking)) for key, value in obj.items())
# @@
# -        return type(obj)(to_device(item, device, non_blocking) for item in obj)
# +        return type(obj)(to_device(o, device, non_blocking) for o in obj)
# ```
#
# **mistake `non-blocking-dropped`**, loses `test_to_device`: non_blocking never reaches Tensor.to
# ```diff
# @@
# -        return obj.to(device, non_blocking=non_blocking)
# +        return obj.to(device)
# @@
# -        return type(obj)((key, to_device(value, device, non_blocking)) for key, value in obj.items())
# +        return {k: to_device(v, device, non_blocking) for k, v in obj.items()}
# @@
# -        return type(obj)(to_device(item, device, non_blocking) for item in obj)
# +        return type(obj)(to_device(o, device, non_blocking) for o in obj)
# ```
#
# **mistake `mutates-input`**, loses `test_to_device`: moves in place, changing the caller's batch
# ```diff
# @@
# -        return type(obj)((key, to_device(value, device, non_blocking)) for key, value in obj.items())
# -    if isinstance(obj, (list, tuple)):
# -        return type(obj)(to_device(item, device, non_blocking) for item in obj)
# +        for k in obj:
# +            obj[k] = to_device(obj[k], device, non_blocking)
# +        return obj
# +    if isinstance(obj, list):
# +        for i, o in enumerate(obj):
# +            obj[i] = to_device(o, device, non_blocking)
# +        return obj
# +    if isinstance(obj, tuple):
# +        return tuple(to_device(o, device, non_blocking) for o in obj)
# ```
#
# **mistake `tuple-to-list`**, loses `test_to_device`: tuples come back as lists
# ```diff
# @@
# -        return type(obj)((key, to_device(value, device, non_blocking)) for key, value in obj.items())
# +        return {k: to_device(v, device, non_blocking) for k, v in obj.items()}
# @@
# -        return type(obj)(to_device(item, device, non_blocking) for item in obj)
# +        return [to_device(o, device, non_blocking) for o in obj]
# ```
#
# **mistake `always-non-blocking`**, loses `test_to_device`: passes non_blocking=True whatever the caller asked for
# ```diff
# @@
# -        return obj.to(device, non_blocking=non_blocking)
# +        return obj.to(device, non_blocking=True)
# ```
#
# **mistake `sorted-keys`**, loses `test_to_device`: rebuilds dicts in sorted key order
# ```diff
# @@
# -        return type(obj)((key, to_device(value, device, non_blocking)) for key, value in obj.items())
# +        return {key: to_device(obj[key], device, non_blocking) for key in sorted(obj)}
# ```
#
# **mistake `empty-as-is`**, loses `test_to_device`: returns an empty list or dict itself, not a new one
# ```diff
# @@
#      if isinstance(obj, torch.Tensor):
#          return obj.to(device, non_blocking=non_blocking)
# +    if isinstance(obj, (list, dict)) and not obj:
# +        return obj  # nothing to move
# ```
#
# **mistake `one-level`**, loses `test_to_device`: moves the tensors of a list or tuple one level deep; a container inside one keeps its tensors where they were
# ```diff
# @@
# -        return type(obj)(to_device(item, device, non_blocking) for item in obj)
# +        return type(obj)(item.to(device, non_blocking=non_blocking) if isinstance(item, torch.Tensor) else item
# +                         for item in obj)
# ```
#
# **mistake `list-to-tuple`**, loses `test_to_device`: lists come back as tuples (a batch is a tuple)
# ```diff
# @@
# -        return type(obj)(to_device(item, device, non_blocking) for item in obj)
# +        return tuple(to_device(item, device, non_blocking) for item in obj)
# ```
#
# **mistake `numbers-to-tensors`**, loses `test_to_device`: turns numbers into tensors on the device (labels as tensors)
# ```diff
# @@
#          return type(obj)(to_device(item, device, non_blocking) for item in obj)
# +    if isinstance(obj, (int, float)):
# +        return torch.tensor(obj, device=device)
#      return obj
# ```
#
# **mistake `empty-dict-as-is`**, loses `test_to_device`: returns an empty dict itself, not a new one
# ```diff
# @@
#      if isinstance(obj, dict):
# +        if not obj:
# +            return obj  # nothing to move
#          return type(obj)((key, to_device(value, device, non_blocking)) for key, value in obj.items())
# ```
#
# **alternative `match-type`**: a match statement, keyword arguments
# ```python
# def to_device(obj, device, non_blocking=False):
#     match obj:
#         case torch.Tensor():
#             return obj.to(device=device, non_blocking=non_blocking)
#         case dict():
#             return type(obj)({k: to_device(v, device, non_blocking) for k, v in obj.items()})
#         case list() | tuple():
#             return type(obj)([to_device(v, device, non_blocking) for v in obj])
#         case _:
#             return obj
# ```
#
# **alternative `helper-underscore`**: own helpers and locals named _out, _key, _item
# ```python
# def _move(_x, _device, _nb):
#     return _x.to(_device, non_blocking=_nb) if torch.is_tensor(_x) else to_device(_x, _device, _nb)
#
# def to_device(obj, device, non_blocking=False):
#     if isinstance(obj, dict):
#         _out = {}
#         for _key, _value in obj.items():
#             _out[_key] = _move(_value, device, non_blocking)
#         return _out
#     if isinstance(obj, tuple):
#         return tuple(_move(_item, device, non_blocking) for _item in obj)
#     if isinstance(obj, list):
#         return [_move(_item, device, non_blocking) for _item in obj]
#     if torch.is_tensor(obj):
#         return _move(obj, device, non_blocking)
#     return obj
# ```
#
# **alternative `keeps-subclasses`**: also keeps OrderedDict, defaultdict and namedtuple types (allowed, not required)
# ```python
# import copy
#
# def to_device(obj, device, non_blocking=False):
#     if isinstance(obj, torch.Tensor):
#         return obj.to(device, non_blocking=non_blocking)
#     if isinstance(obj, dict):
#         out = copy.copy(obj)  # same type, defaultdict's factory too; a new object
#         for key, value in obj.items():
#             out[key] = to_device(value, device, non_blocking)
#         return out
#     if isinstance(obj, tuple) and hasattr(obj, "_fields"):  # a namedtuple
#         return type(obj)(*(to_device(v, device, non_blocking) for v in obj))
#     if isinstance(obj, (list, tuple)):
#         return type(obj)(to_device(v, device, non_blocking) for v in obj)
#     return obj
# ```
#
# **alternative `scratch-globals`**: an innocent globals() check in a scratch line, map and a lambda
# ```python
# if "model" not in globals():
#     print("no model yet, that is fine")
#
# def to_device(obj, device, non_blocking=False):
#     if isinstance(obj, torch.Tensor):
#         return obj.to(device, non_blocking=non_blocking)
#     if isinstance(obj, (list, tuple)):
#         return type(obj)(map(lambda o: to_device(o, device, non_blocking), obj))
#     if isinstance(obj, dict):
#         return dict((k, to_device(v, device, non_blocking)) for k, v in obj.items())
#     return obj
# ```
#
# **clauses of `to_device`**
# - "Return obj with every tensor inside (nested lists, tuples, dicts) moved to device.": visible "Every tensor inside nested lists, tuples and dicts is moved" by `one-level`
# - "A list comes back as a new list": visible "A list comes back as a new list" by `list-to-tuple`, `empty-as-is`
# - "a tuple as a new tuple": visible "A tuple comes back as a new tuple" by `tuple-to-list`
# - "a dict as a new dict": visible "A dict comes back as a new dict" by `empty-dict-as-is`
# - "with the same keys in the same order": visible "with the same keys in the same order" by `sorted-keys`
# - "other objects (numbers, strings, None) are returned as they are.": visible "Other objects (numbers, strings, None) are returned as they are" by `numbers-to-tensors`
# - "Only the built-in list, tuple and dict count: their subclasses (OrderedDict, defaultdict, namedtuple) are not part of this contract and no check uses them.": allows `keeps-subclasses`, `helper-underscore`
# - "obj itself and the containers inside it are not modified.": visible "obj itself and the containers inside it are not modified" by `mutates-input`
# - "non_blocking is passed to every Tensor.to call.": visible "non_blocking is passed to every Tensor.to call" by `non-blocking-dropped`, `always-non-blocking`

# %% [markdown] id="ex3"
# ## Exercise 3: `train_one_epoch` (3 points)
#
# One epoch of training, written once so that it works on any device:
#
# - put the model in **training mode** (`model.train()`): dropout and batch norm behave differently in training.
#   Every forward pass must run in training mode; what mode you leave the model in afterwards is up to you;
# - move every batch `(x, y)` to `device` with `non_blocking=True`;
# - the usual step, for every batch: zero the gradients, forward, loss, backward, optimizer step. The gradients are
#   zeroed **before each backward**: the model may arrive with gradients left over from earlier work, and the first
#   step must not use them;
# - return the **mean loss per example** over the epoch, as a Python `float`.
#
# Careful with the mean: the last batch is often smaller than the others, so the mean of the batch losses is not the
# mean per example. Weight each batch's (mean) loss by its number of examples, and divide by the number of examples
# the loader gave you, which is not always `len(loader.dataset)` (a loader with `drop_last=True` skips some).

# %% nbgrader={"grade": false, "grade_id": "train_one_epoch", "locked": false, "schema_version": 3, "solution": true}
def train_one_epoch(model, loader, optimizer, criterion, device) -> float:
    """Train model for one pass over loader on device; return the mean loss per example (a float).

    Every forward pass runs in training mode (the mode left afterwards is free). Each batch
    (x, y) is moved with non_blocking=True. For every batch: zero the gradients, forward, loss,
    backward, optimizer step; gradients are zeroed before each backward, so the model's
    leftover gradients never reach a step. criterion returns the mean loss of a batch
    (reduction="mean"). The mean is over the examples the loader yielded, which may be fewer
    than len(loader.dataset)."""
    ### BEGIN SOLUTION
    model.train()
    total_loss, total_examples = 0.0, 0
    for x, y in loader:
        x = x.to(device, non_blocking=True)
        y = y.to(device, non_blocking=True)
        optimizer.zero_grad(set_to_none=True)
        loss = criterion(model(x), y)
        loss.backward()
        optimizer.step()
        total_loss += loss.item() * x.size(0)
        total_examples += x.size(0)
    return total_loss / total_examples
    ### END SOLUTION


# %% nbgrader={"grade": true, "grade_id": "test_train_one_epoch", "locked": true, "points": 3, "schema_version": 3, "solution": false}
import copy
import math
from gpucourse.checks import Check
from gpucourse.fakes import RecordTransfers
from gpucourse.testing import ModeProbe, toy_loader

class CountingSGD(torch.optim.SGD):
    """SGD that counts its steps."""
    def __init__(self, *args, **kwargs):
        super().__init__(*args, **kwargs)
        self.steps = 0

    def step(self, *args, **kwargs):
        self.steps += 1
        return super().step(*args, **kwargs)


class CountingLoader:
    """A loader that counts the batches drawn from it (len and every other attribute are the loader's)."""
    def __init__(self, loader):
        self.loader, self.drawn = loader, 0

    def __iter__(self):
        for batch in self.loader:
            self.drawn += 1
            yield batch

    def __len__(self):
        return len(self.loader)

    def __getattr__(self, name):
        return getattr(self.loader, name)


# the domain: the models the course builds (a Linear layer, an MLP, one with dropout, one with BatchNorm), optimizers
# of every kind it uses (SGD, with momentum, AdamW, two parameter groups), loaders of one batch (a batch size at least
# the data size), with a last batch of one example, with drop_last; the device as a str or a torch.device
from hypothesis import strategies as st
from gpucourse import domains

MODEL_KINDS = ("Linear", "MLP", "MLP with dropout", "MLP with BatchNorm")
OPTIMIZER_KINDS = ("SGD", "SGD with momentum", "AdamW", "SGD with two parameter groups")
CPU_SPELLINGS = ("cpu", torch.device("cpu"))
LOADER_KINDS = ((6, 6, False), (5, 16, False), (9, 4, False), (10, 4, True), (4, 4, True), (7, 3, False))
epochs = st.fixed_dictionaries({"model": st.sampled_from(MODEL_KINDS), "optimizer": st.sampled_from(OPTIMIZER_KINDS),
                                "examples": st.integers(1, 12), "batch_size": st.integers(1, 8),
                                "drop_last": st.booleans(), "device": st.sampled_from(CPU_SPELLINGS)})


def epoch_cases(every=False):
    """Every model with every loader kind, the optimizers and the device spellings taken in turn (every=True: every
    model with every optimizer and every loader kind, the device spellings in turn)."""
    combos = ([(m, o, k, CPU_SPELLINGS[i % 2]) for i, (m, o, k) in enumerate(
                  (m, o, k) for m in MODEL_KINDS for o in OPTIMIZER_KINDS for k in LOADER_KINDS)]
              if every else [(m, OPTIMIZER_KINDS[i % 4], k, CPU_SPELLINGS[i % 2])
                             for i, (m, k) in enumerate((m, k) for m in MODEL_KINDS for k in LOADER_KINDS)])
    return [{"model": m, "optimizer": o, "examples": n, "batch_size": b, "drop_last": drop, "device": d}
            for m, o, (n, b, drop), d in combos]


def epoch_setup(case):
    """(model, loader, optimizer, sizes of the batches the loader yields), all new; None outside the domain: a loader
    that yields nothing, or a BatchNorm model given a batch of one (it cannot train on one example)."""
    n, size = case["examples"], case["batch_size"]
    sizes = [s for s in (min(size, n - start) for start in range(0, n, size)) if s == size or not case["drop_last"]]
    if not sizes or (case["model"] == "MLP with BatchNorm" and min(sizes) < 2):
        return None
    model = domains.model_cases()[MODEL_KINDS.index(case["model"])]
    optimizer = domains.optimizer_cases(model)[OPTIMIZER_KINDS.index(case["optimizer"])]
    x, y = domains.batches([n], seed=n)[0]
    loader = torch.utils.data.DataLoader(torch.utils.data.TensorDataset(x, y), batch_size=size,
                                         drop_last=case["drop_last"])
    return model, loader, optimizer, sizes


def trains_every_module(case):
    """Every forward pass of every submodule runs in training mode, the model having come in eval mode."""
    made = epoch_setup(case)
    if made is None:
        return True
    model, loader, optimizer, _ = made
    model.eval()
    modes = []
    hooks = [m.register_forward_pre_hook(lambda module, args: modes.append(module.training))
             for m in model.modules()]
    try:
        train_one_epoch(model, loader, optimizer, torch.nn.CrossEntropyLoss(), case["device"])
    finally:
        for hook in hooks:
            hook.remove()
    return bool(modes) and all(modes)


def returns_mean_of_trained_losses(case):
    """The float returned is the mean per example of the losses backpropagated: one per batch, each weighted by its
    batch's size, over the examples the loader yielded."""
    made = epoch_setup(case)
    if made is None:
        return True
    model, loader, optimizer, sizes = made
    cross_entropy, trained = torch.nn.CrossEntropyLoss(), []

    def criterion(out, y):
        loss = cross_entropy(out, y)
        if loss.requires_grad:  # recorded when a backward pass goes through it
            record = (loss.item(), len(y))
            loss.register_hook(lambda grad: trained.append(record))
        return loss

    got = train_one_epoch(model, loader, optimizer, criterion, case["device"])
    return (isinstance(got, float) and sorted(n for _, n in trained) == sorted(sizes)
            and math.isclose(got, sum(v * n for v, n in trained) / sum(sizes), rel_tol=1e-5, abs_tol=1e-7))


def ignores_leftover_gradients(case):
    """With leftover gradients on every parameter (every group of the optimizer), the epoch ends with the same
    parameters and the same loss as without them: they never reach a step."""
    if epoch_setup(case) is None:
        return True
    results = []
    for leftover in (False, True):
        model, loader, optimizer, _ = epoch_setup(case)
        if leftover:
            noise = torch.Generator().manual_seed(7)
            for p in model.parameters():
                p.grad = torch.randn(p.shape, generator=noise)
        with torch.random.fork_rng(devices=[]):  # the same dropout masks in both runs
            torch.manual_seed(0)
            loss = train_one_epoch(model, loader, optimizer, torch.nn.CrossEntropyLoss(), case["device"])
        results.append((loss, [p.detach().clone() for p in model.parameters()]))
    (loss_a, after_a), (loss_b, after_b) = results
    return math.isclose(loss_a, loss_b, rel_tol=1e-6) and all(torch.allclose(a, b, rtol=1e-5, atol=1e-6)
                                                              for a, b in zip(after_a, after_b))


def moves_batches_non_blocking(case):
    """Each batch (x, y) is moved with non_blocking=True, whichever way the device is spelt."""
    made = epoch_setup(case)
    if made is None:
        return True
    model, loader, optimizer, sizes = made
    with RecordTransfers() as moves:
        train_one_epoch(model, loader, optimizer, torch.nn.CrossEntropyLoss(), case["device"])
    return sum(t.non_blocking for t in moves.transfers) >= 2 * len(sizes)


with Check("train_one_epoch") as check:
    loader = toy_loader(n=10, batch_size=4, features=4, classes=3, seed=0)  # batches of 4, 4, 2
    x_all, y_all = loader.dataset.tensors
    # A last layer of zeros scores every class the same: the loss is ln(3) on every batch.
    model = ModeProbe(torch.nn.Linear(4, 3))
    torch.nn.init.zeros_(model.inner.weight)
    torch.nn.init.zeros_(model.inner.bias)
    model.eval()
    with RecordTransfers() as moves:
        loss = check.call(train_one_epoch, model, loader, torch.optim.SGD(model.parameters(), lr=0.0),
                          torch.nn.CrossEntropyLoss(), "cpu")
    check.that(isinstance(loss, float), "Return the mean loss per example as a float: use loss.item(), not the "
               "loss tensor.")
    check.that(model.seen_modes and all(model.seen_modes),
               "Every forward pass runs in training mode: call model.train() before the loop.")
    check.close(loss, math.log(3), "A model that scores the 3 classes equally has a loss of ln(3) on every batch, "
                "so the mean loss per example must be ln(3).", rel=1e-5)
    check.that(sum(t.non_blocking for t in moves.transfers) >= 2 * len(loader),
               "Each batch (x, y) is moved with non_blocking=True: x.to(device, non_blocking=True), y too.")
    # With lr=0 nothing changes, so the mean loss per example is the loss of all 10 examples at once.
    model = torch.nn.Linear(4, 3)
    with torch.no_grad():
        whole = torch.nn.functional.cross_entropy(model(x_all), y_all).item()
    loss = train_one_epoch(model, loader, torch.optim.SGD(model.parameters(), lr=0.0), torch.nn.CrossEntropyLoss(),
                           "cpu")
    check.close(loss, whole, "Return the mean loss per example: with lr=0 it equals the loss of the whole data set; "
                "weight each batch's mean loss by its size (the last batch has 2 examples).", rel=1e-5)
    before = copy.deepcopy(model.state_dict())
    counted, optimizer = CountingLoader(loader), CountingSGD(model.parameters(), lr=0.1)
    train_one_epoch(model, counted, optimizer, torch.nn.CrossEntropyLoss(), "cpu")
    check.equal(counted.drawn, len(loader), "Train model for one pass over loader: draw each of its 3 batches once.")
    check.that(optimizer.steps == len(loader) and any(not torch.equal(before[k], v)
                                                       for k, v in model.state_dict().items()),
               "For every batch: zero the gradients, forward, loss, backward, optimizer step: one "
               "optimizer.step() per batch, and with lr=0.1 the parameters must change.")
    # A loader that drops its short last batch yields 8 of the 10 examples: the mean is over those 8.
    short = torch.utils.data.DataLoader(loader.dataset, batch_size=4, drop_last=True)
    with torch.no_grad():
        seen = torch.nn.functional.cross_entropy(model(x_all[:8]), y_all[:8]).item()
    loss = train_one_epoch(model, short, torch.optim.SGD(model.parameters(), lr=0.0), torch.nn.CrossEntropyLoss(),
                           "cpu")
    check.close(loss, seen, "The mean is over the examples the loader yielded: with drop_last=True it yields 8 of "
                "the 10, so divide by the examples you trained on, not by len(loader.dataset).", rel=1e-5)
    # Leftover gradients from earlier work, and a loss whose gradient is zero: zeroing before each backward
    # leaves nothing for SGD to apply, so the parameters must not move.
    for p in model.parameters():
        p.grad = torch.ones_like(p)
    before = copy.deepcopy(model.state_dict())
    train_one_epoch(model, loader, torch.optim.SGD(model.parameters(), lr=0.1), lambda out, y: 0.0 * out.sum(), "cpu")
    check.that(all(torch.equal(before[k], v) for k, v in model.state_dict().items()),
               "The model came with leftover gradients and the loss has zero gradient, yet the parameters moved: "
               "gradients are zeroed before each backward, not after the step.")
    # the whole contract over its domain (above): every kind of model, optimizer and loader, both device spellings
    check.forall(epochs, returns_mean_of_trained_losses,
                 "Return the mean loss per example as a float: the losses you backpropagated, one per batch (a batch "
                 "of one example too), each weighted by its size, over the examples the loader yielded; for any "
                 "model, optimizer and loader, and a device given as a str or a torch.device.",
                 examples=10, cases=epoch_cases())
    check.forall(epochs, trains_every_module,
                 "Every forward pass runs in training mode: every layer inside the model too (dropout, BatchNorm), "
                 "so call model.train(), which sets them all, not model.training = True on the top module.",
                 examples=10, cases=epoch_cases())
    check.forall(epochs, ignores_leftover_gradients,
                 "Gradients are zeroed before each backward, so the model's leftover gradients never reach a step: "
                 "with leftover gradients the epoch must end as without them, for an optimizer with several "
                 "parameter groups too (zero them all: optimizer.zero_grad()).", examples=5, cases=epoch_cases())
    check.forall(epochs, moves_batches_non_blocking,
                 "Each batch (x, y) is moved with non_blocking=True, whether device is a str or a torch.device.",
                 examples=5, cases=epoch_cases())

### BEGIN HIDDEN TESTS
from gpucourse.checks import requirement as _requirement
with _requirement("train_one_epoch trains in training mode, moves batches with non_blocking=True, zeroes "
                  "gradients before each backward and returns the mean loss per example seen, as a float"):
    def _reference_train_epoch(model, loader, lr):
        """One epoch of plain SGD with cross-entropy; the mean loss per example, before each step."""
        model.train()
        optimizer = torch.optim.SGD(model.parameters(), lr=lr)
        criterion = torch.nn.CrossEntropyLoss()
        total, count = 0.0, 0
        for x, y in loader:
            optimizer.zero_grad()
            batch_loss = criterion(model(x), y)
            batch_loss.backward()
            optimizer.step()
            total += batch_loss.item() * len(x)
            count += len(x)
        model.seen_modes.clear()  # the reference's own forward calls are not the student's
        return total / count

    class _RecordShapes(RecordTransfers):
        """RecordTransfers that also keeps the shape of each moved tensor (in .shapes, one per transfer)."""
        def __init__(self):
            super().__init__()
            self.shapes = []
        def __torch_function__(self, func, types, args=(), kwargs=None):
            _count = len(self.transfers)
            _result = super().__torch_function__(func, types, args, kwargs)
            if len(self.transfers) > _count:  # a Tensor.to / .cuda / .copy_ call was recorded
                self.shapes.append(tuple(args[0].shape))
            return _result

    for _seed in range(4):
        _g = torch.Generator().manual_seed(torch.seed() % 2**31)
        _n, _bs = int(torch.randint(7, 40, (1,), generator=_g)), int(torch.randint(3, 9, (1,), generator=_g))
        _n = max(_n, _bs + 1)  # at least one full batch, even when the short last one is dropped
        if _n % _bs == 0:
            _n += 1  # always an uneven last batch
        _loader = toy_loader(n=_n, batch_size=_bs, features=5, classes=4,
                             seed=int(torch.randint(0, 10**6, (1,), generator=_g)))
        if _seed % 2:  # every other loader drops its short last batch: fewer examples than len(dataset)
            _loader = torch.utils.data.DataLoader(_loader.dataset, batch_size=_bs, drop_last=True)
        _model = ModeProbe(torch.nn.Sequential(torch.nn.Linear(5, 16), torch.nn.ReLU(), torch.nn.Linear(16, 4)))
        _ref = copy.deepcopy(_model)
        _expected = _reference_train_epoch(_ref, _loader, lr=0.05)
        for _p in _model.parameters():  # leftover gradients, which the first step must not use
            _p.grad = torch.randn_like(_p)
        _model.eval()
        with _RecordShapes() as _rec:
            _loss = train_one_epoch(_model, _loader, torch.optim.SGD(_model.parameters(), lr=0.05),
                                    torch.nn.CrossEntropyLoss(), torch.device("cpu"))
        assert isinstance(_loss, float), "return a Python float"
        assert abs(_loss - _expected) <= 1e-4 * max(1.0, abs(_expected)), \
            "mean loss per example, over the examples the loader yielded"
        for _p, _q in zip(_model.parameters(), _ref.parameters()):
            assert torch.allclose(_p, _q, atol=1e-5), \
                "parameters after the epoch differ: zero the gradients before each backward, then backward, step"
        assert _model.seen_modes and all(_model.seen_modes), "every forward pass in training mode"
        # the batches' transfers: x is (batch, 5) float32, y is (batch,) int64; the model's parameters
        # ((16, 5), (16,), (4, 16), (4,)) never have those shapes, so moving the model may be blocking
        _moves = [t for t, _shape in zip(_rec.transfers, _rec.shapes) if t.method in ("to", "cuda")
                  and (_shape[1:] == (5,) and _shape[0] <= _bs or len(_shape) == 1 and t.source_dtype == torch.int64)]
        assert len(_moves) >= 2 * len(_loader), "every x and y must be moved to the device"
        assert all(t.non_blocking for t in _moves), "batches must move with non_blocking=True"
from gpucourse.contract import for_all as _for_all
with _requirement("train_one_epoch keeps its contract for every model kind (dropout, BatchNorm), every optimizer "
                  "kind (several parameter groups), loaders of one batch, with a last batch of one, with drop_last, "
                  "and a device as a str or a torch.device"):
    _for_all(epochs, returns_mean_of_trained_losses, "the mean per example of the losses backpropagated, one per "
             "batch, over the examples the loader yielded, as a float", examples=40, cases=epoch_cases(every=True))
    _for_all(epochs, trains_every_module, "every forward pass of every submodule in training mode", examples=40,
             cases=epoch_cases())  # the mode does not depend on the optimizer: every model with every loader
    _for_all(epochs, ignores_leftover_gradients, "leftover gradients never reach a step", examples=30,
             cases=epoch_cases(every=True))
    _for_all(epochs, moves_batches_non_blocking, "each batch moved with non_blocking=True", examples=20,
             cases=epoch_cases())
### END HIDDEN TESTS

# %% [markdown] fixtures="train_one_epoch"
# ### Mistakes and correct alternatives for `train_one_epoch` (author-only: in no generated notebook)
#
# **mistake `mean-of-batch-means`**, sample, loses `test_train_one_epoch`: averages batch means; the short last batch weighs too much
# ```diff
# @@
# -    total_loss, total_examples = 0.0, 0
# +    losses = []
# @@
# -        x = x.to(device, non_blocking=True)
# -        y = y.to(device, non_blocking=True)
# -        optimizer.zero_grad(set_to_none=True)
# +        x, y = x.to(device, non_blocking=True), y.to(device, non_blocking=True)
# +        optimizer.zero_grad()
# @@
# -        total_loss += loss.item() * x.size(0)
# -        total_examples += x.size(0)
# -    return total_loss / total_examples
# +        losses.append(loss.item())
# +    return sum(losses) / len(losses)
# ```
#
# **mistake `no-train-mode`**, loses `test_train_one_epoch`: never calls model.train()
# ```diff
# @@
# -    model.train()
# -    total_loss, total_examples = 0.0, 0
# +    total, count = 0.0, 0
# @@
# -        x = x.to(device, non_blocking=True)
# -        y = y.to(device, non_blocking=True)
# -        optimizer.zero_grad(set_to_none=True)
# +        x, y = x.to(device, non_blocking=True), y.to(device, non_blocking=True)
# +        optimizer.zero_grad()
# @@
# -        total_loss += loss.item() * x.size(0)
# -        total_examples += x.size(0)
# -    return total_loss / total_examples
# +        total += loss.item() * len(x)
# +        count += len(x)
# +    return total / count
# ```
#
# **mistake `blocking-transfer`**, loses `test_train_one_epoch`: moves batches without non_blocking=True
# ```diff
# @@
# -    total_loss, total_examples = 0.0, 0
# +    total, count = 0.0, 0
# @@
# -        x = x.to(device, non_blocking=True)
# -        y = y.to(device, non_blocking=True)
# -        optimizer.zero_grad(set_to_none=True)
# +        x, y = x.to(device), y.to(device)
# +        optimizer.zero_grad()
# @@
# -        total_loss += loss.item() * x.size(0)
# -        total_examples += x.size(0)
# -    return total_loss / total_examples
# +        total += loss.item() * len(x)
# +        count += len(x)
# +    return total / count
# ```
#
# **mistake `no-zero-grad`**, loses `test_train_one_epoch`: gradients accumulate across batches
# ```diff
# @@
# -    total_loss, total_examples = 0.0, 0
# +    total, count = 0.0, 0
# @@
# -        x = x.to(device, non_blocking=True)
# -        y = y.to(device, non_blocking=True)
# -        optimizer.zero_grad(set_to_none=True)
# +        x, y = x.to(device, non_blocking=True), y.to(device, non_blocking=True)
# @@
# -        total_loss += loss.item() * x.size(0)
# -        total_examples += x.size(0)
# -    return total_loss / total_examples
# +        total += loss.item() * len(x)
# +        count += len(x)
# +    return total / count
# ```
#
# **mistake `returns-tensor`**, loses `test_train_one_epoch`: returns a tensor instead of a float
# ```diff
# @@
# -    total_loss, total_examples = 0.0, 0
# +    total, count = 0.0, 0
# @@
# -        x = x.to(device, non_blocking=True)
# -        y = y.to(device, non_blocking=True)
# -        optimizer.zero_grad(set_to_none=True)
# +        x, y = x.to(device, non_blocking=True), y.to(device, non_blocking=True)
# +        optimizer.zero_grad()
# @@
# -        total_loss += loss.item() * x.size(0)
# -        total_examples += x.size(0)
# -    return total_loss / total_examples
# +        total = total + loss.detach() * len(x)
# +        count += len(x)
# +    return total / count
# ```
#
# **alternative `model-to-device`**: moves the model to the device inside the function; locals named _x, _loss
# ```python
# def train_one_epoch(model, loader, optimizer, criterion, device) -> float:
#     model.to(device)
#     model.train()
#     _total, _count = 0.0, 0
#     for _x, _y in loader:
#         _x, _y = _x.to(device, non_blocking=True), _y.to(device, non_blocking=True)
#         optimizer.zero_grad()
#         _loss = criterion(model(_x), _y)
#         _loss.backward()
#         optimizer.step()
#         _total += _loss.item() * len(_y)
#         _count += len(_y)
#     return _total / _count
# ```
#
# **mistake `loss-over-dataset-length`**, loses `test_train_one_epoch`: divides by len(loader.dataset), not by the examples seen
# ```diff
# @@
# -    return total_loss / total_examples
# +    return total_loss / len(loader.dataset)
# ```
#
# **mistake `zero-grad-after-step`**, loses `test_train_one_epoch`: zeroes after the step: the first step uses leftover gradients
# ```diff
# @@
# -        optimizer.zero_grad(set_to_none=True)
#          loss = criterion(model(x), y)
#          loss.backward()
#          optimizer.step()
# +        optimizer.zero_grad(set_to_none=True)
# ```
#
# **mistake `step-after-loop`**, loses `test_train_one_epoch`: optimizer.step() slipped out of the loop: one step per epoch
# ```diff
# @@
#          loss.backward()
# -        optimizer.step()
#          total_loss += loss.item() * x.size(0)
#          total_examples += x.size(0)
# +    optimizer.step()
#      return total_loss / total_examples
# ```
#
# **mistake `second-pass-loss`**, loses `test_train_one_epoch`: trains, then measures the mean loss in a second pass over the loader
# ```diff
# @@
#          optimizer.step()
# -        total_loss += loss.item() * x.size(0)
# -        total_examples += x.size(0)
# +    with torch.no_grad():  # the loss of the trained model
# +        for x, y in loader:
# +            x, y = x.to(device, non_blocking=True), y.to(device, non_blocking=True)
# +            total_loss += criterion(model(x), y).item() * x.size(0)
# +            total_examples += x.size(0)
#      return total_loss / total_examples
# ```
#
# **alternative `float64-sum`**: accumulates in float64 tensors, counts the examples in a tensor too
# ```python
# def train_one_epoch(model, loader, optimizer, criterion, device) -> float:
#     model.train()
#     total = torch.zeros((), dtype=torch.float64)
#     seen = torch.zeros((), dtype=torch.int64)
#     for x, y in loader:
#         x = x.to(device, non_blocking=True)
#         y = y.to(device, non_blocking=True)
#         optimizer.zero_grad(set_to_none=False)
#         loss = criterion(model(x), y)
#         loss.backward()
#         optimizer.step()
#         total += loss.detach().double() * x.shape[0]
#         seen += x.shape[0]
#     return float(total / seen)
# ```
#
# **alternative `zero-before-and-after`**: zeroes before the loop and after every step; gives the model back in its old mode
# ```python
# def train_one_epoch(model, loader, optimizer, criterion, device) -> float:
#     was_training = model.training
#     model.train()
#     optimizer.zero_grad()
#     total, count = 0.0, 0
#     try:
#         for x, y in loader:
#             x, y = x.to(device, non_blocking=True), y.to(device, non_blocking=True)
#             loss = criterion(model(x), y)
#             loss.backward()
#             optimizer.step()
#             optimizer.zero_grad()
#             total += float(loss) * y.shape[0]
#             count += y.shape[0]
#     finally:
#         model.train(was_training)
#     return total / count
# ```
#
# **alternative `sum-reduction`**: zeroes the gradients by hand, keeps lists, prints
# ```python
# def train_one_epoch(model, loader, optimizer, criterion, device) -> float:
#     model.train(True)
#     losses, sizes = [], []
#     for batch in loader:
#         x, y = (t.to(device, non_blocking=True) for t in batch)
#         for p in model.parameters():
#             p.grad = None
#         loss = criterion(model(x), y)
#         loss.backward()
#         optimizer.step()
#         losses.append(loss.item())
#         sizes.append(len(x))
#     print(f"epoch done: {len(losses)} batches")
#     return sum(l * n for l, n in zip(losses, sizes)) / sum(sizes)
# ```
#
# **clauses of `train_one_epoch`**
# - "Train model for one pass over loader on device": visible "Train model for one pass over loader" by `second-pass-loss`
# - "on device": allows `model-to-device`
# - "return the mean loss per example": visible "weight each batch's mean loss by its size" by `mean-of-batch-means`
# - "(a float).": visible "as a float" by `returns-tensor`
# - "Every forward pass runs in training mode": visible "Every forward pass runs in training mode" by `no-train-mode`
# - "(the mode left afterwards is free).": allows `zero-before-and-after`
# - "Each batch (x, y) is moved with non_blocking=True.": visible "Each batch (x, y) is moved with non_blocking=True" by `blocking-transfer`
# - "For every batch: zero the gradients, forward, loss, backward, optimizer step": visible "optimizer.step() per batch" by `step-after-loop`
# - "zero the gradients": allows `sum-reduction`, `float64-sum`
# - "gradients are zeroed before each backward, so the model's leftover gradients never reach a step.": visible "gradients are zeroed before each backward" by `zero-grad-after-step`, `no-zero-grad`
# - "criterion returns the mean loss of a batch (reduction="mean").": no requirement (it says what the caller's criterion returns; what the answer does with it is the clause on the mean loss per example)
# - "The mean is over the examples the loader yielded, which may be fewer than len(loader.dataset).": visible "The mean is over the examples the loader yielded" by `loss-over-dataset-length`

# %% [markdown] id="ex4"
# ## Exercise 4: `evaluate` (2 points)
#
# Return the **accuracy** of `model` on `loader` as a fraction in [0, 1] (not a percentage):
#
# - put the model in **evaluation mode** (`model.eval()`) for every forward pass (what mode you leave it in afterwards
#   is up to you);
# - turn autograd off (`torch.no_grad()` or `torch.inference_mode()`): no graph is needed, and building one costs
#   memory and time;
# - a prediction is the class with the highest score (`argmax` over the classes);
# - count correct predictions over all the examples the loader yields, so that a smaller last batch counts for what it
#   holds, and divide by that number of examples (with `drop_last=True` it is less than `len(loader.dataset)`);
# - do not change the model's parameters.

# %% nbgrader={"grade": false, "grade_id": "evaluate", "locked": false, "schema_version": 3, "solution": true}
def evaluate(model, loader, device) -> float:
    """Accuracy of model on loader, a float in [0, 1] (not a percentage).

    Every forward pass runs in eval mode with autograd off (the mode left afterwards is free);
    the prediction is the argmax over the classes; accuracy = correct predictions / examples
    the loader yielded (fewer than len(loader.dataset) with drop_last). Parameters unchanged."""
    ### BEGIN SOLUTION
    model.eval()
    correct, total = 0, 0
    with torch.no_grad():
        for x, y in loader:
            x, y = x.to(device, non_blocking=True), y.to(device, non_blocking=True)
            correct += (model(x).argmax(dim=1) == y).sum().item()
            total += y.numel()
    return correct / total
    ### END SOLUTION


# %% nbgrader={"grade": true, "grade_id": "test_evaluate", "locked": true, "points": 2, "schema_version": 3, "solution": false}
from gpucourse.checks import Check
import copy
from gpucourse.testing import ModeProbe, toy_loader
from hypothesis import strategies as st
from gpucourse import domains

# the domain: the models the course builds (a Linear layer, an MLP, one with dropout, one with BatchNorm), loaders of
# one batch (a batch size at least the data size), with a last batch of one example, with drop_last; the device as a
# str or a torch.device; called with autograd on or under the caller's torch.no_grad()
MODEL_KINDS = ("Linear", "MLP", "MLP with dropout", "MLP with BatchNorm")
CPU_SPELLINGS = ("cpu", torch.device("cpu"))
LOADER_KINDS = ((6, 6, False), (5, 16, False), (9, 4, False), (10, 4, True), (4, 4, True), (7, 3, False))
evaluations = st.fixed_dictionaries({"model": st.sampled_from(MODEL_KINDS), "examples": st.integers(1, 12),
                                     "batch_size": st.integers(1, 8), "drop_last": st.booleans(),
                                     "device": st.sampled_from(CPU_SPELLINGS), "caller's grad mode": st.booleans()})


def evaluation_cases(every=False):
    """Every model with every loader kind under both grad modes, the device spellings taken in turn (every=True: with
    both device spellings each)."""
    combos = [(m, k, g) for m in MODEL_KINDS for k in LOADER_KINDS for g in (True, False)]
    return [{"model": m, "examples": n, "batch_size": b, "drop_last": drop, "device": d, "caller's grad mode": g}
            for i, (m, (n, b, drop), g) in enumerate(combos)
            for d in (CPU_SPELLINGS if every else [CPU_SPELLINGS[(i + i // 2) % 2]])]


def evaluation_setup(case):
    """(model in training mode, loader), both new; None for a loader that yields nothing (outside the domain)."""
    n, size = case["examples"], case["batch_size"]
    if case["drop_last"] and n < size:
        return None
    model = domains.model_cases()[MODEL_KINDS.index(case["model"])].train()
    x, y = domains.batches([n], seed=n)[0]
    return model, torch.utils.data.DataLoader(torch.utils.data.TensorDataset(x, y), batch_size=size,
                                              drop_last=case["drop_last"])


def evaluates_every_module(case):
    """Every forward pass of every submodule runs in eval mode with autograd off, whatever the caller's grad mode."""
    made = evaluation_setup(case)
    if made is None:
        return True
    model, loader = made
    seen = []
    hooks = [m.register_forward_pre_hook(lambda module, args: seen.append(module.training or torch.is_grad_enabled()))
             for m in model.modules()]
    try:
        with torch.set_grad_enabled(case["caller's grad mode"]):
            evaluate(model, loader, case["device"])
    finally:
        for hook in hooks:
            hook.remove()
    return bool(seen) and not any(seen)


def keeps_callers_grad_mode(case):
    """Autograd is off inside evaluate only: the caller's grad mode (on, or off under torch.no_grad()) is as it was."""
    made = evaluation_setup(case)
    if made is None:
        return True
    with torch.set_grad_enabled(case["caller's grad mode"]):
        evaluate(*made, case["device"])
        return torch.is_grad_enabled() == case["caller's grad mode"]


def accuracy_of_own_predictions(case):
    """The float returned is the share of the examples the loader yielded whose argmax over the model's scores (as
    the forward passes returned them) is the label."""
    made = evaluation_setup(case)
    if made is None:
        return True
    model, loader = made
    scores = []
    hook = model.register_forward_hook(lambda module, args, out: scores.append(out.detach().float()))
    try:
        with torch.set_grad_enabled(case["caller's grad mode"]):
            got = evaluate(model, loader, case["device"])
    finally:
        hook.remove()
    labels = torch.cat([y for _, y in loader])
    if not isinstance(got, float) or sum(len(s) for s in scores) != len(labels):
        return False
    return abs(got - (torch.cat(scores).argmax(dim=1) == labels).sum().item() / len(labels)) <= 1e-6


def leaves_parameters(case):
    """Every parameter is the same object afterwards, with the same values, dtype, device and requires_grad."""
    made = evaluation_setup(case)
    if made is None:
        return True
    model, loader = made

    def parameters():
        return [(name, id(p), p.dtype, p.device, p.requires_grad, p.detach().clone())
                for name, p in model.named_parameters()]

    before = parameters()
    with torch.set_grad_enabled(case["caller's grad mode"]):
        evaluate(model, loader, case["device"])
    after = parameters()
    return len(after) == len(before) and all(a[:5] == b[:5] and torch.equal(a[5], b[5]) for a, b in zip(after, before))


with Check("evaluate") as check:
    loader = toy_loader(n=10, batch_size=4, features=4, classes=3, seed=1)  # batches of 4, 4, 2
    labels = loader.dataset.tensors[1]

    def always(c):
        """A model that always answers class c: right on exactly the examples labelled c."""
        model = torch.nn.Linear(4, 3)
        with torch.no_grad():
            model.weight.zero_()
            model.bias.copy_(torch.nn.functional.one_hot(torch.tensor(c), 3).float())
        return model

    model = ModeProbe(always(int(labels[0])))  # right on at least one example
    model.train()
    before = copy.deepcopy(model.state_dict())
    acc = check.call(evaluate, model, loader, "cpu")
    check.that(isinstance(acc, float), "Accuracy of model on loader is a float: use .item() or float(), not a tensor.")
    check.that(0.0 < acc <= 1.0, "Accuracy is a float in [0, 1] (not a percentage): correct predictions / examples.")
    check.that(model.seen_modes and not any(model.seen_modes),
               "Every forward pass runs in eval mode: call model.eval() before predicting.")
    check.that(model.seen_grad and not any(model.seen_grad),
               "Every forward pass runs with autograd off: use torch.no_grad() or torch.inference_mode().")
    check.that(all(before[k].dtype == v.dtype and torch.equal(before[k], v) for k, v in model.state_dict().items()),
               "Parameters unchanged: evaluate must not change the model's weights, their values or their dtype.")
    whole = torch.utils.data.DataLoader(loader.dataset, batch_size=len(labels))  # one batch of all 10
    for c in range(3):
        check.close(evaluate(always(c), whole, "cpu"), (labels == c).sum().item() / len(labels),
                    f"The prediction is the argmax over the classes: a model that always answers class {c} must "
                    f"score the share of examples labelled {c}.")
    for c in range(3):
        check.close(evaluate(always(c), loader, "cpu"), (labels == c).sum().item() / len(labels),
                    f"Accuracy = correct predictions / examples the loader yielded: with batches of 4, 4 and 2, a "
                    f"model that always answers class {c} must score the share of examples labelled {c}: count "
                    "correct predictions over all examples, not per batch.")
    short = torch.utils.data.DataLoader(loader.dataset, batch_size=4, drop_last=True)  # yields 8 of the 10
    check.close(evaluate(always(2), short, "cpu"), (labels[:8] == 2).sum().item() / 8,
                "With drop_last=True the loader yields 8 of the 10 examples: divide the correct predictions by the "
                "examples you saw, not by len(loader.dataset).")
    # the whole contract over its domain (above): every kind of model and loader, both device spellings, called with
    # autograd on and under torch.no_grad()
    check.forall(evaluations, accuracy_of_own_predictions,
                 "Accuracy = correct argmax predictions / examples the loader yielded, as a float: for a loader of one "
                 "batch, a last batch of one example, drop_last, and a device given as a str or a torch.device.",
                 examples=10, cases=evaluation_cases())
    check.forall(evaluations, evaluates_every_module,
                 "Every forward pass runs in eval mode with autograd off: every layer inside the model too (dropout, "
                 "BatchNorm), so call model.eval(), which sets them all, and leave none of them in training mode.",
                 examples=10, cases=evaluation_cases())
    check.forall(evaluations, keeps_callers_grad_mode,
                 "Autograd is off inside evaluate only: called under the caller's torch.no_grad(), autograd must still "
                 "be off afterwards, and on when it was on (use a with block, not torch.set_grad_enabled(True)).",
                 examples=10, cases=evaluation_cases())
    check.forall(evaluations, leaves_parameters,
                 "Parameters unchanged: each parameter keeps its values (exactly: no round trip through another "
                 "dtype), its dtype, device and requires_grad.", examples=10, cases=evaluation_cases())

### BEGIN HIDDEN TESTS
from gpucourse.checks import requirement as _requirement
with _requirement("evaluate returns correct argmax predictions / examples the loader yielded, as a float, "
                  "in eval mode with autograd off, parameters unchanged"):
    def _reference_accuracy(model, loader):
        """Fraction of correct argmax predictions over every example, without touching the probe's records."""
        inner = model.inner if isinstance(model, ModeProbe) else model
        was_training = inner.training
        inner.eval()
        correct = total = 0
        with torch.no_grad():
            for x, y in loader:
                correct += (inner(x).argmax(1) == y).sum().item()
                total += len(y)
        inner.train(was_training)
        return correct / total

    for _trial in range(4):
        _g = torch.Generator().manual_seed(torch.seed() % 2**31)
        _n, _bs = int(torch.randint(9, 50, (1,), generator=_g)), int(torch.randint(2, 8, (1,), generator=_g))
        if _n % _bs == 0:
            _n += 1
        _loader = toy_loader(n=_n, batch_size=_bs, features=6, classes=5,
                             seed=int(torch.randint(0, 10**6, (1,), generator=_g)))
        if _trial % 2:  # every other loader drops its short last batch: fewer examples than len(dataset)
            _loader = torch.utils.data.DataLoader(_loader.dataset, batch_size=_bs, drop_last=True)
        _model = ModeProbe(torch.nn.Sequential(torch.nn.Linear(6, 16), torch.nn.ReLU(), torch.nn.Linear(16, 5)))
        _model.train()
        _expected = _reference_accuracy(_model, _loader)
        _before = [p.detach().clone() for p in _model.parameters()]
        _acc = evaluate(_model, _loader, torch.device("cpu"))
        assert isinstance(_acc, float) and 0.0 <= _acc <= 1.0, "a fraction in [0, 1], as a float"
        # float32 counts are fine too: 1e-6 is far below one example in 50
        assert abs(_acc - _expected) < 1e-6, "correct argmax predictions / examples the loader yielded"
        assert _model.seen_modes and not any(_model.seen_modes), "every forward pass in eval mode"
        assert not any(_model.seen_grad), "autograd off"
        assert all(a.dtype == b.dtype and torch.equal(a, b) for a, b in zip(_before, _model.parameters())), \
            "parameters unchanged"
from gpucourse.contract import for_all as _for_all
with _requirement("evaluate keeps its contract for every model kind (dropout, BatchNorm), loaders of one batch, "
                  "with a last batch of one, with drop_last, a device as a str or a torch.device, and the caller's "
                  "grad mode on or off"):
    _for_all(evaluations, accuracy_of_own_predictions, "correct argmax predictions / examples the loader yielded, "
             "as a float", examples=100, cases=evaluation_cases(every=True))
    _for_all(evaluations, evaluates_every_module, "every forward pass of every submodule in eval mode, autograd off",
             examples=100, cases=evaluation_cases(every=True))
    _for_all(evaluations, keeps_callers_grad_mode, "the caller's grad mode as it was", examples=100,
             cases=evaluation_cases(every=True))
    _for_all(evaluations, leaves_parameters, "parameters unchanged: values, dtype, device, requires_grad",
             examples=100, cases=evaluation_cases(every=True))
### END HIDDEN TESTS

# %% [markdown] fixtures="evaluate"
# ### Mistakes and correct alternatives for `evaluate` (author-only: in no generated notebook)
#
# **mistake `no-eval-mode`**, loses `test_evaluate`: forgets model.eval()
# ```diff
# @@
# -    model.eval()
# -    correct, total = 0, 0
# +    correct = total = 0
# @@
# -            x, y = x.to(device, non_blocking=True), y.to(device, non_blocking=True)
# -            correct += (model(x).argmax(dim=1) == y).sum().item()
# -            total += y.numel()
# +            x, y = x.to(device), y.to(device)
# +            correct += (model(x).argmax(1) == y).sum().item()
# +            total += len(y)
# ```
#
# **mistake `with-autograd`**, loses `test_evaluate`: builds autograd graphs while evaluating
# ```diff
# @@
# -    correct, total = 0, 0
# -    with torch.no_grad():
# -        for x, y in loader:
# -            x, y = x.to(device, non_blocking=True), y.to(device, non_blocking=True)
# -            correct += (model(x).argmax(dim=1) == y).sum().item()
# -            total += y.numel()
# +    correct = total = 0
# +    for x, y in loader:
# +        x, y = x.to(device), y.to(device)
# +        correct += (model(x).argmax(1) == y).sum().item()
# +        total += len(y)
# ```
#
# **mistake `percent`**, loses `test_evaluate`: returns a percentage
# ```diff
# @@
# -    correct, total = 0, 0
# +    correct = total = 0
# @@
# -            x, y = x.to(device, non_blocking=True), y.to(device, non_blocking=True)
# -            correct += (model(x).argmax(dim=1) == y).sum().item()
# -            total += y.numel()
# -    return correct / total
# +            correct += (model(x.to(device)).argmax(1) == y.to(device)).sum().item()
# +            total += len(y)
# +    return 100.0 * correct / total
# ```
#
# **mistake `mean-of-batch-accuracies`**, loses `test_evaluate`: averages batch accuracies; the short last batch weighs too much
# ```diff
# @@
# -    correct, total = 0, 0
# +    accs = []
# @@
# -            x, y = x.to(device, non_blocking=True), y.to(device, non_blocking=True)
# -            correct += (model(x).argmax(dim=1) == y).sum().item()
# -            total += y.numel()
# -    return correct / total
# +            accs.append((model(x.to(device)).argmax(1) == y.to(device)).float().mean().item())
# +    return sum(accs) / len(accs)
# ```
#
# **mistake `accuracy-over-dataset-length`**, loses `test_evaluate`: divides by len(loader.dataset), not by the examples seen
# ```diff
# @@
# -    return correct / total
# +    return correct / len(loader.dataset)
# ```
#
# **mistake `accuracy-tensor`**, loses `test_evaluate`: counts in a tensor and returns a tensor, not a float
# ```diff
# @@
# -            correct += (model(x).argmax(dim=1) == y).sum().item()
# +            correct += (model(x).argmax(dim=1) == y).sum()
# ```
#
# **mistake `max-values`**, loses `test_evaluate`: takes torch.max's values, not its indices, as the prediction
# ```diff
# @@
# -            correct += (model(x).argmax(dim=1) == y).sum().item()
# +            pred, _ = torch.max(model(x), dim=1)
# +            correct += (pred == y).sum().item()
# ```
#
# **mistake `half-precision`**, loses `test_evaluate`: evaluates in half precision for speed, converting the caller's weights
# ```diff
# @@
# -    model.eval()
# +    model.eval().half()
# @@
# -            correct += (model(x).argmax(dim=1) == y).sum().item()
# +            correct += (model(x.half()).argmax(dim=1) == y).sum().item()
# ```
#
# **alternative `float32-fraction`**: inference_mode, the fraction computed in float32
# ```python
# def evaluate(model, loader, device) -> float:
#     model.eval()
#     hits = []
#     with torch.inference_mode():
#         for x, y in loader:
#             hits.append(model(x.to(device)).argmax(-1).eq(y.to(device)))
#     return torch.cat(hits).float().mean().item()
# ```
#
# **alternative `no-grad-decorator`**: torch.no_grad as a decorator on an own _helper, train(False)
# ```python
# @torch.no_grad()
# def _count_correct(model, x, y):
#     return int((model(x).argmax(dim=1) == y).sum())
#
# def evaluate(model, loader, device) -> float:
#     model.train(False)
#     _correct = _seen = 0
#     for x, y in loader:
#         _correct += _count_correct(model, x.to(device), y.to(device))
#         _seen += len(y)
#     return _correct / _seen
# ```
#
# **alternative `restores-mode`**: gives the model back in the mode it came in; counts with a list of batch sizes
# ```python
# def evaluate(model, loader, device) -> float:
#     was_training = model.training
#     model.eval()
#     hits, sizes = 0, []
#     try:
#         with torch.inference_mode():
#             for x, y in loader:
#                 scores = model(x.to(device, non_blocking=True))
#                 hits += int(torch.argmax(scores, dim=1).eq(y.to(device)).sum())
#                 sizes.append(y.shape[0])
#     finally:
#         model.train(was_training)
#     return hits / sum(sizes)
# ```
#
# **alternative `constant-on-device`**: a counter tensor created on the device
# ```python
# def evaluate(model, loader, device) -> float:
#     model.eval()
#     correct = torch.tensor(0, device=device)
#     seen = 0
#     with torch.no_grad():
#         for x, y in loader:
#             x, y = x.to(device), y.to(device)
#             correct += (model(x).argmax(1) == y).sum()
#             seen += y.size(0)
#     return correct.item() / seen
# ```
#
# **clauses of `evaluate`**
# - "Accuracy of model on loader, a float": visible "Accuracy of model on loader is a float" by `accuracy-tensor`
# - "in [0, 1] (not a percentage).": visible "in [0, 1] (not a percentage)" by `percent`
# - "Every forward pass runs in eval mode": visible "Every forward pass runs in eval mode" by `no-eval-mode`
# - "with autograd off": visible "Every forward pass runs with autograd off" by `with-autograd`
# - "with autograd off": allows `float32-fraction`, `no-grad-decorator`
# - "(the mode left afterwards is free)": allows `restores-mode`
# - "the prediction is the argmax over the classes": visible "The prediction is the argmax over the classes" by `max-values`
# - "accuracy = correct predictions / examples the loader yielded": visible "correct predictions over all examples, not per batch" by `mean-of-batch-accuracies`
# - "(fewer than len(loader.dataset) with drop_last).": visible "not by len(loader.dataset)" by `accuracy-over-dataset-length`
# - "Parameters unchanged.": visible "Parameters unchanged" by `half-precision`

# %% [markdown] id="s4"
# ## 4. Putting it together: train the MLP on Fashion-MNIST
#
# The same four functions train on whatever `pick_device()` finds. `gpucourse.data.fashion_mnist` downloads the data
# once (offline it writes a clearly announced stand-in of the same shape), and `gpucourse.model` gives module 5's MLP
# with module 6's AdamW and cosine schedule. In quick mode (autograder, CI) the run shrinks to a small subset.

# %% id="s4-train"
from torch.utils.data import DataLoader
from tqdm.auto import tqdm
from gpucourse.data import fashion_mnist, float_dataset
from gpucourse.model import make_adamw_cosine, make_mlp

if needs("pick_device", "to_device", "train_one_epoch", "evaluate"):
    device = pick_device()
    train_set = float_dataset(fashion_mnist(train=True), limit=2_000 if QUICK else None)
    test_set = float_dataset(fashion_mnist(train=False), limit=1_000 if QUICK else None)
    train_loader = DataLoader(train_set, batch_size=256, shuffle=True, drop_last=True)
    test_loader = DataLoader(test_set, batch_size=1024)

    epochs = 1 if QUICK else 5
    model = make_mlp().to(device)                     # Module.to: in place, no assignment needed
    optimizer, scheduler = make_adamw_cosine(model, total_steps=epochs, lr=2e-3)
    history = []
    for epoch in tqdm(range(epochs), desc="epochs"):
        loss = train_one_epoch(model, train_loader, optimizer, torch.nn.CrossEntropyLoss(), device)
        scheduler.step()                              # one cosine step per epoch here
        history.append((loss, evaluate(model, test_loader, device)))
        print(f"epoch {epoch + 1}: train loss {loss:.3f}, test accuracy {history[-1][1]:.1%}")

# %% id="s4-plot"
if needs("pick_device", "to_device", "train_one_epoch", "evaluate"):
    fig, (ax_loss, ax_acc) = plt.subplots(1, 2, figsize=(9, 3))
    epochs_axis = range(1, len(history) + 1)
    ax_loss.plot(epochs_axis, [h[0] for h in history], marker="o")
    ax_loss.set(xlabel="epoch", ylabel="mean training loss per example", title="training loss")
    ax_acc.plot(epochs_axis, [h[1] for h in history], marker="o", color="tab:green")
    ax_acc.set(xlabel="epoch", ylabel="test accuracy", title=f"test accuracy on {device.type}")
    fig.tight_layout()
    plt.show()

# %% [markdown] id="summary"
# ## Summary
#
# - Every tensor lives on one device; operations run there; mixing devices raises an error rather than copying
#   (a 0-dim CPU tensor, used like a Python number, is the one exception).
# - `model.to(device)` moves in place and returns the same module; `x = x.to(device)` must be assigned.
# - `to_device`, `train_one_epoch` and `evaluate` are device-agnostic: the same code trains on a CPU, a T4 or a Mac.
