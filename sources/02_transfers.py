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
# A GPU can only work on data that is already in its own memory. Every batch your `DataLoader` produces starts in
# the CPU's memory and has to cross the PCIe bus first. That crossing is slow compared with the GPU's own memory
# (a T4 reads its memory at up to 320 GB/s, while its PCIe Gen3 x16 link carries at most about 15.75 GB/s per
# direction; the Gen4 and Gen5 links of newer GPUs carry two and four times that), so a training loop can spend a
# surprising share of its time waiting for inputs.
#
# **You will learn to**
# - count the bytes of a batch, and predict how long it takes to cross (`batch_nbytes`, `transfer_ms`);
# - measure host-to-device bandwidth against transfer size, for pageable and pinned memory;
# - build a `DataLoader` that prepares batches for a GPU (`make_loader`);
# - send images as `uint8` and normalize them on the device, moving four times fewer bytes (`normalize_on_device`);
# - see what `num_workers` does, and when it does nothing.
#
# **Time:** about 30 minutes on a Colab T4; about 30 minutes on a laptop CPU, where the GPU measurements are
# replaced by clearly labelled models and host-memory measurements.

# %% nbgrader={"grade": false, "grade_id": "setup", "locked": true, "schema_version": 3, "solution": false}
# The shared set-up: `python -m graders build` writes its install part above these lines.
from gpucourse.bootstrap import setup
DEVICE, QUICK = setup()
import torch
from gpucourse.checks import needs  # a demonstration that runs your answers waits until they are answered


# %% [markdown] id="recap"
# ## Recap
#
# - **Notebook 01**: every tensor lives on one device; `to_device(batch, device, non_blocking=True)` moves a batch.
# - **Module 4**: a `DataLoader` draws samples from a `Dataset`, collates them into batches, and can shuffle, drop the
#   short last batch and load in worker processes.
# - **Module 5**: Fashion-MNIST images are 28×28 grey pixels stored as `uint8` (0 to 255); the MLP wants normalized
#   `float32`.

# %% [markdown] id="s1"
# ## 1. How many bytes is a batch?
#
# A batch is `batch_size × (elements per sample) × (bytes per element)` bytes. Bytes per element depend on the dtype:
# `float32` takes 4, `float16` and `bfloat16` take 2, `uint8` takes 1 (`dtype.itemsize` tells you).
#
# A batch of 256 Fashion-MNIST images in `float32` is 256 × 1 × 28 × 28 × 4 = **802,816 bytes**, under a megabyte.
# A batch of 256 ImageNet-sized images (3 × 224 × 224) in `float32` is **154,140,672 bytes**: 154 MB, for every step.

# %% [markdown] id="ex1"
# ## Exercise 1: `batch_nbytes` (2 points)
#
# Write `batch_nbytes(batch_size, sample_shape, dtype)` that returns the number of bytes of a batch of `batch_size`
# samples of shape `sample_shape` (a tuple, list or `torch.Size`; `()` for a single number per sample) and type
# `dtype` (any `torch.dtype`, `bool` and complex types included), as a Python `int`.
#
# Compute it from the numbers; do not create the batch. The tests ask about batches far bigger than your memory, with
# more bytes than a `float` can count exactly (above 2⁵³, and below 2⁶³, the most bytes a tensor can have), so the
# answer must be the exact integer: keep to integers.

# %% nbgrader={"grade": false, "grade_id": "batch_nbytes", "locked": false, "schema_version": 3, "solution": true}
def batch_nbytes(batch_size, sample_shape, dtype) -> int:
    """Bytes of a batch of batch_size samples of shape sample_shape and dtype dtype, as an int.

    sample_shape is a tuple, list or torch.Size (() for scalar samples); dtype is any
    torch.dtype; batch_size may be 0. The result is exact for every size a tensor can have
    (up to 2**63 - 1 bytes; never rounded through a float), and nothing is allocated: the batch
    may be far bigger than any memory."""
    ### BEGIN SOLUTION
    elements = int(batch_size)
    for size in sample_shape:
        elements *= int(size)
    return elements * dtype.itemsize
    ### END SOLUTION


# %% nbgrader={"grade": true, "grade_id": "test_batch_nbytes", "locked": true, "points": 2, "schema_version": 3, "solution": false}
import numbers
from gpucourse.checks import Check

def attempt(*args):
    """batch_nbytes(*args), or the exception it raised: the hint of the check then names the clause it broke."""
    try:
        return batch_nbytes(*args)
    except Exception as error:
        return error


with Check("batch_nbytes") as check:
    n = check.call(batch_nbytes, 12, (2, 5, 7), torch.float32)
    check.that(isinstance(n, numbers.Integral) and not isinstance(n, bool),
               "Return the bytes as an int: a number of bytes is a whole number, not a float.")
    check.equal(n, 12 * 2 * 5 * 7 * 4,
                "Bytes of a batch of batch_size samples of shape sample_shape: 12 samples of shape (2, 5, 7) in "
                "float32 are 12 × 70 elements of 4 bytes each.")
    check.equal(attempt(12, (2, 5, 7), torch.float64), 12 * 70 * 8,
                "The bytes per element come from dtype: a float64 element takes 8 bytes. Where does your function "
                "get the bytes per element?")
    for kind, per_element in [(torch.uint8, 1), (torch.int16, 2), (torch.complex64, 8), (torch.bool, 1)]:
        check.equal(attempt(3, torch.Size([2, 5]), kind), 3 * 2 * 5 * per_element,
                    f"dtype is any torch.dtype, bool and complex ones included: {kind} takes {per_element} "
                    "byte(s) per element.")
    check.equal(attempt(6, [3, 4], torch.int64), 6 * 3 * 4 * 8,
                "sample_shape is a tuple, list or torch.Size: a list [3, 4] must work as (3, 4) does.")
    check.equal(attempt(5, (), torch.int32), 5 * 4,
                "sample_shape () means one number per sample (scalar samples): 5 int32 scalars still take bytes.")
    check.equal(attempt(0, (3, 4), torch.float32), 0, "batch_size may be 0: an empty batch takes 0 bytes.")
    # samples: far more bytes than any memory holds and than a float counts exactly, yet fewer than 2**63
    huge = 3**34
    got = attempt(huge, (7,), torch.float64)
    check.that(not isinstance(got, Exception),
               "Nothing is allocated: the batch may be far bigger than any memory (3**34 samples here), so compute "
               f"its bytes from the numbers, never create the batch ({got!r}).")
    check.equal(got, huge * 7 * 8,
                "The result is exact for every size a tensor can have: 3**34 samples take more bytes than a float "
                "counts exactly, so keep to integers (no float on the way).")
    got = attempt(2, (3**17, 3**17), torch.float32)
    check.that(not isinstance(got, Exception) and got == 2 * 3**34 * 4,
               "Nothing is allocated, not even one sample: a sample of shape (3**17, 3**17) is far bigger than any "
               f"memory, so compute the bytes from the numbers ({got!r}).")
    # the whole contract over its domain: every dtype, sample shapes as tuples, lists and torch.Sizes (() and
    # zero-size ones too), batch sizes from 0; relations between calls, never a table of answers
    from hypothesis import strategies as st
    from gpucourse import domains
    from gpucourse.contract import snapshot

    SPELLINGS = (tuple, list, torch.Size)
    calls = st.tuples(st.integers(0, 2**40), st.builds(lambda kind, shape: kind(shape), st.sampled_from(SPELLINGS),
                                                       domains.shapes(max_dims=4, max_side=9)), domains.dtypes())

    def covering(batch_sizes=(0, 7), shapes=domains.COVERING_SHAPES):
        """A fixed sample, made anew for each property: every dtype, every spelling of every kind of shape."""
        return [(size, kind(shape), dtype) for dtype in domains.ALL_DTYPES for shape in shapes
                for kind in SPELLINGS for size in batch_sizes]

    def spellings_agree(c):
        """A tuple, a list and a torch.Size of the same sides give the same int, and none of them is modified."""
        size, shape, dtype = c
        given = [kind(shape) for kind in SPELLINGS]
        before = snapshot(given)
        got = [batch_nbytes(size, s, dtype) for s in given]
        return (all(isinstance(n, numbers.Integral) and not isinstance(n, bool) for n in got)
                and got[0] == got[1] == got[2] and snapshot(given) == before)

    check.forall(calls, spellings_agree,
                 "sample_shape is a tuple, list or torch.Size: each gives the same bytes, as an int, and "
                 "sample_shape is left as it came (() for scalar samples and zero-size shapes included).",
                 cases=covering())

    def scales(c):
        """batch_size samples take batch_size times one sample's bytes; a sample of shape (*s, k) takes k times one
        of shape s (0 bytes for k = 0); a scalar sample of uint8 takes 1 byte."""
        size, shape, dtype = c
        one = batch_nbytes(1, tuple(shape), dtype)
        return (batch_nbytes(size, tuple(shape), dtype) == size * one
                and all(batch_nbytes(1, (*shape, k), dtype) == k * one for k in (0, 1, 3))
                and batch_nbytes(1, (), torch.uint8) == 1)

    check.forall(calls, scales,
                 "Bytes of a batch of batch_size samples of shape sample_shape: batch_size times one sample's bytes, "
                 "and each side of sample_shape multiplies them (a side of 0 makes 0 bytes).", cases=covering())

    # dtypes of the same width take the same bytes per element, and each width twice the one before
    WIDTHS = [("bool", "uint8", "int8", "float8_e4m3fn", "float8_e5m2"), ("int16", "uint16", "float16", "bfloat16"),
              ("int32", "uint32", "float32"), ("int64", "uint64", "float64", "complex64"), ("complex128",)]
    doublings = {getattr(torch, name): level for level, names in enumerate(WIDTHS) for name in names
                 if isinstance(getattr(torch, name, None), torch.dtype)}

    def follows_width(c):
        size, shape, dtype = c
        return batch_nbytes(size, tuple(shape), dtype) == 2 ** doublings[dtype] * batch_nbytes(size, tuple(shape),
                                                                                                torch.uint8)

    width_calls = st.tuples(st.integers(0, 2**40), domains.shapes(max_dims=4, max_side=9),
                            st.sampled_from(list(doublings)))
    check.forall(width_calls, follows_width,
                 "dtype is any torch.dtype: the bytes per element come from dtype, the same for dtypes of the same "
                 "width (uint16 as int16, float8 as uint8, complex128 twice float64), and dtype.itemsize tells them.",
                 cases=[c for c in covering(batch_sizes=(5,)) if c[2] in doublings])

### BEGIN HIDDEN TESTS
from gpucourse.checks import requirement as _requirement
with _requirement("batch_nbytes returns the exact number of bytes as an int, for every dtype and shape, "
                  "without allocating"):
    import random as _random
    _rng = _random.Random()
    _dtypes = [torch.float32, torch.float16, torch.bfloat16, torch.float64, torch.uint8, torch.int8,
               torch.int16, torch.int32, torch.int64, torch.bool, torch.complex64]


    def _expected(_bs, _shape, _dtype):
        return torch.empty((_bs, *_shape), dtype=_dtype, device="meta").nbytes  # meta: nothing allocated


    for _ in range(30):
        _shape = tuple(_rng.randint(1, 40) for _ in range(_rng.randint(0, 4)))
        _bs, _dtype = _rng.randint(0, 600), _rng.choice(_dtypes)
        _kind = _rng.choice([tuple, list, torch.Size])
        _got = batch_nbytes(_bs, _kind(_shape), _dtype)
        assert isinstance(_got, numbers.Integral) and not isinstance(_got, bool), "an int"
        assert _got == _expected(_bs, _shape, _dtype), f"bytes of {_bs} x {_shape} {_dtype}"
    for _dtype in _dtypes:
        assert batch_nbytes(7, (5,), _dtype) == _expected(7, (5,), _dtype), f"bytes per element of {_dtype}"
    assert batch_nbytes(3, (), torch.float64) == 24, "scalar samples"
    assert batch_nbytes(4, [2, 3], torch.int16) == 48 and batch_nbytes(4, torch.Size([2, 3]), torch.int16) == 48, \
        "sample_shape may be a tuple, a list or a torch.Size"
    assert batch_nbytes(0, (3, 224, 224), torch.float32) == 0, "an empty batch has no bytes"
    # far bigger than any address space (2**59 bytes: an allocating answer fails at once, never swaps), yet
    # within the 2**63 - 1 bytes a tensor can have: computed, never allocated
    assert batch_nbytes(2**40, (3, 224, 224), torch.float32) == _expected(2**40, (3, 224, 224), torch.float32), \
        "computed from the numbers, never allocated"
    _side = _rng.randint(2**22, 2**24)   # one sample alone of 2**44 to 2**48 elements: not even it is allocated
    assert batch_nbytes(3, (_side, _side), torch.int16) == _expected(3, (_side, _side), torch.int16), \
        "nothing allocated, not even one sample"
    # an odd count of elements above 2**53 (a float cannot hold it), bytes below 2**63: exact, never rounded
    _odd = _rng.randint(2**44, 2**49) | 1
    assert batch_nbytes(_odd, (7, 11, 13), torch.float64) == _expected(_odd, (7, 11, 13), torch.float64), \
        "exact for every size a tensor can have: keep to integers"
    assert batch_nbytes(_odd, torch.Size([3]), torch.complex64) == _expected(_odd, (3,), torch.complex64), \
        "exact for every size a tensor can have"
from gpucourse.contract import for_all as _for_all
with _requirement("batch_nbytes keeps the whole contract for every dtype, every shape (() and zero-size ones "
                  "too) as a tuple, list or torch.Size, and every batch size from 0"):
    _shapes = ((), (0,), (1,), (2, 3), (1, 0, 2), (4, 1, 3, 2))

    def _exact(c):
        _size, _shape, _dtype = c
        _got = batch_nbytes(_size, _shape, _dtype)
        return type(_got) is not bool and isinstance(_got, numbers.Integral) \
            and _got == _expected(_size, tuple(_shape), _dtype)

    _for_all(calls, _exact, "the exact bytes of the batch, as an int", examples=300,
             cases=covering(batch_sizes=(0, 1, 7, 2**45 + 1), shapes=_shapes))
    _for_all(calls, spellings_agree, "tuple, list and torch.Size alike, sample_shape unchanged", examples=300,
             cases=covering(shapes=_shapes))
    _for_all(calls, scales, "batch_size times one sample's bytes, each side multiplying them", examples=300,
             cases=covering(shapes=_shapes))
    _for_all(width_calls, follows_width, "the bytes per element follow the dtype's width", examples=300,
             cases=[c for c in covering(batch_sizes=(0, 3), shapes=_shapes) if c[2] in doublings])
### END HIDDEN TESTS

# %% [markdown] fixtures="batch_nbytes"
# ### Mistakes and correct alternatives for `batch_nbytes` (author-only: in no generated notebook)
#
# **mistake `four-bytes-always`**, sample, loses `test_batch_nbytes`: assumes every dtype takes 4 bytes
# ```diff
# @@
# -    elements = int(batch_size)
# -    for size in sample_shape:
# -        elements *= int(size)
# -    return elements * dtype.itemsize
# +    n = batch_size
# +    for s in sample_shape:
# +        n *= s
# +    return n * 4
# ```
#
# **mistake `bits-not-bytes`**, loses `test_batch_nbytes`: counts bits instead of bytes
# ```diff
# @@
# -    elements = int(batch_size)
# -    for size in sample_shape:
# -        elements *= int(size)
# -    return elements * dtype.itemsize
# +    n = batch_size
# +    for s in sample_shape:
# +        n *= s
# +    return n * dtype.itemsize * 8
# ```
#
# **mistake `finfo-bits`**, loses `test_batch_nbytes`: torch.finfo only knows floating types: uint8 and bool fail
# ```diff
# @@
# -    elements = int(batch_size)
# -    for size in sample_shape:
# -        elements *= int(size)
# -    return elements * dtype.itemsize
# +    n = batch_size
# +    for s in sample_shape:
# +        n *= s
# +    return n * torch.finfo(dtype).bits // 8
# ```
#
# **mistake `per-sample`**, loses `test_batch_nbytes`: forgets the batch dimension
# ```diff
# @@
# -    elements = int(batch_size)
# -    for size in sample_shape:
# -        elements *= int(size)
# -    return elements * dtype.itemsize
# +    n = 1
# +    for s in sample_shape:
# +        n *= s
# +    return n * dtype.itemsize
# ```
#
# **mistake `float-result`**, loses `test_batch_nbytes`: returns a float
# ```diff
# @@
# +import math
#  def batch_nbytes(batch_size, sample_shape, dtype) -> int:
# @@
#      may be far bigger than any memory."""
# -    elements = int(batch_size)
# -    for size in sample_shape:
# -        elements *= int(size)
# -    return elements * dtype.itemsize
# +    return batch_size * math.prod(sample_shape) * torch.tensor([], dtype=dtype).element_size() / 1.0
# ```
#
# **mistake `allocates`**, loses `test_batch_nbytes`: allocates the batch to measure it: fails for batches larger than memory
# ```diff
# @@
# -    elements = int(batch_size)
# -    for size in sample_shape:
# -        elements *= int(size)
# -    return elements * dtype.itemsize
# +    return torch.zeros((batch_size, *sample_shape), dtype=dtype).nbytes
# ```
#
# **mistake `through-float`**, loses `test_batch_nbytes`: multiplies in floating point, then rounds: wrong above 2**53 bytes
# ```diff
# @@
# -    elements = int(batch_size)
# +    elements = float(batch_size)
# @@
# -    return elements * dtype.itemsize
# +    return int(elements * dtype.itemsize)
# ```
#
# **mistake `scalar-samples-zero`**, loses `test_batch_nbytes`: reads sample_shape () as no data, not as scalar samples
# ```diff
# @@
# +    if not sample_shape:
# +        return 0
#      elements = int(batch_size)
# ```
#
# **mistake `size-table`**, loses `test_batch_nbytes`: a table of the course's dtypes: int16 and complex64 raise KeyError
# ```diff
# @@
# -    return elements * dtype.itemsize
# +    sizes = {torch.float64: 8, torch.float32: 4, torch.float16: 2, torch.bfloat16: 2,
# +             torch.int64: 8, torch.int32: 4, torch.uint8: 1, torch.bool: 1}
# +    return elements * sizes[dtype]
# ```
#
# **mistake `tuple-only`**, loses `test_batch_nbytes`: concatenates a tuple to sample_shape: a list fails
# ```diff
# @@
# +import math
#  def batch_nbytes(batch_size, sample_shape, dtype) -> int:
# @@
#      may be far bigger than any memory."""
# -    elements = int(batch_size)
# -    for size in sample_shape:
# -        elements *= int(size)
# -    return elements * dtype.itemsize
# +    return math.prod((batch_size,) + sample_shape) * dtype.itemsize
# ```
#
# **mistake `rejects-empty-batch`**, loses `test_batch_nbytes`: refuses a batch_size of 0
# ```diff
# @@
# +    if batch_size <= 0:
# +        raise ValueError("batch_size must be positive")
#      elements = int(batch_size)
# ```
#
# **mistake `allocates-one-sample`**, loses `test_batch_nbytes`: allocates one sample to read its bytes (a sample may be bigger than memory too)
# ```diff
# @@
# -    elements = int(batch_size)
# -    for size in sample_shape:
# -        elements *= int(size)
# -    return elements * dtype.itemsize
# +    one = torch.empty(tuple(sample_shape), dtype=dtype)
# +    return int(batch_size) * one.nbytes
# ```
#
# **alternative `math-prod`**: math.prod and element_size of a 0-d tensor
# ```python
# import math
#
# def batch_nbytes(batch_size, sample_shape, dtype) -> int:
#     return batch_size * math.prod(sample_shape) * torch.empty((), dtype=dtype).element_size()
# ```
#
# **alternative `finfo-iinfo`**: bits from finfo/iinfo in an own _helper
# ```python
# def _bytes_per_element(dtype):
#     if dtype == torch.bool:
#         return 1
#     info = torch.finfo(dtype) if dtype.is_floating_point or dtype.is_complex else torch.iinfo(dtype)
#     return info.bits // 8 * (2 if dtype.is_complex else 1)
#
# def batch_nbytes(batch_size, sample_shape, dtype) -> int:
#     count = batch_size
#     for size in list(sample_shape):
#         count = count * size
#     return int(count) * _bytes_per_element(dtype)
# ```
#
# **alternative `meta-tensor`**: torch.Size.numel and itemsize
# ```python
# def batch_nbytes(batch_size, sample_shape, dtype) -> int:
#     per_sample = torch.Size(sample_shape).numel()
#     return int(batch_size) * per_sample * torch.tensor([], dtype=dtype).itemsize
# ```
#
# **alternative `meta-nbytes`**: the whole batch as a meta tensor (no data), exact up to the 2**63 - 1 bytes a tensor can have
# ```python
# def batch_nbytes(batch_size, sample_shape, dtype) -> int:
#     batch = torch.empty((batch_size, *sample_shape), dtype=dtype, device="meta")
#     return int(batch.nbytes)
# ```
#
# **clauses of `batch_nbytes`**
# - "Bytes of a batch of batch_size samples of shape sample_shape": visible "Bytes of a batch of batch_size samples of shape sample_shape" by `per-sample`, `bits-not-bytes`
# - "and dtype dtype": visible "The bytes per element come from dtype" by `four-bytes-always`
# - "as an int.": visible "Return the bytes as an int" by `float-result`
# - "sample_shape is a tuple, list or torch.Size": visible "sample_shape is a tuple, list or torch.Size" by `tuple-only`
# - "(() for scalar samples)": visible "sample_shape () means one number per sample (scalar samples)" by `scalar-samples-zero`
# - "dtype is any torch.dtype": visible "dtype is any torch.dtype, bool and complex ones included" by `finfo-bits`, `size-table`
# - "dtype is any torch.dtype": allows `finfo-iinfo`, `math-prod`
# - "batch_size may be 0.": visible "batch_size may be 0" by `rejects-empty-batch`
# - "The result is exact for every size a tensor can have (up to 2**63 - 1 bytes; never rounded through a float)": visible "The result is exact for every size a tensor can have" by `through-float`
# - "(up to 2**63 - 1 bytes": allows `meta-nbytes`
# - "nothing is allocated: the batch may be far bigger than any memory.": visible "Nothing is allocated: the batch may be far bigger than any memory" by `allocates`
# - "nothing is allocated: the batch may be far bigger than any memory.": visible "Nothing is allocated, not even one sample" by `allocates-one-sample`

# %% id="s1-table"
import matplotlib.pyplot as plt

batches = {"Fashion-MNIST": (256, (1, 28, 28)), "ImageNet-sized": (256, (3, 224, 224))}
dtypes = [torch.float32, torch.float16, torch.uint8]
if needs("batch_nbytes"):
    print(f"{'batch of 256':<16}" + "".join(f"{str(d).replace('torch.', ''):>16}" for d in dtypes))
    for name, (size, shape) in batches.items():
        print(f"{name:<16}" + "".join(f"{batch_nbytes(size, shape, d):>16,}" for d in dtypes))

    fig, ax = plt.subplots(figsize=(7, 3))
    width = 0.25
    for i, dtype in enumerate(dtypes):
        values = [batch_nbytes(size, shape, dtype) / 1e6 for size, shape in batches.values()]
        bars = ax.bar([j + i * width for j in range(len(batches))], values, width,
                      label=str(dtype).replace("torch.", ""))
        ax.bar_label(bars, fmt="%.2f", fontsize=8)
    ax.set_xticks([j + width for j in range(len(batches))], list(batches))
    ax.set(yscale="log", ylabel="MB per batch (log scale)", title="Bytes that cross to the GPU at every step")
    ax.legend()
    plt.show()


# %% [markdown] id="ex2"
# ## Exercise 2: `transfer_ms` (2 points)
#
# A copy of `nbytes` bytes at a bandwidth of `gb_per_s` gigabytes per second takes `nbytes / (gb_per_s × 10⁹)` seconds.
# Write `transfer_ms(nbytes, gb_per_s)` that returns that time in **milliseconds**, as a Python `float`, for `int` or
# `float` inputs alike (a small copy takes a small time, not 0). Bandwidths are quoted in decimal units: 1 GB = 10⁹
# bytes (not 2³⁰).

# %% nbgrader={"grade": false, "grade_id": "transfer_ms", "locked": false, "schema_version": 3, "solution": true}
def transfer_ms(nbytes, gb_per_s) -> float:
    """Predicted milliseconds to move nbytes bytes at gb_per_s gigabytes per second (1 GB = 1e9 bytes).

    A Python float, for int or float inputs alike; never rounded to whole milliseconds."""
    ### BEGIN SOLUTION
    return float(nbytes) / (float(gb_per_s) * 1e9) * 1e3
    ### END SOLUTION


# %% nbgrader={"grade": true, "grade_id": "test_transfer_ms", "locked": true, "points": 2, "schema_version": 3, "solution": false}
from gpucourse.checks import Check

with Check("transfer_ms") as check:
    t = check.call(transfer_ms, 3_000_000_000, 12.0)
    check.that(isinstance(t, float), "A Python float: return a float, not an int or a tensor.")
    check.that(abs(t - 0.25) > 1e-6, "Predicted milliseconds: 3 GB at 12 GB/s take 0.25 s, and you returned those "
               "seconds; convert them to milliseconds.")
    check.that(abs(t - 3e9 / (12.0 * 2**30) * 1e3) > 1e-6,
               "(1 GB = 1e9 bytes): bandwidths are quoted in decimal units, not in 2**30 bytes.")
    check.close(t, 250.0, "Milliseconds to move nbytes bytes at gb_per_s gigabytes per second: nbytes / (gb_per_s "
                "× 1e9) seconds; 3 GB at 12 GB/s take 250 ms.")
    check.close(transfer_ms(4_000_000, 2.0), 2.0, "Milliseconds to move nbytes bytes at gb_per_s gigabytes per "
                "second: 4 MB at 2 GB/s take 2 ms.")
    small = transfer_ms(1_000, 4)
    check.that(isinstance(small, float), "A Python float, for int or float inputs alike: int inputs too.")
    check.close(small, 0.00025, "The time is never rounded to whole milliseconds: 1,000 bytes at 4 GB/s take "
                "0.00025 ms, not 0 (no integer division or rounding).")
    check.that(isinstance(transfer_ms(0, 4), float),
               "A Python float, for int or float inputs alike, 0 bytes included (0.0, not the int 0).")
    # the whole contract over its domain: int and float inputs, 0 bytes, fractions of a byte, copies of a few bytes
    # to 2**63, bandwidths from 0.01 to 5,000 GB/s, whole or not; relations between calls and inputs
    import math
    from hypothesis import strategies as st

    calls = st.tuples(st.one_of(st.integers(0, 2**63 - 1), st.integers(0, 10**6).map(lambda k: k / 4),
                                st.floats(1.0, 2.0**63)),
                      st.one_of(st.integers(1, 2_000), st.floats(0.01, 5_000.0)))

    def covering():
        return [(0, 1), (0, 12.0), (0.0, 3), (0.0, 0.5), (1, 4), (1, 3_000.0), (3, 1), (2.5, 0.5), (0.25, 7),
                (999, 0.37), (1_000, 4), (4_000_000, 2.0), (154_140_672, 15.75), (3e9, 12), (2**53 + 1, 24.5),
                (2**63 - 1, 64), (1e18, 2_000.0)]

    def moves_nbytes(c):
        """t ms at gb_per_s GB/s (gb_per_s * 1e6 bytes per ms) move nbytes bytes, within float32's precision."""
        nbytes, gb_per_s = c
        t = transfer_ms(nbytes, gb_per_s)
        return isinstance(t, float) and abs(t * gb_per_s * 1e6 - nbytes) <= 1e-6 * nbytes

    check.forall(calls, moves_nbytes,
                 "Predicted milliseconds to move nbytes bytes at gb_per_s gigabytes per second (1 GB = 1e9 bytes), "
                 "as a Python float, for int or float inputs alike (fractions of a byte and of a GB/s too; 0 bytes "
                 "take 0.0 ms), never rounded: t ms at gb_per_s GB/s move t × gb_per_s × 1e6 bytes.",
                 cases=covering())

    def linear(c):
        nbytes, gb_per_s = c
        t = transfer_ms(nbytes, gb_per_s)
        return (math.isclose(transfer_ms(2 * nbytes, gb_per_s), 2 * t, rel_tol=1e-6)
                and math.isclose(transfer_ms(nbytes, 2 * gb_per_s), t / 2, rel_tol=1e-6))

    check.forall(calls, linear, "Doubling nbytes doubles the milliseconds, doubling gb_per_s halves them: no fixed "
                 "cost, no rounding.", cases=covering())

### BEGIN HIDDEN TESTS
from gpucourse.checks import requirement as _requirement
with _requirement("transfer_ms returns nbytes / (gb_per_s * 1e9) seconds, in milliseconds, as a float"):
    import random as _random
    _rng = _random.Random()
    for _ in range(25):
        _n = _rng.choice([_rng.randint(0, 10**4), _rng.randint(10**4, 10**11)])
        _bw = _rng.choice([_rng.uniform(0.1, 1.0), _rng.uniform(1.0, 50.0), _rng.uniform(50.0, 3000.0)])
        _got = transfer_ms(_n, _bw)
        assert isinstance(_got, float), "a float"
        # relative 1e-6: float32 arithmetic is as right as float64; every wrong unit is off by 7 % or more
        assert abs(_got - _n * 1e3 / (_bw * 1e9)) <= 1e-6 * _n * 1e3 / (_bw * 1e9), f"{_n} bytes at {_bw} GB/s"
    assert transfer_ms(0, 12.0) == 0.0
    assert isinstance(transfer_ms(0, _rng.randint(1, 50)), float) and isinstance(transfer_ms(0.0, 2.5), float), \
        "a Python float for int or float inputs alike, 0 bytes too"
    assert isinstance(transfer_ms(3, 1), float) and abs(transfer_ms(3, 1) - 3e-6) <= 1e-6 * 3e-6, "integer inputs"
    assert abs(transfer_ms(154_140_672, 15.75) - 154_140_672 / 15.75e6) <= 1e-6 * (154_140_672 / 15.75e6)
from gpucourse.contract import for_all as _for_all
with _requirement("transfer_ms keeps the whole contract for int and float inputs, 0 bytes, fractions of a byte "
                  "and of a GB/s, from a few bytes to 2**63"):
    _covering = covering() + [(1, 0.01), (7, 4_999.5), (2**62 + 1, 0.125), (0.5, 1), (12_345.75, 99.99)]
    _for_all(calls, moves_nbytes, "nbytes / (gb_per_s * 1e9) seconds in ms, a float, never rounded", examples=300,
             cases=_covering)
    _for_all(calls, linear, "linear in nbytes, inverse in gb_per_s", examples=300, cases=_covering)
### END HIDDEN TESTS

# %% [markdown] fixtures="transfer_ms"
# ### Mistakes and correct alternatives for `transfer_ms` (author-only: in no generated notebook)
#
# **mistake `gibibytes`**, sample, loses `test_transfer_ms`: uses 2**30 bytes per GB
# ```diff
# @@
# -    return float(nbytes) / (float(gb_per_s) * 1e9) * 1e3
# +    return nbytes / (gb_per_s * 2**30) * 1000
# ```
#
# **mistake `seconds`**, loses `test_transfer_ms`: returns seconds
# ```diff
# @@
# -    return float(nbytes) / (float(gb_per_s) * 1e9) * 1e3
# +    return nbytes / (gb_per_s * 1e9)
# ```
#
# **mistake `inverted`**, loses `test_transfer_ms`: divides the wrong way
# ```diff
# @@
# -    return float(nbytes) / (float(gb_per_s) * 1e9) * 1e3
# +    return gb_per_s * 1e9 / max(nbytes, 1) * 1000
# ```
#
# **mistake `megabytes`**, loses `test_transfer_ms`: treats the bandwidth as MB/s
# ```diff
# @@
# -    return float(nbytes) / (float(gb_per_s) * 1e9) * 1e3
# +    return nbytes / (gb_per_s * 1e6) * 1000
# ```
#
# **mistake `integer-division`**, loses `test_transfer_ms`: integer division truncates small transfers to 0
# ```diff
# @@
# -    return float(nbytes) / (float(gb_per_s) * 1e9) * 1e3
# +    return float(nbytes * 1000 // int(gb_per_s * 1e9))
# ```
#
# **mistake `zero-int`**, loses `test_transfer_ms`: a shortcut returns the int 0 for 0 bytes
# ```diff
# @@
# +    if nbytes == 0:
# +        return 0
#      return float(nbytes) / (float(gb_per_s) * 1e9) * 1e3
# ```
#
# **alternative `bytes-per-ms`**: bytes per millisecond first
# ```python
# def transfer_ms(nbytes, gb_per_s) -> float:
#     bytes_per_ms = gb_per_s * 1e9 / 1000
#     return nbytes / bytes_per_ms
# ```
#
# **alternative `seconds-first`**: a module-level constant, seconds then milliseconds
# ```python
# GB = 10**9
#
# def transfer_ms(nbytes, gb_per_s) -> float:
#     seconds = nbytes / (gb_per_s * GB)
#     return float(seconds * 1000)
# ```
#
# **alternative `debug-print`**: checks its input, prints
# ```python
# def transfer_ms(nbytes, gb_per_s) -> float:
#     if gb_per_s <= 0:
#         raise ValueError("bandwidth must be positive")
#     ms = 1e3 * nbytes / 1e9 / gb_per_s
#     print(f"{nbytes} B at {gb_per_s} GB/s: {ms:.3f} ms")
#     return ms
# ```
#
# **alternative `float32-tensor`**: computed in float32 with a tensor
# ```python
# def transfer_ms(nbytes, gb_per_s) -> float:
#     return (torch.tensor(float(nbytes)) / (gb_per_s * 1e6)).item()
# ```
#
# **clauses of `transfer_ms`**
# - "Predicted milliseconds": visible "Predicted milliseconds" by `seconds`
# - "to move nbytes bytes at gb_per_s gigabytes per second": visible "Milliseconds to move nbytes bytes at gb_per_s gigabytes per second" by `megabytes`, `inverted`
# - "(1 GB = 1e9 bytes).": visible "(1 GB = 1e9 bytes)" by `gibibytes`
# - "A Python float, for int or float inputs alike": visible "A Python float, for int or float inputs alike" by `zero-int`
# - "A Python float": allows `float32-tensor`
# - "never rounded to whole milliseconds.": visible "never rounded to whole milliseconds" by `integer-division`

# %% id="s1-predict"
pcie_theory = 15.75   # GB/s, PCIe Gen3 x16, one direction, in theory (a T4's link); section 2 measures this machine's
if needs("batch_nbytes", "transfer_ms"):
    print(f"at {pcie_theory} GB/s, the peak of PCIe Gen3 x16 (a T4's link; Gen4 and Gen5 links are faster):")
    for name, (size, shape) in batches.items():
        for dtype in (torch.float32, torch.uint8):
            n = batch_nbytes(size, shape, dtype)
            print(f"{name:>15} {str(dtype):>14}: {n / 1e6:8.2f} MB -> {transfer_ms(n, pcie_theory):6.2f} ms per batch")

# %% [markdown] id="s1-why"
# Over a T4's PCIe Gen3 x16 link, an ImageNet-sized `float32` batch needs at best about 10 ms to cross; the Gen4 and
# Gen5 links of an A100 or an H100/H200 are two to four times faster, and section 2 measures yours. On a T4, if the
# GPU needs 30 ms to compute a step and the copy is not overlapped with computation, a quarter of the time goes to
# waiting. The rest of this notebook is about
# making the crossing cheaper (fewer bytes, pinned memory) and hiding it (`non_blocking`, worker processes).

# %% [markdown] id="s2"
# ## 2. Bandwidth depends on the size of the copy
#
# Every copy pays a fixed cost (launching it, setting up the DMA engine) before bytes flow at the bus's bandwidth:
# `time ≈ latency + bytes / bandwidth`. Small copies are dominated by the fixed cost, so their effective bandwidth is
# poor; large copies approach the plateau.
#
# Where the bytes come from matters too. Ordinary ("pageable") host memory can be moved around by the operating
# system, so the GPU's copy engine cannot read it directly: the driver first copies it into a page-locked ("pinned")
# staging buffer, then sends that. Memory that is pinned from the start skips the staging step.
# `DataLoader(pin_memory=True)` puts every batch in pinned memory: in a background thread of the main process when
# there are worker processes, and in the main process itself, batch by batch, with `num_workers=0`.
#
# The next cell measures it. **On a GPU** it copies host memory to the GPU, pageable and pinned. **Without a GPU**
# there is no PCIe transfer to measure: it measures a host-to-host memory copy on this CPU instead (same shape of
# curve, different numbers) and draws the latency + bandwidth model with illustrative PCIe parameters, labelled so.

# %% id="s2-measure"
from tqdm.auto import tqdm
from gpucourse.readings import PCIE_LINKS, read_bandwidth   # the sentence that reads a bandwidth
from gpucourse.transfers import ILLUSTRATIVE_PCIE, copy_gbps

sizes = [2**k for k in range(10, 27 if QUICK else 29, 2)]   # 1 KiB to 64 MiB (256 MiB in the full run)
repeats, min_bytes = (3, 16 << 20) if QUICK else (5, 64 << 20)
curves = {}
if DEVICE.type == "cuda":
    for kind, pinned in [("pageable (measured)", False), ("pinned (measured)", True)]:
        curves[kind] = [copy_gbps(n, DEVICE, pinned=pinned, repeats=repeats, min_bytes=min_bytes)
                        for n in tqdm(sizes, desc=kind)]
else:
    label = (f"host to {DEVICE.type} (measured)" if DEVICE.type != "cpu"
             else "host memory copy on this CPU (measured, not PCIe)")
    curves[label] = [copy_gbps(n, DEVICE, repeats=repeats, min_bytes=min_bytes) for n in tqdm(sizes, desc="copies")]
    if needs("transfer_ms"):   # the illustrative model: a fixed cost per copy plus your transfer_ms
        for kind, (gbps, latency_us) in ILLUSTRATIVE_PCIE.items():
            curves[f"{kind} over PCIe (illustrative model, not measured)"] = [
                n / ((latency_us / 1e3 + transfer_ms(n, gbps)) / 1e3) / 1e9 for n in sizes]

# The plateau is the best size's rate, not the largest size's: pageable copies can peak in the middle of the range.
plateau = {kind: max(values) for kind, values in curves.items()}
for kind, values in curves.items():
    print(f"{kind}: {values[0]:.2f} GB/s at {sizes[0]:,} B, {values[-1]:.2f} GB/s at {sizes[-1]:,} B, "
          f"at most {plateau[kind]:.2f} GB/s (at {sizes[values.index(plateau[kind])]:,} B)")
if DEVICE.type == "cuda":
    print(read_bandwidth(plateau["pinned (measured)"], "pinned"))
    print(read_bandwidth(plateau["pageable (measured)"], "pageable"))
    print(f"RESULT h2d_pinned_gbps = {plateau['pinned (measured)']:.2f} GB/s")
    print(f"RESULT h2d_pageable_gbps = {plateau['pageable (measured)']:.2f} GB/s")
elif DEVICE.type == "cpu":   # the largest copy's rate: smaller ones can fit in the CPU's caches and run faster
    print("The largest copy (smaller ones can fit in the CPU's caches, hence a higher peak):",
          read_bandwidth(curves["host memory copy on this CPU (measured, not PCIe)"][-1], "host"))

# %% id="s2-plot"
fig, ax = plt.subplots(figsize=(8, 3.8))
for kind, values in curves.items():
    ax.plot(sizes, values, marker="o", linestyle="--" if "model" in kind else "-", label=kind)
for (link, peak, gpus), style in zip(PCIE_LINKS, (":", "-.", "--"), strict=True):   # where your pinned curve lands
    ax.axhline(peak, color="grey", linestyle=style, linewidth=1, label=f"{link} peak, {peak} GB/s ({gpus})")
ax.set(xscale="log", yscale="log", xlabel="bytes per copy (log scale)", ylabel="effective GB/s (log scale)",
       title="Host-to-device bandwidth versus transfer size" + ("" if DEVICE.type == "cuda" else " (no GPU here)"))
ax.legend(fontsize=8)
plt.show()

# %% [markdown] id="s2-read"
# How to read it: below a few hundred kilobytes the fixed cost wins and the effective bandwidth collapses, so many
# small copies are far slower than one large copy of the same bytes (move a batch as one tensor, not sample by sample).
# On a CUDA GPU, pinned copies plateau above pageable ones, which pay the extra staging copy, and the pinned plateau
# rules out every link slower than itself: a copy cannot be faster than the link it crosses, so the printed reading
# names the slowest PCIe generation your figure fits (the grey lines are their theoretical peaks). It cannot prove the
# link is that one: a figure below Gen3's peak, as a T4's is, fits Gen3 and every faster link alike, and on a cloud
# machine the host and its virtualization count too. Run this notebook on a GPU to see your machine's numbers.

# %% [markdown] id="myth-pinned"
# > **Myth vs. current PyTorch:** *"Without pinned memory, `non_blocking=True` is silently ignored."* Not so. PyTorch
# > always issues an asynchronous copy (`cudaMemcpyAsync`) and, with `non_blocking=True`, skips its own stream
# > synchronization whatever the memory is. What differs is the driver: a copy from **pageable** memory is first staged
# > through a pinned buffer, and the call may block the host while that happens, so there is little real overlap.
# > From **pinned** memory the call returns at once and the copy overlaps with whatever the host does next. The official
# > tutorial's advice is `non_blocking=True` regardless of pinning. (And on a machine without an accelerator,
# > `tensor.pin_memory()` raises, while `DataLoader(pin_memory=True)` only warns; the cell below shows both.)

# %% id="myth-pinned-demo"
import statistics
import time
import warnings

def host_blocked_ms(src, dst, non_blocking, repeats=5):
    """(ms the host waited inside the copy call, ms until the copy had really finished), medians."""
    host, total = [], []
    for _ in range(repeats):
        torch.cuda.synchronize()
        start = time.perf_counter()
        dst.copy_(src, non_blocking=non_blocking)
        host.append((time.perf_counter() - start) * 1e3)
        torch.cuda.synchronize()
        total.append((time.perf_counter() - start) * 1e3)
    return statistics.median(host), statistics.median(total)

if DEVICE.type == "cuda":
    n = 64 << 20  # 64 MiB
    pageable = torch.ones(n, dtype=torch.uint8)
    pinned = torch.ones(n, dtype=torch.uint8, pin_memory=True)
    dst = torch.empty(n, dtype=torch.uint8, device=DEVICE)
    host_blocked_ms(pinned, dst, True)  # warm-up
    for name, src, nb in [("pageable, non_blocking=False", pageable, False),
                          ("pageable, non_blocking=True ", pageable, True),
                          ("pinned,   non_blocking=True ", pinned, True)]:
        host, total = host_blocked_ms(src, dst, nb)
        print(f"{name}: host blocked {host:7.3f} ms of {total:7.3f} ms (measured)")
else:
    n = 64 << 20
    if needs("transfer_ms"):   # the illustrative model: a fixed cost per copy plus your transfer_ms
        for name, (gbps, latency_us), blocked in [
                ("pageable, non_blocking=True", ILLUSTRATIVE_PCIE["pageable"], "most of it"),
                ("pinned,   non_blocking=True", ILLUSTRATIVE_PCIE["pinned"], "about 0 ms")]:
            print(f"{name}: a 64 MiB copy takes about {latency_us / 1e3 + transfer_ms(n, gbps):.1f} ms "
                  f"(illustrative model); the host is blocked for {blocked}")
    try:
        torch.ones(4).pin_memory()
    except RuntimeError as error:
        print("On this machine tensor.pin_memory() raises:", str(error).splitlines()[0])
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        list(torch.utils.data.DataLoader(torch.arange(4), batch_size=2, pin_memory=True))
    print("while DataLoader(pin_memory=True) only warns:", caught[0].message if caught else "(no warning)")

# %% [markdown] id="ex3"
# ## Exercise 3: `make_loader` (3 points)
#
# Write `make_loader(dataset, batch_size, device, train=True, num_workers=2)` that returns a
# `torch.utils.data.DataLoader` over `dataset` with `batch_size`, set up for the device:
#
# - for training (`train=True`): **shuffle**, and **drop the last, short batch** (`drop_last=True`); for evaluation:
#   neither;
# - `pin_memory=True` **only when `device` is a CUDA device** (`"cuda"`, `"cuda:0"`, `torch.device("cuda")`, ...),
#   whatever this machine has: the loader is built for the device it is asked for. Pinned memory is there for the
#   copy to a CUDA GPU; a CPU run copies nothing, and pinning would only cost time;
# - `num_workers` worker processes, kept alive between epochs (`persistent_workers=True`) when there are any
#   (PyTorch refuses `persistent_workers=True` with `num_workers=0`).
#
# Tip: `torch.device(device).type` gives `"cuda"` for every way of naming a CUDA device.

# %% nbgrader={"grade": false, "grade_id": "make_loader", "locked": false, "schema_version": 3, "solution": true}
from torch.utils.data import DataLoader


def make_loader(dataset, batch_size, device, train=True, num_workers=2) -> DataLoader:
    """A DataLoader over dataset with batch_size, for device (a string or a torch.device).

    train=True: shuffle and drop_last; train=False: neither. pin_memory=True exactly when device
    names a CUDA device ("cuda", "cuda:0", torch.device("cuda"), ...), whatever this machine has.
    num_workers worker processes, persistent_workers=True exactly when num_workers > 0."""
    ### BEGIN SOLUTION
    return DataLoader(
        dataset,
        batch_size=batch_size,
        shuffle=train,
        drop_last=train,
        num_workers=num_workers,
        pin_memory=torch.device(device).type == "cuda",
        persistent_workers=num_workers > 0,
    )
    ### END SOLUTION


# %% nbgrader={"grade": true, "grade_id": "test_make_loader", "locked": true, "points": 3, "schema_version": 3, "solution": false}
import warnings
from torch.utils.data import DataLoader, TensorDataset
from gpucourse.checks import Check

from gpucourse.fakes import fake_accelerators


def attempt(*args, **kwargs):
    """make_loader(*args, **kwargs), or the exception it raised: the hint of the check then names the clause."""
    try:
        return make_loader(*args, **kwargs)
    except Exception as error:
        return error


def epochs(loader, count=2):
    """The indices of count epochs, batch by batch, as loader.batch_sampler draws them (no worker starts), from a
    fixed seed: the same on every run, and the global random generator left as it was."""
    with torch.random.fork_rng(devices=[]):
        torch.manual_seed(0)
        return [[[int(i) for i in batch] for batch in loader.batch_sampler] for _ in range(count)]


def shuffles(loader):
    """Each epoch draws every example at most once, and the epochs are not all in the data set's order: shuffled,
    whichever sampler does it."""
    drawn = [[i for batch in epoch for i in batch] for epoch in epochs(loader)]
    return all(len(set(d)) == len(d) for d in drawn) and any(d != sorted(d) for d in drawn)


def in_order(loader):
    """One epoch gives every example once, in the data set's order."""
    return [i for batch in epochs(loader, 1)[0] for i in batch] == list(range(len(loader.dataset)))


with warnings.catch_warnings(), Check("make_loader") as check:
    warnings.simplefilter("ignore")  # quiet: loaders are inspected, not iterated, so no worker starts
    ten_examples = TensorDataset(torch.arange(10))  # a name no answer uses (`data` may be torch.utils.data)
    loader = check.call(make_loader, ten_examples, 4, "cpu", train=True, num_workers=0)
    check.that(isinstance(loader, DataLoader), "Return a torch.utils.data.DataLoader.")
    check.that(loader.batch_size == 4 and loader.dataset is ten_examples,
               "A DataLoader over dataset with batch_size: use the dataset and batch_size given.")
    check.that(shuffles(loader), "train=True: shuffle the training data (shuffle=True).")
    check.that(loader.drop_last, "train=True: drop_last, the short last batch is dropped when training.")
    check.equal(len(list(loader)), 2, "10 examples in batches of 4, dropping the last short one, make 2 batches")
    check.that(loader.num_workers == 0, "num_workers worker processes: use the num_workers given (0 here).")
    check.that(not loader.persistent_workers,
               "persistent_workers=True exactly when num_workers > 0: with num_workers=0 there are no workers.")
    with fake_accelerators(cuda=False):  # a machine without CUDA, asked for a loader for a CUDA device
        got = attempt(ten_examples, 4, "cuda", train=False, num_workers=0)
        check.that(isinstance(got, DataLoader) and got.pin_memory,
                   "pin_memory=True for a CUDA device whatever this machine has: the loader is built for the "
                   "device asked for, even on a machine without CUDA.")
    got = attempt(ten_examples, 4, torch.device("cpu"), train=False, num_workers=0)
    check.that(isinstance(got, DataLoader),
               f"for device (a string or a torch.device): torch.device('cpu') must work as 'cpu' does ({got!r}).")
    check.that(not loader.pin_memory and not got.pin_memory,
               "pin_memory=True exactly when device names a CUDA device: not for the CPU.")
    for name in ("cuda:0", torch.device("cuda"), torch.device("cuda", 0)):
        check.that(make_loader(ten_examples, 4, name, train=False, num_workers=0).pin_memory,
                   f"pin_memory=True exactly when device names a CUDA device: {name!r} names one too "
                   "(torch.device(device).type helps).")
    loader = make_loader(ten_examples, 4, "cuda", train=False, num_workers=3)
    check.that(in_order(loader) and not loader.drop_last,
               "train=False: neither, for evaluation keep the order and every example: no shuffle, no drop_last.")
    check.that(loader.num_workers == 3, "num_workers worker processes: use the num_workers given (3 here).")
    check.that(loader.persistent_workers,
               "persistent_workers=True exactly when num_workers > 0: keep the 3 workers alive between epochs.")
    # the whole contract over its domain: every spelling of a device (CUDA ones of any index), on a machine with and
    # without CUDA, batch sizes from 1 to more than the data set holds, 0, 1 and more workers than any machine has
    from hypothesis import strategies as st

    DEVICES = [("cpu", False), (torch.device("cpu"), False), ("cuda", True), ("cuda:0", True), ("cuda:1", True),
               (torch.device("cuda"), True), (torch.device("cuda", 1), True), ("mps", False),
               (torch.device("mps"), False), ("meta", False)]  # (device, whether it names a CUDA device)
    calls = st.tuples(st.integers(1, 12), st.integers(1, 15), st.sampled_from(DEVICES), st.booleans(),
                      st.sampled_from([0, 1, 2, 3, 8, 64]), st.booleans())

    def covering(sizes=((10, 3, 0), (5, 5, 1), (4, 7, 64), (12, 4, 2))):
        """(examples, batch_size, (device, names CUDA), train, num_workers, this machine has CUDA)."""
        return [(n, size, device, train, workers, has_cuda) for device in DEVICES for train in (True, False)
                for n, size, workers in sizes for has_cuda in (False, True)]

    def build(c):
        n, size, (device, _), train, workers, has_cuda = c
        dataset = TensorDataset(torch.arange(n))
        with fake_accelerators(cuda=has_cuda):
            return dataset, make_loader(dataset, size, device, train=train, num_workers=workers)

    def as_asked(c):
        dataset, loader = build(c)
        return (isinstance(loader, DataLoader) and loader.dataset is dataset and loader.batch_size == c[1]
                and loader.num_workers == c[4] and bool(loader.persistent_workers) == (c[4] > 0))

    check.forall(calls, as_asked,
                 "A DataLoader over dataset with batch_size (even one larger than the data set), num_workers worker "
                 "processes (however many), persistent_workers=True exactly when num_workers > 0.", cases=covering())

    def pins(c):
        return bool(build(c)[1].pin_memory) == c[2][1]

    check.forall(calls, pins,
                 "pin_memory=True exactly when device names a CUDA device (\"cuda\", \"cuda:0\", \"cuda:1\", "
                 "torch.device(\"cuda\"), ...), whatever this machine has.", cases=covering())

    def one_epoch(c):
        """train: each epoch full batches of distinct examples, len(dataset) // batch_size of them, not in order
        when 6 or more are drawn; evaluation: every example once, in order, in batches of batch_size but the last."""
        n, size, _, train, _, _ = c
        loader = build(c)[1]
        drawn = epochs(loader)
        if not train:
            return not loader.drop_last and all([i for batch in epoch for i in batch] == list(range(n))
                                                and all(len(batch) == size for batch in epoch[:-1]) for epoch in drawn)
        flat = [[i for batch in epoch for i in batch] for epoch in drawn]
        return (loader.drop_last and all(len(epoch) == n // size and all(len(b) == size for b in epoch)
                                         for epoch in drawn)
                and all(len(set(f)) == len(f) for f in flat)
                and (len(flat[0]) < 6 or any(f != sorted(f) for f in flat)))

    check.forall(calls, one_epoch,
                 "train=True: shuffle and drop_last (each epoch draws every example at most once, in full batches: "
                 "none when batch_size is larger than the data set); train=False: neither (every example once, in "
                 "order).", cases=covering())

### BEGIN HIDDEN TESTS
from gpucourse.checks import requirement as _requirement
with _requirement("make_loader shuffles and drops the last batch only for training, pins memory exactly for "
                  "CUDA devices, uses num_workers workers, persistent when there are any"):
    import random as _random
    from gpucourse.fakes import fake_accelerators as _fake_accelerators
    _rng = _random.Random()
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        _n = _rng.randint(20, 60)
        _data = TensorDataset(torch.randn(_n, 3), torch.arange(_n))
        _cuda_names = ["cuda", "cuda:0", torch.device("cuda"), torch.device("cuda", 0)]
        _other_names = ["cpu", torch.device("cpu"), "mps", torch.device("mps"), "meta"]
        for _has_cuda in (False, True):  # the device asked for decides, not the machine
            with _fake_accelerators(cuda=_has_cuda):
                for _device in _cuda_names + _other_names:
                    for _train in (True, False):
                        _bs, _workers = _rng.randint(2, 9), _rng.choice([0, 1, 2, 3, 4])
                        _loader = make_loader(_data, _bs, _device, train=_train, num_workers=_workers)
                        assert isinstance(_loader, DataLoader) and _loader.dataset is _data \
                            and _loader.batch_size == _bs, "a DataLoader over the dataset, with the batch_size given"
                        assert _loader.pin_memory == (_device in _cuda_names), f"pin_memory for {_device!r}"
                        assert shuffles(_loader) if _train else in_order(_loader), "shuffle only for training"
                        assert _loader.drop_last == _train, "drop_last only for training"
                        assert _loader.num_workers == _workers, "num_workers"
                        assert bool(_loader.persistent_workers) == (_workers > 0), "persistent_workers iff workers"
        # the defaults: train=True, num_workers=2
        _loader = make_loader(_data, 5, "cpu")
        assert shuffles(_loader) and _loader.drop_last, "train=True by default"
        assert _loader.num_workers == 2 and _loader.persistent_workers, "num_workers=2 by default, persistent"
        # batches really come out right (no workers started: num_workers=0)
        _bs = _rng.randint(3, 7)
        _seen = [b[1] for b in make_loader(_data, _bs, "cpu", train=True, num_workers=0)]
        assert len(_seen) == _n // _bs and all(len(b) == _bs for b in _seen), "full batches only when training"
        _seen = [b[1] for b in make_loader(_data, _bs, "cpu", train=False, num_workers=0)]
        assert torch.equal(torch.cat(_seen), torch.arange(_n)), "evaluation sees every example in order"
from gpucourse.contract import for_all as _for_all
with _requirement("make_loader keeps the whole contract for every spelling of a device, with and without CUDA on "
                  "the machine, batch sizes up to more than the data set holds, and any number of workers"):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        _covering = covering(sizes=((10, 3, 0), (5, 5, 1), (4, 7, 64), (12, 4, 2), (1, 1, 3), (9, 9, 8), (7, 2, 1)))
        _for_all(calls, as_asked, "the dataset and batch_size given, num_workers workers, persistent iff any",
                 examples=300, cases=_covering)
        _for_all(calls, pins, "pin_memory exactly for CUDA devices", examples=300, cases=_covering)
        _for_all(calls, one_epoch, "shuffled full batches of distinct examples for training, every example in order "
                 "for evaluation", examples=300, cases=_covering)
### END HIDDEN TESTS

# %% [markdown] fixtures="make_loader"
# ### Mistakes and correct alternatives for `make_loader` (author-only: in no generated notebook)
#
# **mistake `pin-if-machine-has-cuda`**, sample, loses `test_make_loader`: pins for the machine, not for the device asked for
# ```diff
# @@
# -
# -
# -def make_loader(dataset, batch_size, device, train=True, num_workers=2) -> DataLoader:
# +def make_loader(dataset, batch_size, device, train=True, num_workers=2):
# @@
# -    return DataLoader(
# -        dataset,
# -        batch_size=batch_size,
# -        shuffle=train,
# -        drop_last=train,
# -        num_workers=num_workers,
# -        pin_memory=torch.device(device).type == "cuda",
# -        persistent_workers=num_workers > 0,
# -    )
# +    return DataLoader(dataset, batch_size=batch_size, shuffle=train, drop_last=train,
# +                      num_workers=num_workers, pin_memory=torch.cuda.is_available(),
# +                      persistent_workers=num_workers > 0)
# ```
#
# **mistake `pin-always`**, loses `test_make_loader`: pins memory for CPU and MPS runs too
# ```diff
# @@
# -
# -
# -def make_loader(dataset, batch_size, device, train=True, num_workers=2) -> DataLoader:
# +def make_loader(dataset, batch_size, device, train=True, num_workers=2):
# @@
# -    return DataLoader(
# -        dataset,
# -        batch_size=batch_size,
# -        shuffle=train,
# -        drop_last=train,
# -        num_workers=num_workers,
# -        pin_memory=torch.device(device).type == "cuda",
# -        persistent_workers=num_workers > 0,
# -    )
# +    return DataLoader(dataset, batch_size=batch_size, shuffle=train, drop_last=train,
# +                      num_workers=num_workers, pin_memory=True, persistent_workers=num_workers > 0)
# ```
#
# **mistake `device-string-compare`**, loses `test_make_loader`: misses torch.device('cuda') and 'cuda:0'
# ```diff
# @@
# -
# -
# -def make_loader(dataset, batch_size, device, train=True, num_workers=2) -> DataLoader:
# +def make_loader(dataset, batch_size, device, train=True, num_workers=2):
# @@
# -    return DataLoader(
# -        dataset,
# -        batch_size=batch_size,
# -        shuffle=train,
# -        drop_last=train,
# -        num_workers=num_workers,
# -        pin_memory=torch.device(device).type == "cuda",
# -        persistent_workers=num_workers > 0,
# -    )
# +    return DataLoader(dataset, batch_size=batch_size, shuffle=train, drop_last=train,
# +                      num_workers=num_workers, pin_memory=device == "cuda",
# +                      persistent_workers=num_workers > 0)
# ```
#
# **mistake `shuffle-eval`**, loses `test_make_loader`: shuffles and drops examples when evaluating
# ```diff
# @@
# -
# -
# -def make_loader(dataset, batch_size, device, train=True, num_workers=2) -> DataLoader:
# +def make_loader(dataset, batch_size, device, train=True, num_workers=2):
# @@
# -    return DataLoader(
# -        dataset,
# -        batch_size=batch_size,
# -        shuffle=train,
# -        drop_last=train,
# -        num_workers=num_workers,
# -        pin_memory=torch.device(device).type == "cuda",
# -        persistent_workers=num_workers > 0,
# -    )
# +    return DataLoader(dataset, batch_size=batch_size, shuffle=True, drop_last=True,
# +                      num_workers=num_workers, pin_memory=torch.device(device).type == "cuda",
# +                      persistent_workers=num_workers > 0)
# ```
#
# **mistake `no-drop-last`**, loses `test_make_loader`: keeps the short last batch when training
# ```diff
# @@
# -
# -
# -def make_loader(dataset, batch_size, device, train=True, num_workers=2) -> DataLoader:
# +def make_loader(dataset, batch_size, device, train=True, num_workers=2):
# @@
# -    return DataLoader(
# -        dataset,
# -        batch_size=batch_size,
# -        shuffle=train,
# -        drop_last=train,
# -        num_workers=num_workers,
# -        pin_memory=torch.device(device).type == "cuda",
# -        persistent_workers=num_workers > 0,
# -    )
# +    return DataLoader(dataset, batch_size=batch_size, shuffle=train,
# +                      num_workers=num_workers, pin_memory=torch.device(device).type == "cuda",
# +                      persistent_workers=num_workers > 0)
# ```
#
# **mistake `workers-ignored`**, loses `test_make_loader`: always two persistent workers, whatever num_workers says
# ```diff
# @@
# -
# -
# -def make_loader(dataset, batch_size, device, train=True, num_workers=2) -> DataLoader:
# +def make_loader(dataset, batch_size, device, train=True, num_workers=2):
# @@
# -    return DataLoader(
# -        dataset,
# -        batch_size=batch_size,
# -        shuffle=train,
# -        drop_last=train,
# -        num_workers=num_workers,
# -        pin_memory=torch.device(device).type == "cuda",
# -        persistent_workers=num_workers > 0,
# -    )
# +    return DataLoader(dataset, batch_size=batch_size, shuffle=train, drop_last=train,
# +                      num_workers=2, pin_memory=torch.device(device).type == "cuda",
# +                      persistent_workers=True)
# ```
#
# **mistake `not-persistent`**, loses `test_make_loader`: restarts the workers every epoch
# ```diff
# @@
# -
# -
# -def make_loader(dataset, batch_size, device, train=True, num_workers=2) -> DataLoader:
# +def make_loader(dataset, batch_size, device, train=True, num_workers=2):
# @@
# -    return DataLoader(
# -        dataset,
# -        batch_size=batch_size,
# -        shuffle=train,
# -        drop_last=train,
# -        num_workers=num_workers,
# -        pin_memory=torch.device(device).type == "cuda",
# -        persistent_workers=num_workers > 0,
# -    )
# +    return DataLoader(dataset, batch_size=batch_size, shuffle=train, drop_last=train,
# +                      num_workers=num_workers, pin_memory=torch.device(device).type == "cuda")
# ```
#
# **mistake `no-shuffle`**, loses `test_make_loader`: forgets to shuffle the training data
# ```diff
# @@
# -        shuffle=train,
# ```
#
# **mistake `no-batch-size`**, loses `test_make_loader`: forgets to pass batch_size: batches of 1
# ```diff
# @@
# -        batch_size=batch_size,
# ```
#
# **mistake `startswith`**, loses `test_make_loader`: reads the device as a string: a torch.device raises
# ```diff
# @@
# -        pin_memory=torch.device(device).type == "cuda",
# +        pin_memory=device.startswith("cuda"),
# ```
#
# **alternative `kwargs-dict`**: builds keyword arguments in a dict; reads the device as a string
# ```python
# from torch.utils.data import DataLoader
#
# def make_loader(dataset, batch_size, device, train=True, num_workers=2) -> DataLoader:
#     options = dict(batch_size=batch_size, shuffle=bool(train), drop_last=bool(train),
#                    num_workers=num_workers)
#     if num_workers > 0:
#         options["persistent_workers"] = True
#     if str(device).startswith("cuda"):
#         options["pin_memory"] = True
#     return DataLoader(dataset, **options)
# ```
#
# **alternative `if-train`**: two branches, positional shuffle, a local named _pin
# ```python
# from torch.utils.data import DataLoader
#
# def make_loader(dataset, batch_size, device, train=True, num_workers=2) -> DataLoader:
#     _pin = torch.device(device).type == "cuda"
#     if train:
#         return DataLoader(dataset, batch_size, True, num_workers=num_workers, pin_memory=_pin,
#                           drop_last=True, persistent_workers=num_workers > 0)
#     return DataLoader(dataset, batch_size, False, num_workers=num_workers, pin_memory=_pin,
#                       drop_last=False, persistent_workers=num_workers > 0)
# ```
#
# **alternative `samplers`**: explicit samplers instead of shuffle
# ```python
# import torch.utils.data as tud
#
# def make_loader(dataset, batch_size, device, train=True, num_workers=2) -> tud.DataLoader:
#     sampler = tud.RandomSampler(dataset) if train else tud.SequentialSampler(dataset)
#     return tud.DataLoader(dataset, batch_size=batch_size, sampler=sampler, drop_last=train,
#                           num_workers=num_workers, persistent_workers=bool(num_workers),
#                           pin_memory=getattr(device, "type", str(device).split(":")[0]) == "cuda")
# ```
#
# **clauses of `make_loader`**
# - "A DataLoader over dataset with batch_size": visible "A DataLoader over dataset with batch_size" by `no-batch-size`
# - "for device (a string or a torch.device).": visible "for device (a string or a torch.device)" by `startswith`
# - "(a string or a torch.device)": allows `kwargs-dict`, `samplers`
# - "train=True: shuffle": visible "train=True: shuffle" by `no-shuffle`
# - "and drop_last": visible "train=True: drop_last" by `no-drop-last`
# - "train=False: neither.": visible "train=False: neither" by `shuffle-eval`
# - "pin_memory=True exactly when device names a CUDA device ("cuda", "cuda:0", torch.device("cuda"), ...)": visible "pin_memory=True exactly when device names a CUDA device" by `pin-always`, `device-string-compare`
# - "whatever this machine has.": visible "whatever this machine has" by `pin-if-machine-has-cuda`
# - "num_workers worker processes": visible "num_workers worker processes" by `workers-ignored`
# - "persistent_workers=True exactly when num_workers > 0.": visible "persistent_workers=True exactly when num_workers > 0" by `not-persistent`

# %% [markdown] id="s3"
# ## 3. Send `uint8`, normalize on the device
#
# Images are stored as `uint8`, one byte per pixel. The usual pipeline converts them to `float32` on the CPU (in the
# dataset or a transform), then sends the floats: four bytes per pixel. Sending the `uint8` batch and converting on the
# GPU moves **four times fewer bytes**. The conversion is not free, but it is cheaper than the bytes it saves. For an
# ImageNet-sized batch (256 × 3 × 224 × 224, 38.5 million pixels) the float32 batch is 115.6 MB larger than the `uint8`
# one: about 7.3 ms more on PCIe Gen3 x16 even at its theoretical 15.75 GB/s. Converting on a T4 reads 1 byte and writes
# 4 per pixel: about 0.6 ms at its 320 GB/s peak, and about 3.5 ms for the whole normalization as four separate
# elementwise operations (estimates from the bandwidth, not measured). The cell below measures the same `x.float()` on
# your CPU and sets it beside that 0.6 ms. A Fashion-MNIST batch (200,704 pixels) is 192 times smaller: on a T4 its
# conversion takes microseconds (same estimate).

# %% id="s3-volume"
if needs("batch_nbytes", "transfer_ms"):
    ms_per_batch = {}
    for name, (size, shape) in batches.items():
        for dtype in (torch.float32, torch.uint8):
            n = batch_nbytes(size, shape, dtype)
            ms_per_batch[(name, str(dtype).replace("torch.", ""))] = {
                kind: latency_us / 1e3 + transfer_ms(n, gbps) for kind, (gbps, latency_us) in ILLUSTRATIVE_PCIE.items()}
    from gpucourse.timing import median_ms
    x = torch.zeros(256, 3, 224, 224, dtype=torch.uint8)
    ms = median_ms(lambda: x.float(), torch.device("cpu"), warmup=1, repeats=3 if QUICK else 7)
    print(f"x.float() of an ImageNet-sized uint8 batch on this CPU: {ms:.1f} ms (measured, median), "
          f"{ms / 0.6:.0f}x the 0.6 ms estimated for a T4")
    if DEVICE.type == "cuda":  # the real thing: one ImageNet-sized batch, pageable, blocking copy
        for dtype in (torch.float32, torch.uint8):
            x = torch.zeros(256, 3, 224, 224, dtype=dtype)
            ms = median_ms(lambda: x.to(DEVICE), DEVICE, warmup=2, repeats=5)
            print(f"ImageNet-sized batch, {str(dtype):>13}: {x.nbytes / 1e6:6.1f} MB in {ms:6.2f} ms "
                  "(measured, pageable)")

    fig, ax = plt.subplots(figsize=(7, 3))
    labels = [f"{name}\n{dtype}" for name, dtype in ms_per_batch]
    for i, kind in enumerate(ILLUSTRATIVE_PCIE):
        bars = ax.bar([j + 0.4 * i for j in range(len(labels))], [v[kind] for v in ms_per_batch.values()], 0.4,
                      label=kind)
        ax.bar_label(bars, fmt="%.2f", fontsize=8)
    ax.set_xticks([j + 0.2 for j in range(len(labels))], labels, fontsize=8)
    ax.set(yscale="log", ylabel="ms per batch (log scale)",
           title="Predicted copy time per batch of 256 (illustrative PCIe model)")
    ax.legend()
    plt.show()


# %% [markdown] id="ex4"
# ## Exercise 4: `normalize_on_device` (3 points)
#
# Write `normalize_on_device(x_uint8, device, mean, std)`: it receives a `uint8` batch on the CPU (for example from
# `make_loader`) and returns the normalized `float32` batch **on `device`**:
#
# 1. move the `uint8` batch to `device` with `non_blocking=True` (still `uint8`: one byte per pixel crosses);
# 2. then, on the device, convert to `float32` and compute `(x / 255 - mean) / std`.
#
# `mean` and `std` are Python floats; the result has the input's shape. Do not change the input tensor: not its
# values, not its device (`Tensor.to` returns a new tensor; leave `x_uint8` as it came). The common mistake is
# converting to float *before* the transfer (`x.float().to(device)`): the result is the same, but four times the bytes
# cross. The one call `x_uint8.to(device, torch.float32, non_blocking=True)` counts as moving `uint8`: PyTorch
# converts on the device when the copy is non-blocking (the note after this exercise explains).

# %% nbgrader={"grade": false, "grade_id": "normalize_on_device", "locked": false, "schema_version": 3, "solution": true}
def normalize_on_device(x_uint8, device, mean, std):
    """Move the uint8 batch x_uint8 to device (non_blocking=True), then return the float32
    tensor (x / 255 - mean) / std computed on the device, with x_uint8's shape.

    Only uint8 data crosses (x_uint8.to(device, torch.float32, non_blocking=True) counts: it
    converts on the device). mean and std are Python floats. x_uint8 is not changed: same
    values, same device."""
    ### BEGIN SOLUTION
    x = x_uint8.to(device, non_blocking=True)
    return (x.float() / 255 - mean) / std
    ### END SOLUTION


# %% nbgrader={"grade": true, "grade_id": "test_normalize_on_device", "locked": true, "points": 3, "schema_version": 3, "solution": false}
from gpucourse.checks import Check
from gpucourse.fakes import RecordTransfers

with Check("normalize_on_device") as check:
    x = torch.randint(0, 256, (3, 2, 5, 5), dtype=torch.uint8)
    before = x.clone()
    with RecordTransfers() as rec:
        out = check.call(normalize_on_device, x, "meta", 0.4, 0.2)  # meta: a second device, no data
    check.that(isinstance(out, torch.Tensor) and out.device.type == "meta",
               "Move the uint8 batch x_uint8 to device: return the batch on the device you were given (keep what "
               "Tensor.to returns).")
    check.that(out.dtype == torch.float32, "Return the float32 tensor (not float64, not float16).")
    moves = [t for t in rec.transfers if t.device == "meta"]
    check.that(len(moves) > 0, "Move the batch with Tensor.to(device, non_blocking=True).")
    batch_moves = [t for t in moves if t.source_dtype == torch.uint8]   # constants may cross as they like
    check.that(bool(batch_moves),
               "Only uint8 data crosses: float data crossed to the device. Move the uint8 batch first, then "
               "convert it there.")
    check.that(all(t.non_blocking for t in batch_moves),
               "Move x_uint8 to device (non_blocking=True): pass non_blocking=True to the transfer.")
    check.that(x.device.type == "cpu" and torch.equal(x, before),
               "x_uint8 is not changed: same values, same device. Tensor.to returns a new tensor: keep that one, "
               "do not move x_uint8.")
    check.that(tuple(out.shape) == tuple(x.shape), "Return a batch with x_uint8's shape.")
    out = normalize_on_device(x, "cpu", 0.4, 0.2)
    check.close(out, (x.double() / 255 - 0.4) / 0.2,
                "(x / 255 - mean) / std: scale to [0, 1] (divide by 255), then subtract mean, then divide by std.",
                rel=1e-5, abs_=1e-5)
    check.that(torch.equal(x, before), "x_uint8 is not changed: same values, same device.")
    flat = torch.randint(0, 256, (3, 5, 7), dtype=torch.uint8)  # no channel dimension
    check.equal(tuple(normalize_on_device(flat, "cpu", 0.5, 0.25).shape), (3, 5, 7),
                "The result has x_uint8's shape, whatever its dimensions: add or drop none.")
    # the whole contract over its domain: uint8 batches of any shape (() and zero-size ones, a single channel, a
    # transposed view too) and any pixels, a device as a str or a torch.device, any mean and std
    from hypothesis import strategies as st
    from gpucourse import domains
    from gpucourse.contract import snapshot

    def pixels(shape, seed, transposed=False):
        """A uint8 tensor of shape with pixels from seed, 0 to 255; when transposed (and 2-D or more), a view whose
        last two sides are swapped in memory (not contiguous)."""
        generator = torch.Generator().manual_seed(seed)
        if transposed and len(shape) >= 2:
            return torch.randint(0, 256, (*shape[:-2], shape[-1], shape[-2]), generator=generator,
                                 dtype=torch.uint8).mT
        return torch.randint(0, 256, shape, generator=generator, dtype=torch.uint8)

    batches = st.builds(pixels, domains.shapes(max_dims=4, max_side=4), st.integers(0, 2**31 - 1), st.booleans())
    calls = st.tuples(batches, st.sampled_from(domains.device_cases()), st.floats(-2.0, 2.0),
                      st.floats(0.05, 4.0))
    SHAPES = [(), (0,), (0, 1, 28, 28), (1,), (3, 5), (2, 1, 3, 3), (2, 3, 4, 1), (4, 2, 3)]

    def covering(shapes=SHAPES):
        """Made anew for each property: every kind of shape on every device spelling, a transposed view, pixels
        with neither 0 nor 255 among them (a batch's own range is not 0 to 255)."""
        cases = [(pixels(shape, seed), device, 0.286, 0.353) for seed, shape in enumerate(shapes)
                 for device in domains.device_cases()]
        return cases + [(pixels((3, 4), 1, transposed=True), "cpu", -0.5, 2.0),
                        (torch.tensor([[3, 40], [200, 7]], dtype=torch.uint8), "cpu", 0.1, 0.3)]

    def where_asked(c):
        """A float32 tensor on device, of x_uint8's shape, and x_uint8 left as it came."""
        x, device, mean, std = c
        if x.dim() == 0 and torch.device(device).type == "meta":
            device = torch.device("cpu")  # meta cannot index with a 0-dim tensor (it would read its value); a GPU can
        before = snapshot(x)
        out = normalize_on_device(x, device, mean, std)
        return (isinstance(out, torch.Tensor) and out.dtype == torch.float32 and out.shape == x.shape
                and out.device.type == torch.device(device).type and snapshot(x) == before)

    check.forall(calls, where_asked,
                 "Return the float32 tensor computed on the device, with x_uint8's shape (() and empty batches "
                 "included), for a device as a str or a torch.device; x_uint8 is not changed: same values, same "
                 "device.", cases=covering())

    def normalizes(c):
        """Each element is (its pixel / 255 - mean) / std, within float32's precision."""
        x, _, mean, std = c
        out = normalize_on_device(x, "cpu", mean, std)
        eps = torch.finfo(torch.float32).eps
        return torch.allclose(out.double(), (x.double() / 255 - mean) / std, rtol=8 * eps,
                              atol=8 * eps * (1 + abs(mean)) / std)

    check.forall(calls, normalizes,
                 "(x / 255 - mean) / std, element by element: 255 is the largest value a uint8 pixel can have, "
                 "whatever the batch holds.", cases=covering())

    def crosses_as_uint8(c):
        """On a second device (meta), a batch with pixels crosses as uint8, with non_blocking=True (a 0-dim one is
        tried on the CPU only, where_asked says why)."""
        x, device, mean, std = c
        if torch.device(device).type != "meta" or x.numel() == 0 or x.dim() == 0:
            return True
        with RecordTransfers() as rec:
            normalize_on_device(x, device, mean, std)
        moved = [t for t in rec.transfers if t.device == "meta" and t.source_dtype == torch.uint8]
        return bool(moved) and all(t.non_blocking for t in moved)

    check.forall(calls, crosses_as_uint8,
                 "Move the uint8 batch x_uint8 to device (non_blocking=True), whatever its shape and however the "
                 "device is spelled.", cases=covering())

### BEGIN HIDDEN TESTS
from gpucourse.checks import requirement as _requirement
with _requirement("normalize_on_device moves only uint8 with non_blocking=True and returns float32 (x / 255 "
                  "- mean) / std on the device, input unchanged"):
    import random as _random
    _rng = _random.Random()
    class _RecordNumels(RecordTransfers):
        """RecordTransfers that also keeps how many elements each moved tensor holds (.numels)."""
        def __init__(self):
            super().__init__()
            self.numels = []
        def __torch_function__(self, func, types, args=(), kwargs=None):
            _count = len(self.transfers)
            _result = super().__torch_function__(func, types, args, kwargs)
            if len(self.transfers) > _count:  # a Tensor.to / .cuda / .copy_ call was recorded
                self.numels.append(args[0].numel())
            return _result

    for _trial in range(5):
        # at least two elements, so that the batch is never mistaken for a scalar constant; 2-, 3- and 4-D
        # batches in turn, so that every run sees each (a 3-D batch has no channel dimension)
        _shape = (_rng.randint(2, 9),) + tuple(_rng.randint(1, 12) for _ in range(1 + _trial % 3))
        _x = torch.randint(0, 256, _shape, dtype=torch.uint8)
        _x.view(-1)[0], _x.view(-1)[-1] = 0, 255
        _keep = _x.clone()
        _mean, _std = _rng.uniform(-1.0, 1.0), _rng.uniform(0.05, 3.0)
        _out = normalize_on_device(_x, torch.device("cpu"), _mean, _std)
        assert isinstance(_out, torch.Tensor) and _out.dtype == torch.float32 and _out.shape == _x.shape, \
            "a float32 tensor of the input's shape"
        _ref = (_x.double() / 255 - _mean) / _std
        assert torch.allclose(_out.double(), _ref, rtol=1e-5, atol=1e-5), "(x / 255 - mean) / std"
        assert torch.equal(_x, _keep), "the input must not change"
        with _RecordNumels() as _rec:
            _out = normalize_on_device(_x, "meta", _mean, _std)
        assert _out.device.type == "meta" and _out.dtype == torch.float32 and _out.shape == _x.shape, \
            "a float32 tensor of the input's shape, on the device asked for"
        assert _x.device.type == "cpu", "the input stays where it was"
        # the batch's transfers (constants such as mean and std may cross too, as they like)
        _batch = [t for t, _numel in zip(_rec.transfers, _rec.numels) if _numel == _x.numel()]
        _moves = [t for t in _batch if t.device == "meta"]
        assert _moves, "the batch must cross with Tensor.to"
        assert all(t.source_dtype == torch.uint8 and t.source_device == "cpu" for t in _moves), \
            "only uint8 data may cross: convert on the device"
        assert all(t.non_blocking for t in _moves), "non_blocking=True"
        assert not any(t.source_device == "cpu" and t.device in (None, "cpu") and t.dtype is not None
                       and t.dtype.is_floating_point for t in _batch), "no float conversion on the host"
        assert torch.equal(_x, _keep), "the input must not change"
    if torch.cuda.is_available():  # on a GPU grader, the real device too
        _x = torch.randint(0, 256, (8, 1, 28, 28), dtype=torch.uint8)
        _out = normalize_on_device(_x, "cuda", 0.5, 0.25)
        torch.cuda.synchronize()
        assert _out.device.type == "cuda" and _out.dtype == torch.float32
        assert torch.allclose(_out.cpu().double(), (_x.double() / 255 - 0.5) / 0.25, rtol=1e-5, atol=1e-5)
from gpucourse.contract import for_all as _for_all
with _requirement("normalize_on_device keeps the whole contract for uint8 batches of any shape (() and empty "
                  "ones too) and any pixels, a device as a str or a torch.device, any mean and std"):
    _shapes = SHAPES + [(1, 1), (0, 3), (5, 1, 2, 2), (2, 0, 3)]
    _for_all(calls, where_asked, "a float32 tensor on device with x_uint8's shape, x_uint8 unchanged",
             examples=300, cases=covering(_shapes))
    _for_all(calls, normalizes, "(x / 255 - mean) / std element by element", examples=300,
             cases=covering(_shapes))
    _for_all(calls, crosses_as_uint8, "uint8 crosses, non_blocking=True", examples=300, cases=covering(_shapes))
### END HIDDEN TESTS

# %% [markdown] fixtures="normalize_on_device"
# ### Mistakes and correct alternatives for `normalize_on_device` (author-only: in no generated notebook)
#
# **mistake `float-before-transfer`**, sample, loses `test_normalize_on_device`: converts on the CPU: four times the bytes cross
# ```diff
# @@
# -    x = x_uint8.to(device, non_blocking=True)
# -    return (x.float() / 255 - mean) / std
# +    x = x_uint8.float()
# +    return ((x / 255 - mean) / std).to(device, non_blocking=True)
# ```
#
# **mistake `to-float-then-move`**, loses `test_normalize_on_device`: casts with .to(float32) before the move
# ```diff
# @@
# -    x = x_uint8.to(device, non_blocking=True)
# -    return (x.float() / 255 - mean) / std
# +    x = x_uint8.to(torch.float32).to(device, non_blocking=True)
# +    return (x / 255 - mean) / std
# ```
#
# **mistake `blocking`**, loses `test_normalize_on_device`: forgets non_blocking=True
# ```diff
# @@
# -    x = x_uint8.to(device, non_blocking=True)
# +    x = x_uint8.to(device)
# ```
#
# **mistake `no-scale`**, loses `test_normalize_on_device`: forgets to divide by 255
# ```diff
# @@
# -    return (x.float() / 255 - mean) / std
# +    return (x.float() - mean) / std
# ```
#
# **mistake `scale-last`**, loses `test_normalize_on_device`: divides by 255 after normalizing
# ```diff
# @@
# -    return (x.float() / 255 - mean) / std
# +    return (x.float() - mean) / std / 255
# ```
#
# **mistake `float64`**, loses `test_normalize_on_device`: returns float64
# ```diff
# @@
# -    return (x.float() / 255 - mean) / std
# +    return (x.double() / 255 - mean) / std
# ```
#
# **mistake `half`**, loses `test_normalize_on_device`: returns float16
# ```diff
# @@
# -    return (x.float() / 255 - mean) / std
# +    return ((x.half() / 255 - mean) / std)
# ```
#
# **mistake `moves-input`**, loses `test_normalize_on_device`: moves the caller's tensor in place, like Module.to
# ```diff
# @@
# -    x = x_uint8.to(device, non_blocking=True)
# +    x_uint8.data = x_uint8.data.to(device, non_blocking=True)
# +    x = x_uint8
# ```
#
# **mistake `one-call-blocking`**, loses `test_normalize_on_device`: the one-call form, blocking: PyTorch then converts on the CPU
# ```diff
# @@
# -    x = x_uint8.to(device, non_blocking=True)
# -    return (x.float() / 255 - mean) / std
# +    x = x_uint8.to(device, torch.float32)
# +    return (x / 255 - mean) / std
# ```
#
# **mistake `adds-channel`**, loses `test_normalize_on_device`: adds the channel dimension a CNN wants to a 3-D batch
# ```diff
# @@
#      x = x_uint8.to(device, non_blocking=True)
# +    if x.dim() == 3:
# +        x = x.unsqueeze(1)
# ```
#
# **mistake `unassigned-to`**, loses `test_normalize_on_device`: the unassigned x.to(device): the batch never leaves the CPU
# ```diff
# @@
# -    x = x_uint8.to(device, non_blocking=True)
# +    x_uint8.to(device, non_blocking=True)
# +    x = x_uint8
# ```
#
# **alternative `one-call`**: moves and converts in one non-blocking call, which converts on the device
# ```python
# def normalize_on_device(x_uint8, device, mean, std):
#     x = x_uint8.to(device, torch.float32, non_blocking=True)
#     return x.div(255.0).sub(mean).div(std)
# ```
#
# **alternative `constants-on-device`**: sends the constants to the device too
# ```python
# def normalize_on_device(x_uint8, device, mean, std):
#     x = x_uint8.to(device, non_blocking=True)
#     mean_t = torch.tensor(mean, dtype=torch.float32).to(device)
#     std_t = torch.tensor(std, dtype=torch.float32).to(device)
#     return (x.to(torch.float32) / 255.0 - mean_t) / std_t
# ```
#
# **alternative `div-in-place`**: in-place arithmetic on the device copy
# ```python
# def normalize_on_device(x_uint8, device, mean, std):
#     _x = x_uint8.to(device=device, non_blocking=True).float()
#     _x.div_(255).sub_(mean).div_(std)
#     return _x
# ```
#
# **alternative `scale-shift`**: one multiply and one subtract
# ```python
# def normalize_on_device(x_uint8, device, mean, std):
#     moved = x_uint8.to(device, non_blocking=True)
#     scale = 1.0 / (255.0 * std)
#     return moved.to(torch.float32) * scale - mean / std
# ```
#
# **clauses of `normalize_on_device`**
# - "Move the uint8 batch x_uint8 to device": visible "Move the uint8 batch x_uint8 to device" by `unassigned-to`
# - "(non_blocking=True)": visible "(non_blocking=True)" by `blocking`, `one-call-blocking`
# - "then return the float32 tensor": visible "Return the float32 tensor" by `float64`, `half`
# - "(x / 255 - mean) / std": visible "(x / 255 - mean) / std" by `no-scale`, `scale-last`
# - "computed on the device": visible "Only uint8 data crosses" by `float-before-transfer`
# - "with x_uint8's shape.": visible "x_uint8's shape" by `adds-channel`
# - "Only uint8 data crosses": visible "Only uint8 data crosses" by `to-float-then-move`
# - "(x_uint8.to(device, torch.float32, non_blocking=True) counts: it converts on the device).": allows `one-call`
# - "mean and std are Python floats.": no requirement (it says what the caller passes; every check passes Python floats)
# - "x_uint8 is not changed: same values, same device.": hidden-only (without a GPU the only second device is meta, and moving the caller's tensor there in place, x_uint8.data = x_uint8.data.to("meta"), raises before any check can look at it: the visible check shows that error, the hidden test names the requirement) by `moves-input`

# %% id="s3-record"
from gpucourse.fakes import RecordTransfers

x = torch.randint(0, 256, (256, 1, 28, 28), dtype=torch.uint8)
if needs("batch_nbytes", "normalize_on_device"):
    for label, fn in [
            ("float first, then move", lambda: ((x.float() / 255 - 0.286) / 0.353).to("meta", non_blocking=True)),
            ("normalize_on_device   ", lambda: normalize_on_device(x, "meta", 0.286, 0.353))]:
        with RecordTransfers() as rec:
            fn()
        crossed = [t for t in rec.transfers if t.device == "meta"]
        print(f"{label}: {batch_nbytes(256, (1, 28, 28), crossed[0].source_dtype):>9,} bytes crossed "
              f"as {crossed[0].source_dtype}")

# %% [markdown] id="s3-note"
# The one-call form `x.to(device, torch.float32, non_blocking=True)` also moves only `uint8` in current PyTorch: its
# CUDA copy (`aten/src/ATen/native/cuda/Copy.cu`) converts on the GPU when `non_blocking=True`, but on the **CPU,
# before the copy**, when the call is blocking. Exercise 4's checks accept it with `non_blocking=True`; two explicit
# steps say what you mean and do not depend on that detail.

# %% [markdown] id="s4"
# ## 4. `num_workers`: parallel loading, when loading is the slow part
#
# With `num_workers=0` the training process itself fetches every sample; with `num_workers=k`, `k` worker processes
# fetch batches in parallel while the main process trains. Workers help when producing a sample is expensive (reading a
# file, decoding a JPEG, augmenting); they cost start-up time and inter-process copies. When the dataset is already a
# tensor in memory there is little for them to take over: with a few cores, that cost is most of what you get; with
# many, several workers can still take over some per-sample Python work (indexing, collating). The cell prints which
# happened here.
#
# Below, `SlowDataset` takes about 4 ms per sample (a sleep standing in for reading and decoding), and the in-memory
# dataset is Fashion-MNIST as tensors. Each loader runs a first epoch, which starts its persistent workers, then more
# with the workers already running (three for the in-memory tensors, whose epochs are short and noisy, and whose
# spread decides what the cell may call faster or slower; one for the slow samples), so the start-up cost shows apart
# from the steady state. Numbers vary from run to run and machine to machine (Colab typically gives 2 vCPUs; check with `!nproc`).

# %% id="s4-workers"
import os
from torch.utils.data import DataLoader, TensorDataset
from gpucourse.data import as_tensors, fashion_mnist
from gpucourse.readings import median, read_workers
from gpucourse.transfers import SlowDataset, epoch_seconds

images, labels = as_tensors(fashion_mnist(train=True), limit=2_000 if QUICK else 60_000)
in_memory = TensorDataset(images, labels)
slow = SlowDataset(n=48 if QUICK else 1_024, ms=4.0)
worker_counts = [0, 2] if QUICK else [w for w in (0, 1, 2, 4) if w <= max(2, os.cpu_count() or 1)]
seconds = {"slow samples (4 ms each)": {}, "in-memory tensors": {}}
for workers in tqdm(worker_counts, desc="num_workers"):
    for name, data, bs in [("slow samples (4 ms each)", slow, 32), ("in-memory tensors", in_memory, 256)]:
        loader = DataLoader(data, batch_size=bs, num_workers=workers, persistent_workers=workers > 0)
        first = epoch_seconds(loader)    # includes starting the workers
        later = [epoch_seconds(loader) for _ in range(3 if data is in_memory else 1)]   # workers already running
        seconds[name][workers] = (first, later)
        del loader
for name, by_workers in seconds.items():
    print(name)
    for workers, (first, later) in by_workers.items():
        print(f"  num_workers={workers}: first epoch {first:.3f} s, next " + ("epochs " if len(later) > 1 else "epoch ")
              + ", ".join(f"{s:.3f}" for s in later) + " s")
print(read_workers({workers: later for workers, (_, later) in seconds["in-memory tensors"].items()}))

# %% id="s4-plot"
fig, axes = plt.subplots(1, 2, figsize=(9, 3))
for ax, (name, by_workers) in zip(axes, seconds.items()):
    positions = range(len(by_workers))
    ax.bar([p - 0.2 for p in positions], [v[0] for v in by_workers.values()], 0.4, label="first epoch (starts workers)")
    ax.bar([p + 0.2 for p in positions], [median(v[1]) for v in by_workers.values()], 0.4,
           label="next epoch (median)")
    ax.set_xticks(list(positions), [str(w) for w in by_workers])
    ax.set(xlabel="num_workers", ylabel="seconds per epoch (measured)", title=name)
axes[0].legend(fontsize=8)
fig.suptitle("DataLoader workers pay off when loading is the slow part")
fig.tight_layout()
plt.show()

# %% [markdown] id="s5"
# ## 5. Putting it together
#
# The input pipeline for the rest of the module: `make_loader` yields `uint8` batches (pinned when the device is
# CUDA), and `normalize_on_device` sends them as bytes and normalizes on the device.

# %% id="s5-pipeline"
from gpucourse.data import MEAN, STD

if needs("make_loader", "normalize_on_device"):
    loader = make_loader(TensorDataset(images, labels), batch_size=256, device=DEVICE, train=True, num_workers=0)
    start = time.perf_counter()
    count = 0
    for x, y in loader:
        x = normalize_on_device(x, DEVICE, MEAN, STD)
        y = y.to(DEVICE, non_blocking=True)
        count += len(x)
    print(f"{count:,} images normalized on {DEVICE.type} in {time.perf_counter() - start:.2f} s; "
          f"last batch {tuple(x.shape)} {x.dtype}, mean {x.mean().item():+.3f}, std {x.std().item():.3f}")

# %% [markdown] id="summary"
# ## Summary
#
# - A batch is `batch_size × elements × itemsize` bytes: 802,816 for 256 Fashion-MNIST images in `float32`,
#   154,140,672 for 256 ImageNet-sized ones. At PCIe speeds that is milliseconds per step.
# - Copies pay a fixed cost plus bytes over bandwidth: move batches as large tensors; pinned memory is faster and lets
#   `non_blocking=True` overlap the copy with other work (the flag is honoured for pageable memory too, with little
#   overlap).
# - Send `uint8` and normalize on the device: four times fewer bytes.
# - `num_workers` helps when producing samples is expensive. For tensors already in memory there is little for workers
#   to do: with a few cores they cost more than they save; with many, several can still save a little.
