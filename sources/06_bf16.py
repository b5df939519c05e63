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
# float16 and bfloat16 both take 16 bits, and split them differently. float16 spends 10 bits on the mantissa
# (precision) and 5 on the exponent (range): precise, but nothing above 65504 or below 6·10⁻⁸. bfloat16 keeps
# float32's 8 exponent bits, so it has float32's range, and only 7 mantissa bits: about 2 to 3 significant decimal
# digits. With float32's range, gradients do not underflow, so **bfloat16 needs no gradient scaler**, which is why
# it is the usual choice on GPUs that compute it in hardware. It is not autocast's default there: CUDA autocast
# defaults to float16 (`torch.get_autocast_dtype("cuda")`), CPU autocast to bfloat16, so ask for bfloat16 by name.
# A Colab T4 does not compute it in hardware.
#
# **You will learn to**
# - read the bit fields of float32, float16 and bfloat16, and compute them (`bit_fields`);
# - plot the round-trip error of both 16-bit types over 80 orders of magnitude (`roundtrip_rel_error`);
# - decide from the compute capability whether a GPU has native bfloat16, and why `torch.cuda.is_bf16_supported()`
#   is not the test (`choose_amp_dtype`);
# - train with bfloat16 autocast and no scaler (`bf16_train_step`).
#
# **Time:** about 30 minutes on a Colab T4, about 30 minutes on a laptop CPU.

# %% nbgrader={"grade": false, "grade_id": "setup", "locked": true, "schema_version": 3, "solution": false}
# The shared set-up: `python -m graders build` writes its install part above these lines.
from gpucourse.bootstrap import setup
DEVICE, QUICK = setup()
import torch
from gpucourse.checks import needs  # a demonstration that runs your answers waits until they are answered


# %% [markdown] id="recap"
# ## Recap
#
# - **Notebook 04**: autocast runs matmuls in a 16-bit dtype and keeps parameters in float32.
# - **Notebook 05**: float16's small range makes gradients underflow; `GradScaler` scales the loss to prevent it.
#
# Here the other 16-bit format, and when to choose which.

# %% id="config"
import matplotlib.pyplot as plt
import torch.nn.functional as F
from gpucourse.amp import LAYOUTS, GPU_CAPABILITIES, draw_bit_layouts, native_bf16, short
from gpucourse.model import make_mlp

# %% [markdown] id="s1"
# ## 1. Three layouts
#
# A floating-point number is `(-1)^sign × 2^(exponent - bias) × 1.mantissa`: one sign bit, an exponent stored with a
# bias (127 for 8 bits, 15 for 5 bits), and the fraction bits after an implicit leading 1. The exponent width fixes
# the range, the mantissa width the precision.

# %% id="s1-draw"
draw_bit_layouts(-1.5)
plt.show()
print(f"{'dtype':<10}{'bits (s, e, m)':<16}{'max':>12}{'smallest normal':>18}{'eps':>12}")
for dtype, layout in LAYOUTS.items():
    info = torch.finfo(dtype)
    print(f"{short(dtype):<10}{str(layout):<16}{info.max:12.4g}{info.smallest_normal:18.4g}{info.eps:12.4g}")

# %% id="s1-examples"
for value in (70000.0, 2049.0, 257.0, 1e-8, 1e-30):
    fp16 = torch.tensor(value).to(torch.float16).item()
    bf16 = torch.tensor(value).to(torch.bfloat16).item()
    print(f"{value:>8g}:  float16 -> {fp16:<12g} bfloat16 -> {bf16:g}")


# %% [markdown] id="s1-read"
# 70000 overflows float16 to `inf` but is merely rounded in bfloat16; 2049 is not a float16 number (the integers
# stop being exact above 2048 = 2¹¹), 257 is not a bfloat16 number (above 2⁸); 10⁻⁸ underflows in float16 only.

# %% [markdown] id="ex1"
# ## Exercise 1: `bit_fields` (3 points)
#
# Write `bit_fields(x, dtype)` returning the raw bit fields `(sign, exponent, mantissa)` of `x` stored in `dtype`,
# as three Python `int`s: the bits as stored, so the exponent **with** its bias and the mantissa **without** the
# implicit leading 1. `dtype` is `torch.float32`, `torch.float16` or `torch.bfloat16` (layouts in `LAYOUTS`);
# `x` is a Python float or a 0-d tensor of any floating dtype (float64, float32, float16, bfloat16), rounded to
# `dtype` first as `.to(dtype)` rounds: to the nearest `dtype` value, ties to even, never truncated. (PyTorch rounds a
# float64 through float32, NumPy rounds it directly; the two differ only for rare values, which are not graded.)
#
# Hint: `tensor.view(torch.int16)` reinterprets the 16 bits of a float16/bfloat16 tensor as an integer (and
# `torch.int32` for float32). Signed integers are negative when the top bit is set: `& 0xFFFF` gives the unsigned bits.
# Example: `bit_fields(-1.5, torch.float16) == (1, 15, 512)`.

# %% nbgrader={"grade": false, "grade_id": "bit_fields", "locked": false, "schema_version": 3, "solution": true}
def bit_fields(x, dtype):
    """(sign, exponent, mantissa): the bit fields of x rounded to dtype, as Python ints, as stored
    (biased exponent, mantissa without the implicit 1). x: a Python float or a 0-d tensor of any
    floating dtype. dtype: torch.float32, torch.float16 or torch.bfloat16. x is rounded to the
    nearest dtype value (ties to even), as .to(dtype) rounds; a float64 value may be rounded directly
    or through float32 (the graded values round the same both ways). A value beyond dtype's range is
    stored as inf (or -inf), as .to(dtype) stores it."""
    ### BEGIN SOLUTION
    _, exp_bits, man_bits = LAYOUTS[dtype]
    value = x.detach().to(dtype) if isinstance(x, torch.Tensor) else torch.tensor(float(x), dtype=dtype)
    if dtype == torch.float32:
        pattern = int(value.reshape(()).view(torch.int32).item()) & 0xFFFFFFFF
    else:
        pattern = int(value.reshape(()).view(torch.int16).item()) & 0xFFFF
    sign = pattern >> (exp_bits + man_bits)
    exponent = (pattern >> man_bits) & ((1 << exp_bits) - 1)
    mantissa = pattern & ((1 << man_bits) - 1)
    return sign, exponent, mantissa
    ### END SOLUTION


# %% nbgrader={"grade": true, "grade_id": "test_bit_fields", "locked": true, "points": 3, "schema_version": 3, "solution": false}
import random
import struct
import numpy as np
from gpucourse.checks import Check

def _split(pattern, dtype):
    _, e, m = LAYOUTS[dtype]
    return pattern >> (e + m), (pattern >> m) & ((1 << e) - 1), pattern & ((1 << m) - 1)

def _fields(value, kind):
    """bit_fields(value, kind), or the error it raised as text (so that the check's hint shows what came back)."""
    try:
        return bit_fields(value, kind)
    except Exception as error:
        return f"{type(error).__name__}: {error}"

with Check("bit_fields") as check:
    got = check.call(bit_fields, -1.5, torch.float16)
    check.that(isinstance(got, tuple) and len(got) == 3, "Return a tuple (sign, exponent, mantissa).")
    check.that(all(type(v) is int for v in got), "Return Python ints (use int(...) or .item()), not tensors.")
    check.equal(got[0], 1, "-1.5 in float16: (sign, exponent, mantissa) are the bit fields as stored, "
                "so the sign is its stored bit, 1 for a negative number.")
    check.equal(got[1], 15, "-1.5 in float16: the exponent field as stored, biased: 15 (2**0 plus float16's bias 15).")
    check.equal(got[2], 512, "-1.5 in float16: the mantissa field as stored, without the implicit 1: 0b1000000000.")
    check.equal(bit_fields(1.0, torch.float32), (0, 127, 0), "1.0 in float32: biased exponent 127, no mantissa bits")
    check.equal(bit_fields(1.0, torch.bfloat16), (0, 127, 0), "bfloat16 has float32's exponent: 8 bits, bias 127")
    check.equal(bit_fields(2.0**-24, torch.float16), (0, 0, 1),
                "2**-24 is float16's smallest subnormal: read the stored bits, an exponent field of 0")
    check.equal(bit_fields(float("inf"), torch.bfloat16), (0, 255, 0), "inf: every exponent bit set, mantissa 0")
    check.equal(bit_fields(-0.0, torch.bfloat16), (1, 0, 0),
                "-0.0 is stored with its sign bit set: return the fields as stored, the sign bit included")
    check.equal(bit_fields(2049.0, torch.float16), (0, 26, 0),
                "2049 is not a float16 number: round x to dtype first (2049 becomes 2048)")
    check.equal(bit_fields(259.0, torch.bfloat16), (0, 135, 2),
                "259 rounds to 260 in bfloat16, the nearest bfloat16 number: round as .to(dtype) does, do not "
                "cut off bits")
    check.equal(_fields(100000.0, torch.float16), (0, 31, 0),
                "100000 is beyond float16's range (its largest number is 65504): a value beyond dtype's range "
                "is stored as inf, as .to(dtype) stores it")
    check.equal(_fields(torch.tensor(0.75), torch.float16), (0, 14, 512),
                "x may be a 0-d float32 tensor: round it to dtype before reading its bits")
    check.equal(_fields(torch.tensor(0.75, dtype=torch.float16), torch.bfloat16), (0, 126, 64),
                "x may be a 0-d tensor of another 16-bit dtype: round it to dtype before reading its bits")
    check.equal(_fields(torch.tensor(-2.0, dtype=torch.float64), torch.float32), (1, 128, 0),
                "x may be a 0-d float64 tensor")
    check.equal(_fields(torch.tensor(-1e39, dtype=torch.float64), torch.float32), (1, 255, 0),
                "-1e39 is beyond float32's range: a value beyond dtype's range is stored as -inf")
    # the whole contract, over its domain: a Python float (any float64: huge, tiny, inf, -0.0, ties) or a 0-d tensor
    # of every floating dtype, rounded to each of the three dtypes
    import math
    from hypothesis import strategies as st
    from gpucourse import domains
    from gpucourse.contract import snapshot, unchanged_by

    def stored_value(fields, dtype):
        """The number that fields (sign, biased exponent, mantissa) stand for in dtype's layout, as the markdown
        defines it: (-1)**sign × 2**(exponent - bias) × 1.mantissa, × 0.mantissa for an exponent field of 0, inf
        when every exponent bit is set; None when fields are not three ints within their widths."""
        _, e, m = LAYOUTS[dtype]
        if not (isinstance(fields, tuple) and len(fields) == 3 and all(type(v) is int for v in fields)):
            return None
        sign, exponent, mantissa = fields
        if not (0 <= sign <= 1 and 0 <= exponent < 1 << e and 0 <= mantissa < 1 << m):
            return None
        bias = (1 << (e - 1)) - 1
        if exponent == (1 << e) - 1:
            magnitude = math.inf if mantissa == 0 else math.nan
        elif exponent == 0:
            magnitude = math.ldexp(mantissa, 1 - bias - m)
        else:
            magnitude = math.ldexp((1 << m) + mantissa, exponent - bias - m)
        return -magnitude if sign else magnitude

    def rounded(value, to):
        """value.to(to), as a Python float (a Python float value as a float64 tensor)."""
        return float((value if isinstance(value, torch.Tensor) else torch.tensor(value, dtype=torch.float64)).to(to))

    def graded(value, to):
        """value, or its float32 value where a float64 value could round differently directly and through float32
        (the docstring leaves those free)."""
        wide = value if isinstance(value, torch.Tensor) else torch.tensor(value, dtype=torch.float64)
        if wide.dtype != torch.float64 or to == torch.float32:
            return value
        x32 = wide.float()
        up = torch.nextafter(x32, torch.tensor(math.inf)).to(to)
        down = torch.nextafter(x32, torch.tensor(-math.inf)).to(to)
        if bool(up != down) and bool(x32.to(to) != x32) and float(x32) != float(wide):
            return x32.double() if isinstance(value, torch.Tensor) else float(x32)
        return value

    def same_number(a, b):
        return a is not None and a == b and math.copysign(1.0, a) == math.copysign(1.0, b)

    def fields_hold(c):
        x, dtype = c
        return same_number(stored_value(bit_fields(x, dtype), dtype), rounded(x, dtype))

    def zero_d(kind, bits):
        """A 0-d tensor of floating dtype kind holding the bit pattern bits (1.0 for a NaN pattern: NaN is not
        graded)."""
        width = torch.finfo(kind).bits
        signed = {8: torch.int8, 16: torch.int16, 32: torch.int32}[width]
        bits %= 1 << width
        value = torch.tensor(bits - (1 << width) if bits >> (width - 1) else bits, dtype=signed).view(kind)
        return torch.tensor(1.0, dtype=kind) if bool(value.isnan()) else value

    NARROW = [d for d in domains.FLOATING if d != torch.float64]
    float_xs = st.one_of(st.floats(allow_nan=False), st.integers(0, 2**32 - 1).map(
        lambda bits: float(zero_d(torch.float32, bits))))
    tensor_xs = st.one_of(st.floats(allow_nan=False).map(lambda v: torch.tensor(v, dtype=torch.float64)),
                          st.builds(zero_d, st.sampled_from(NARROW), st.integers(0, 2**32 - 1)))
    field_calls = st.tuples(st.one_of(float_xs, tensor_xs), st.sampled_from(list(LAYOUTS))).map(
        lambda c: (graded(c[0], c[1]), c[1]))

    def boundaries(dtype):
        """Python floats at dtype's edges: ties at 1 (to even, down and up), at the overflow threshold (to inf) and
        below the smallest subnormal (to 0), the values beside them, and the specials, both signs."""
        info, (_, e, m) = torch.finfo(dtype), LAYOUTS[dtype]
        bias = (1 << (e - 1)) - 1
        tiny_sub = math.ldexp(1.0, 1 - bias - m)
        half_ulp_max = math.ldexp(1.0, (1 << e) - 3 - bias - m)
        edges = [0.0, 1.0, 1.5, math.inf, info.max, info.tiny, tiny_sub, 1 + math.ldexp(1.0, -m - 1),
                 1 + 3 * math.ldexp(1.0, -m - 1), info.max + half_ulp_max, info.max + half_ulp_max / 2,
                 tiny_sub / 2, tiny_sub * 0.75, tiny_sub * 1.5, tiny_sub / 4, 257.0, 0.1]
        return [v for edge in edges for v in (edge, -edge)]

    def field_cases():
        """Smallest first, made anew for each property: every dtype's edges as Python floats and as 0-d float64
        tensors, then a 0-d tensor of every floating dtype."""
        cases = [(v, dtype) for dtype in LAYOUTS for v in boundaries(dtype)]
        cases += [(torch.tensor(v, dtype=torch.float64), dtype) for dtype in LAYOUTS for v in boundaries(dtype)]
        cases += [(torch.tensor(v).to(kind), dtype) for dtype in LAYOUTS for kind in domains.FLOATING
                  for v in (-1.5, 0.1, 300.0, -0.0, 3e-5, -7e4)]
        return [(graded(x, dtype), dtype) for x, dtype in cases]

    check.forall(field_calls, fields_hold,
                 "(sign, exponent, mantissa) are the bit fields of x rounded to dtype, as stored: put back together "
                 "as (-1)**sign × 2**(exponent - bias) × 1.mantissa they must give x.to(dtype): rounded to the nearest "
                 "dtype value (ties to even, also at the overflow threshold and below the smallest subnormal), inf "
                 "beyond dtype's range, for a Python float and a 0-d tensor of any floating dtype.",
                 cases=field_cases())

    x_unchanged = unchanged_by(bit_fields)  # c[0] as it was after bit_fields(*c)

    check.forall(field_calls, x_unchanged, "x itself is not modified: round a copy, not the tensor you are given.",
                 cases=field_cases())

### BEGIN HIDDEN TESTS
from gpucourse.checks import requirement as _requirement
_rng = random.Random()
def _random_pattern(dtype):
    bits = sum(LAYOUTS[dtype])
    while True:
        p = _rng.getrandbits(bits)
        s, e, m = _split(p, dtype)
        if not (e == (1 << LAYOUTS[dtype][1]) - 1 and m != 0):      # skip NaN
            return p
for _dtype in (torch.float16, torch.bfloat16):
    with _requirement(f"bit_fields(x, {_dtype}) returns the stored (sign, biased exponent, mantissa) as ints, "
                      "for a Python float and for a 0-d tensor of any floating dtype"):
        for _ in range(60):
            _p = _random_pattern(_dtype)
            _value = torch.tensor(_p - (1 << 16) if _p >= 1 << 15 else _p, dtype=torch.int16).view(_dtype)
            _expected = _split(_p, _dtype)
            _got = bit_fields(float(_value), _dtype)
            assert tuple(_got) == _expected and all(type(v) is int for v in _got), \
                f"{float(_value)!r}: got {_got}, expected {_expected}"
            assert tuple(bit_fields(_value, _dtype)) == _expected, "a 0-d tensor of that dtype"
            assert tuple(bit_fields(_value.float(), _dtype)) == _expected, "a 0-d float32 tensor"
            assert tuple(bit_fields(_value.double(), _dtype)) == _expected, "a 0-d float64 tensor"
with _requirement("bit_fields(x, torch.float32) returns the stored (sign, biased exponent, mantissa) as ints"):
    for _ in range(60):
        _p = _random_pattern(torch.float32)
        (_x,) = struct.unpack(">f", struct.pack(">I", _p))
        assert tuple(bit_fields(_x, torch.float32)) == _split(_p, torch.float32), f"float32 {_x!r}"
        assert tuple(bit_fields(torch.tensor(_x, dtype=torch.float64), torch.float32)) == _split(_p, torch.float32), \
            f"a 0-d float64 tensor holding {_x!r}"
with _requirement("bit_fields stores a value beyond dtype's range as inf (or -inf), as .to(dtype) does"):
    for _dtype, _low in ((torch.float16, 70000.0), (torch.bfloat16, 3.5e38), (torch.float32, 3.5e38)):
        _exp = (1 << LAYOUTS[_dtype][1]) - 1
        for _ in range(5):
            _x = _rng.choice((1.0, -1.0)) * _low * 10 ** _rng.uniform(0, 5)
            _want = (int(_x < 0), _exp, 0)
            assert tuple(bit_fields(_x, _dtype)) == _want, f"{_x!r} in {_dtype}: got {bit_fields(_x, _dtype)}"
            assert tuple(bit_fields(torch.tensor(_x, dtype=torch.float64), _dtype)) == _want, \
                f"a 0-d float64 tensor holding {_x!r}, in {_dtype}"
# rounding: float32 values that are not 16-bit numbers (so rounding through float32 or directly agree), checked
# against NumPy (float16) and bit arithmetic (bfloat16)
with _requirement("bit_fields rounds x to the nearest value of dtype (ties to even) before reading its bits"):
    for _ in range(40):
        _x = float(torch.randn(()) * 10 ** _rng.uniform(-6, 4))
        _h = int(np.array(_x, dtype=np.float32).astype(np.float16).view(np.uint16))
        assert tuple(bit_fields(_x, torch.float16)) == _split(_h, torch.float16), f"{_x!r} to float16"
        assert tuple(bit_fields(torch.tensor(_x), torch.float16)) == _split(_h, torch.float16), \
            f"a 0-d float32 tensor holding {_x!r}, to float16"
        (_f,) = struct.unpack(">I", struct.pack(">f", _x))
        _b = ((_f + 0x7FFF + ((_f >> 16) & 1)) >> 16) & 0xFFFF          # round to nearest even
        assert tuple(bit_fields(_x, torch.bfloat16)) == _split(_b, torch.bfloat16), f"{_x!r} to bfloat16"
# edge cases: -0.0, inf, overflow, subnormals, underflow
with _requirement("bit_fields handles -0.0, inf, overflow, subnormals and underflow as stored"):
    assert tuple(bit_fields(-0.0, torch.float16)) == (1, 0, 0), "-0.0"
    assert tuple(bit_fields(float("inf"), torch.bfloat16)) == (0, 255, 0), "inf"
    assert tuple(bit_fields(70000.0, torch.float16)) == (0, 31, 0), "70000 overflows float16 to inf"
    assert tuple(bit_fields(-(2.0 ** -24), torch.float16)) == (1, 0, 1), "the smallest subnormal"
    assert tuple(bit_fields(2.0 ** -130, torch.float32)) == (0, 0, 1 << 19), "a float32 subnormal"
    assert tuple(bit_fields(1e-9, torch.float16)) == (0, 0, 0), "underflow to 0"
from gpucourse.contract import for_all as _for_all
with _requirement("bit_fields keeps the whole contract for a Python float or a 0-d tensor of any floating dtype, in "
                  "each dtype: the stored fields of x rounded as .to(dtype) rounds (ties to even, inf beyond the "
                  "range), x left unchanged"):
    def _tie_cases():
        """Ties between neighbours (odd multiples of half a unit in the last place) at many exponents, both signs,
        as Python floats and 0-d float64 tensors, after the visible sample."""
        cases = field_cases()
        for _dtype, (_, _e, _m) in LAYOUTS.items():
            for _k in range(-20, 21, 3):
                for _j in (1, 3, 5):
                    _v = math.ldexp(1 + _j * math.ldexp(1.0, -_m - 1), _k)
                    cases += [(graded(_v, _dtype), _dtype), (graded(-_v, _dtype), _dtype),
                              (graded(torch.tensor(_v, dtype=torch.float64), _dtype), _dtype)]
        return cases

    _for_all(field_calls, fields_hold, "the fields put back together give x.to(dtype)", examples=300,
             cases=_tie_cases())
    _for_all(field_calls, x_unchanged, "x is not modified", examples=100, cases=field_cases())
### END HIDDEN TESTS

# %% [markdown] fixtures="bit_fields"
# ### Mistakes and correct alternatives for `bit_fields` (author-only: in no generated notebook)
#
# **mistake `unbiased-exponent`**, sample, loses `test_bit_fields`: subtracts the bias: the stored field is biased
# ```diff
# @@
# -    _, exp_bits, man_bits = LAYOUTS[dtype]
# -    value = x.detach().to(dtype) if isinstance(x, torch.Tensor) else torch.tensor(float(x), dtype=dtype)
# +    _, e, m = LAYOUTS[dtype]
# +    v = x.detach().to(dtype) if isinstance(x, torch.Tensor) else torch.tensor(float(x), dtype=dtype)
# @@
# -        pattern = int(value.reshape(()).view(torch.int32).item()) & 0xFFFFFFFF
# +        p = int(v.reshape(()).view(torch.int32).item()) & 0xFFFFFFFF
# @@
# -        pattern = int(value.reshape(()).view(torch.int16).item()) & 0xFFFF
# -    sign = pattern >> (exp_bits + man_bits)
# -    exponent = (pattern >> man_bits) & ((1 << exp_bits) - 1)
# -    mantissa = pattern & ((1 << man_bits) - 1)
# -    return sign, exponent, mantissa
# +        p = int(v.reshape(()).view(torch.int16).item()) & 0xFFFF
# +    bias = (1 << (e - 1)) - 1
# +    return p >> (e + m), ((p >> m) & ((1 << e) - 1)) - bias, p & ((1 << m) - 1)
# ```
#
# **mistake `implicit-bit`**, loses `test_bit_fields`: adds the implicit leading 1 to the mantissa field
# ```diff
# @@
# -    _, exp_bits, man_bits = LAYOUTS[dtype]
# -    value = x.detach().to(dtype) if isinstance(x, torch.Tensor) else torch.tensor(float(x), dtype=dtype)
# +    _, e, m = LAYOUTS[dtype]
# +    v = x.detach().to(dtype) if isinstance(x, torch.Tensor) else torch.tensor(float(x), dtype=dtype)
# @@
# -        pattern = int(value.reshape(()).view(torch.int32).item()) & 0xFFFFFFFF
# +        p = int(v.reshape(()).view(torch.int32).item()) & 0xFFFFFFFF
# @@
# -        pattern = int(value.reshape(()).view(torch.int16).item()) & 0xFFFF
# -    sign = pattern >> (exp_bits + man_bits)
# -    exponent = (pattern >> man_bits) & ((1 << exp_bits) - 1)
# -    mantissa = pattern & ((1 << man_bits) - 1)
# -    return sign, exponent, mantissa
# +        p = int(v.reshape(()).view(torch.int16).item()) & 0xFFFF
# +    return p >> (e + m), (p >> m) & ((1 << e) - 1), (p & ((1 << m) - 1)) | (1 << m)
# ```
#
# **mistake `sign-extended`**, loses `test_bit_fields`: reads the signed integer: negative numbers give sign -1
# ```diff
# @@
# -    _, exp_bits, man_bits = LAYOUTS[dtype]
# -    value = x.detach().to(dtype) if isinstance(x, torch.Tensor) else torch.tensor(float(x), dtype=dtype)
# -    if dtype == torch.float32:
# -        pattern = int(value.reshape(()).view(torch.int32).item()) & 0xFFFFFFFF
# -    else:
# -        pattern = int(value.reshape(()).view(torch.int16).item()) & 0xFFFF
# -    sign = pattern >> (exp_bits + man_bits)
# -    exponent = (pattern >> man_bits) & ((1 << exp_bits) - 1)
# -    mantissa = pattern & ((1 << man_bits) - 1)
# -    return sign, exponent, mantissa
# +    _, e, m = LAYOUTS[dtype]
# +    v = x.detach().to(dtype) if isinstance(x, torch.Tensor) else torch.tensor(float(x), dtype=dtype)
# +    p = int(v.reshape(()).view(torch.int32 if dtype == torch.float32 else torch.int16).item())
# +    return p >> (e + m), (p >> m) & ((1 << e) - 1), p & ((1 << m) - 1)
# ```
#
# **mistake `fp16-layout`**, loses `test_bit_fields`: uses float16's layout for bfloat16
# ```diff
# @@
# -    _, exp_bits, man_bits = LAYOUTS[dtype]
# -    value = x.detach().to(dtype) if isinstance(x, torch.Tensor) else torch.tensor(float(x), dtype=dtype)
# +    e, m = (8, 23) if dtype == torch.float32 else (5, 10)
# +    v = x.detach().to(dtype) if isinstance(x, torch.Tensor) else torch.tensor(float(x), dtype=dtype)
# @@
# -        pattern = int(value.reshape(()).view(torch.int32).item()) & 0xFFFFFFFF
# +        p = int(v.reshape(()).view(torch.int32).item()) & 0xFFFFFFFF
# @@
# -        pattern = int(value.reshape(()).view(torch.int16).item()) & 0xFFFF
# -    sign = pattern >> (exp_bits + man_bits)
# -    exponent = (pattern >> man_bits) & ((1 << exp_bits) - 1)
# -    mantissa = pattern & ((1 << man_bits) - 1)
# -    return sign, exponent, mantissa
# +        p = int(v.reshape(()).view(torch.int16).item()) & 0xFFFF
# +    return p >> (e + m), (p >> m) & ((1 << e) - 1), p & ((1 << m) - 1)
# ```
#
# **mistake `sign-from-comparison`**, loses `test_bit_fields`: the sign from x < 0, not the stored bit: -0.0 gets 0
# ```diff
# @@
# -    sign = pattern >> (exp_bits + man_bits)
# +    sign = int(float(value) < 0)
# ```
#
# **mistake `sign-plus-minus`**, loses `test_bit_fields`: returns the sign as +1/-1, not the bit
# ```diff
# @@
# -    _, exp_bits, man_bits = LAYOUTS[dtype]
# -    value = x.detach().to(dtype) if isinstance(x, torch.Tensor) else torch.tensor(float(x), dtype=dtype)
# +    _, e, m = LAYOUTS[dtype]
# +    v = x.detach().to(dtype) if isinstance(x, torch.Tensor) else torch.tensor(float(x), dtype=dtype)
# @@
# -        pattern = int(value.reshape(()).view(torch.int32).item()) & 0xFFFFFFFF
# +        p = int(v.reshape(()).view(torch.int32).item()) & 0xFFFFFFFF
# @@
# -        pattern = int(value.reshape(()).view(torch.int16).item()) & 0xFFFF
# -    sign = pattern >> (exp_bits + man_bits)
# -    exponent = (pattern >> man_bits) & ((1 << exp_bits) - 1)
# -    mantissa = pattern & ((1 << man_bits) - 1)
# -    return sign, exponent, mantissa
# +        p = int(v.reshape(()).view(torch.int16).item()) & 0xFFFF
# +    return (-1 if p >> (e + m) else 1), (p >> m) & ((1 << e) - 1), p & ((1 << m) - 1)
# ```
#
# **mistake `frexp`**, loses `test_bit_fields`: computes the fields arithmetically: subnormals and inf go wrong
# ```diff
# @@
# +import math
#  def bit_fields(x, dtype):
# @@
#      stored as inf (or -inf), as .to(dtype) stores it."""
# -    _, exp_bits, man_bits = LAYOUTS[dtype]
# -    value = x.detach().to(dtype) if isinstance(x, torch.Tensor) else torch.tensor(float(x), dtype=dtype)
# -    if dtype == torch.float32:
# -        pattern = int(value.reshape(()).view(torch.int32).item()) & 0xFFFFFFFF
# -    else:
# -        pattern = int(value.reshape(()).view(torch.int16).item()) & 0xFFFF
# -    sign = pattern >> (exp_bits + man_bits)
# -    exponent = (pattern >> man_bits) & ((1 << exp_bits) - 1)
# -    mantissa = pattern & ((1 << man_bits) - 1)
# -    return sign, exponent, mantissa
# +    _, e, m = LAYOUTS[dtype]
# +    v = float(x.to(dtype)) if isinstance(x, torch.Tensor) else float(torch.tensor(float(x)).to(dtype))
# +    sign = 1 if math.copysign(1.0, v) < 0 else 0
# +    if v == 0:
# +        return sign, 0, 0
# +    frac, exp = math.frexp(abs(v))
# +    bias = (1 << (e - 1)) - 1
# +    return sign, exp - 1 + bias, int((frac * 2 - 1) * (1 << m))
# ```
#
# **mistake `tensor-fields`**, loses `test_bit_fields`: returns tensors instead of ints
# ```diff
# @@
# -    _, exp_bits, man_bits = LAYOUTS[dtype]
# -    value = x.detach().to(dtype) if isinstance(x, torch.Tensor) else torch.tensor(float(x), dtype=dtype)
# +    _, e, m = LAYOUTS[dtype]
# +    v = x.detach().to(dtype) if isinstance(x, torch.Tensor) else torch.tensor(float(x), dtype=dtype)
# @@
# -        pattern = int(value.reshape(()).view(torch.int32).item()) & 0xFFFFFFFF
# +        p = int(v.reshape(()).view(torch.int32).item()) & 0xFFFFFFFF
# @@
# -        pattern = int(value.reshape(()).view(torch.int16).item()) & 0xFFFF
# -    sign = pattern >> (exp_bits + man_bits)
# -    exponent = (pattern >> man_bits) & ((1 << exp_bits) - 1)
# -    mantissa = pattern & ((1 << man_bits) - 1)
# -    return sign, exponent, mantissa
# +        p = int(v.reshape(()).view(torch.int16).item()) & 0xFFFF
# +    t = torch.tensor(p)
# +    return t >> (e + m), (t >> m) & ((1 << e) - 1), t & ((1 << m) - 1)
# ```
#
# **mistake `tensor-as-is`**, loses `test_bit_fields`: reads a tensor's bits without rounding it to dtype first
# ```diff
# @@
# -    value = x.detach().to(dtype) if isinstance(x, torch.Tensor) else torch.tensor(float(x), dtype=dtype)
# +    value = x.detach() if isinstance(x, torch.Tensor) else torch.tensor(float(x), dtype=dtype)
# ```
#
# **mistake `bf16-truncate`**, loses `test_bit_fields`: bfloat16 as the top half of float32's bits: truncates, does not round
# ```diff
# @@
# -    if dtype == torch.float32:
# +    if dtype == torch.bfloat16:
# +        wide = x.detach().float() if isinstance(x, torch.Tensor) else torch.tensor(float(x))
# +        pattern = (int(wide.reshape(()).view(torch.int32).item()) & 0xFFFFFFFF) >> 16
# +    elif dtype == torch.float32:
# ```
#
# **mistake `saturates`**, loses `test_bit_fields`: a value beyond the range is stored as the largest finite number
# ```diff
# @@
# -    value = x.detach().to(dtype) if isinstance(x, torch.Tensor) else torch.tensor(float(x), dtype=dtype)
# +    value = x.detach().double() if isinstance(x, torch.Tensor) else torch.tensor(float(x), dtype=torch.float64)
# +    if value.isfinite():
# +        value = value.clamp(-torch.finfo(dtype).max, torch.finfo(dtype).max)
# +    value = value.to(dtype)
# ```
#
# **alternative `numpy-direct`**: NumPy, which rounds a float64 to float16 directly (not through float32)
# ```python
# import numpy as np
#
# def bit_fields(x, dtype):
#     _, e, m = LAYOUTS[dtype]
#     value = float(x)
#     if dtype == torch.float16:
#         with np.errstate(over="ignore"):
#             bits = int(np.array(value, dtype=np.float64).astype(np.float16).view(np.uint16))
#     elif dtype == torch.float32:
#         with np.errstate(over="ignore"):
#             bits = int(np.array(value, dtype=np.float64).astype(np.float32).view(np.uint32))
#     else:   # NumPy has no bfloat16
#         bits = int(torch.tensor(value, dtype=torch.float64).to(torch.bfloat16).view(torch.int16)) & 0xFFFF
#     return bits >> (e + m), (bits >> m) & ((1 << e) - 1), bits & ((1 << m) - 1)
# ```
#
# **alternative `struct-bits`**: struct for float32, locals named _pattern/_value
# ```python
# import struct
#
# def bit_fields(x, dtype):
#     _sign_bits, _exp_bits, _man_bits = LAYOUTS[dtype]
#     if isinstance(x, torch.Tensor):
#         _value = x.detach().to(dtype)
#     else:
#         _value = torch.tensor(float(x), dtype=dtype)
#     if dtype == torch.float32:
#         (_pattern,) = struct.unpack(">I", struct.pack(">f", float(_value)))
#     else:
#         _pattern = int(_value.view(torch.int16)) & 0xFFFF
#     return (_pattern >> (_exp_bits + _man_bits),
#             (_pattern >> _man_bits) & ((1 << _exp_bits) - 1),
#             _pattern & ((1 << _man_bits) - 1))
# ```
#
# **alternative `numpy-view`**: NumPy for the integer view, modulo instead of masks
# ```python
# import numpy as np
#
# def bit_fields(x, dtype):
#     sign_bits, exp_bits, man_bits = LAYOUTS[dtype]
#     t = (x if isinstance(x, torch.Tensor) else torch.tensor(x, dtype=torch.float64)).detach().to(dtype).reshape(1)
#     wide = {torch.float32: torch.int32}.get(dtype, torch.int16)
#     bits = int(t.view(wide).numpy().astype(np.int64)[0]) % (1 << (sign_bits + exp_bits + man_bits))
#     return bits >> (exp_bits + man_bits), (bits >> man_bits) % (1 << exp_bits), bits % (1 << man_bits)
# ```
#
# **alternative `bin-string`**: splits a binary string
# ```python
# def bit_fields(x, dtype):
#     width = sum(LAYOUTS[dtype])
#     value = torch.as_tensor(x, dtype=None if isinstance(x, torch.Tensor) else torch.float64).detach().to(dtype)
#     view = torch.int32 if width == 32 else torch.int16
#     text = format(int(value.view(view)) & ((1 << width) - 1), f"0{width}b")
#     e = LAYOUTS[dtype][1]
#     return int(text[0], 2), int(text[1:1 + e], 2), int(text[1 + e:], 2)
# ```
#
# **clauses of `bit_fields`**
# - "(sign, exponent, mantissa): the bit fields of x": visible "the sign is its stored bit" by `sign-plus-minus`, `sign-extended`
# - "as Python ints": visible "Return Python ints" by `tensor-fields`
# - "as stored": visible "read the stored bits" by `frexp`
# - "as stored": visible "-0.0 is stored with its sign bit set" by `sign-from-comparison`
# - "(biased exponent": visible "the exponent field as stored, biased" by `unbiased-exponent`
# - "mantissa without the implicit 1": visible "without the implicit 1" by `implicit-bit`
# - "x: a Python float or a 0-d tensor of any floating dtype.": visible "x may be a 0-d float32 tensor: round it to dtype" by `tensor-as-is`
# - "dtype: torch.float32, torch.float16 or torch.bfloat16.": visible "bfloat16 has float32's exponent" by `fp16-layout`
# - "x is rounded to the nearest dtype value (ties to even), as .to(dtype) rounds": visible "round as .to(dtype) does" by `bf16-truncate`
# - "a float64 value may be rounded directly or through float32": allows `numpy-direct`
# - "(the graded values round the same both ways)": no requirement (it says which values are graded: the hidden tests round float32 values, on which both roundings agree)
# - "x: a Python float or a 0-d tensor of any floating dtype.": allows `struct-bits`, `numpy-view`, `bin-string`
# - "A value beyond dtype's range is stored as inf (or -inf), as .to(dtype) stores it.": visible "a value beyond dtype's range is stored as inf" by `saturates`

# %% [markdown] id="ex2"
# ## Exercise 2: `roundtrip_rel_error` (2 points)
#
# Write `roundtrip_rel_error(x, dtype)`: for a float32 or float64 tensor `x` without zeros, the elementwise
# relative error of storing it in `dtype` and reading it back, `|x - x.to(dtype)| / |x|`, same shape as `x`.
# Compute it **without losing any of `x`'s digits**: in float64 (float32 is enough, and accepted, when `x` itself is
# float32); never in `dtype`, where the difference would be rounded away, and never by casting a float64 `x` to
# float32 first. A value that underflows to 0 has error 1; one that overflows to `inf` has error `inf`.
#
# `x.to(dtype)` rounds a float64 through float32 in PyTorch; NumPy rounds it directly to float16. The two differ only
# for rare values, and either is accepted.

# %% nbgrader={"grade": false, "grade_id": "roundtrip_rel_error", "locked": false, "schema_version": 3, "solution": true}
def roundtrip_rel_error(x, dtype):
    """Elementwise |x - x.to(dtype)| / |x| for a float32 or float64 tensor x without zeros, same shape.
    Computed in float64 (or in float32 when x is float32) and returned in float64 (for a float32 x, a
    float32 result is accepted too), never by casting a float64 x to float32 first. Underflow to 0 gives 1,
    overflow to inf gives inf. x.to(dtype) may round a float64 through float32 (PyTorch) or directly (NumPy):
    both are accepted."""
    ### BEGIN SOLUTION
    wide = x.double()
    return (wide - x.to(dtype).double()).abs() / wide.abs()
    ### END SOLUTION


# %% nbgrader={"grade": true, "grade_id": "test_roundtrip_rel_error", "locked": true, "points": 2, "schema_version": 3, "solution": false}
from gpucourse.checks import Check

with Check("roundtrip_rel_error") as check:
    x = torch.tensor([1.0, 3.0, 2049.0, 2051.0, 1e-9, 70000.0, 0.1])
    got = check.call(roundtrip_rel_error, x, torch.float16)
    check.that(isinstance(got, torch.Tensor) and got.shape == x.shape, "Return a tensor of the same shape as x.")
    check.that(got.dtype in (torch.float32, torch.float64), "Compute in float32 or float64, not in the 16-bit dtype.")
    check.that(bool((got[:2] == 0).all()), "1 and 3 are exact in float16: their error is 0.")
    check.that(float(got[2]) > 0, "2049 becomes 2048 in float16: compute the difference in float64 (or float32 for "
               "a float32 x), never in dtype, where it is rounded away (got 0).")
    # float16 holds only every other integer between 2048 and 4096; a tie rounds to the even neighbour
    check.close(got[2], 1 / 2049, "2049 becomes 2048 in float16: the error relative to |x| is 1/2049.", rel=1e-5)
    check.close(got[3], 1 / 2051, "2051 becomes 2052 in float16: the error is |2051 - 2052| / 2051, never negative.",
                rel=1e-5)
    check.close(got[4], 1.0, "1e-9 underflows to 0 in float16: |x - 0| / |x| is 1.", rel=1e-6)
    check.that(bool(torch.isinf(got[5])), "70000 overflows float16 to inf: its error is inf.")
    check.that(0 < float(got[6]) <= 2**-11, "0.1 is not exact in float16, and rounding to float16 is off by at most "
               "2**-11 of |x|.")
    subnormal = roundtrip_rel_error(torch.tensor([1e-6, -3e-7]), torch.float16)
    check.that(bool(((subnormal > 0) & (subnormal < 0.1)).all()),
               "1e-6 and -3e-7 lie below float16's smallest normal number but do not underflow to 0 (they become "
               "subnormals): only a value that underflows to 0 has error 1.")
    wide = torch.tensor([1 + 2.0**-30, 3.0], dtype=torch.float64)
    got = check.call(roundtrip_rel_error, wide, torch.float16)
    check.close(got[0], 2.0**-30 / (1 + 2.0**-30), "1 + 2**-30 (a float64 x) becomes 1 in float16: its error is "
                "about 2**-30. Keep all of x's digits: do not cast x to float32 first.", rel=1e-6, abs_=0.0)
    check.that(isinstance(got, torch.Tensor) and got.dtype == torch.float64,
               f"For a float64 x, compute and return the error in float64 (got {got.dtype}).")
    # the whole contract, over its domain: float32 and float64 tensors of any shape with dimensions (zero-size ones
    # too), their values across both 16-bit ranges and beyond them, both 16-bit dtypes
    import math
    from hypothesis import strategies as st
    from gpucourse import domains
    from gpucourse.contract import snapshot, unchanged_by

    def graded_values(values, to):
        """values with each float64 value that could round differently directly and through float32 (the docstring
        leaves both free) replaced by its float32 value."""
        if values.dtype != torch.float64:
            return values
        x32 = values.float()
        up = torch.nextafter(x32, torch.tensor(math.inf)).to(to)
        down = torch.nextafter(x32, torch.tensor(-math.inf)).to(to)
        return torch.where((up != down) & (x32.to(to) != x32), x32.double(), values)

    def spread(kind, shape, seed, dtype):
        """A tensor of kind and shape without zeros: ±[1, 2) × 2**k, k across dtype's range and beyond it (for a
        float64 x, beyond float32's too)."""
        generator = torch.Generator().manual_seed(seed)
        low, high = (-149, 127) if kind == torch.float32 else (-170, 140)
        mantissa = torch.rand(shape, generator=generator, dtype=torch.float64) + 1
        sign = torch.randint(0, 2, shape, generator=generator).double() * 2 - 1
        x = (sign * torch.ldexp(mantissa, torch.randint(low, high, shape, generator=generator))).to(kind)
        return graded_values(torch.where(x == 0, torch.ones_like(x), x), dtype)

    error_calls = st.tuples(st.sampled_from([torch.float32, torch.float64]), domains.shapes(min_dims=1),
                            st.integers(0, 2**31 - 1), st.sampled_from([torch.float16, torch.bfloat16])).map(
        lambda c: (spread(c[0], c[1], c[2], c[3]), c[3]))

    def edges(dtype):
        """Values at dtype's edges, both signs: ties (at 1, below the smallest subnormal, at the overflow
        threshold), the values beside them, the largest number and what lies beyond it."""
        info = torch.finfo(dtype)
        m = LAYOUTS[dtype][2]
        tiny_sub = info.tiny * info.eps
        half_ulp_max = math.ldexp(1.0, math.frexp(info.max)[1] - m - 2)   # half the spacing below info.max
        values = [1.0, 0.1, 3.0, 1 + 2.0 ** -(m + 1), info.max, info.max + half_ulp_max / 2, info.max + half_ulp_max,
                  info.tiny, tiny_sub, tiny_sub * 0.75, tiny_sub / 2, tiny_sub / 4, 1e-9, 257.0, 2049.0, 70000.0]
        return [v for value in values for v in (value, -value)]

    def error_cases():
        """Made anew for each property: every dtype's edges in a float32 and a float64 x, as a row and as a column,
        then zero-size x of both dtypes, and one of each shape kind."""
        cases = []
        for dtype in (torch.float16, torch.bfloat16):
            wide = torch.tensor(edges(dtype), dtype=torch.float64)
            narrow = torch.tensor([v for v in edges(dtype) if math.isfinite(float(torch.tensor(v).float()))])
            cases += [(narrow, dtype), (wide, dtype), (narrow.reshape(-1, 1), dtype), (wide.reshape(2, -1), dtype),
                      (torch.ones(0), dtype), (torch.ones(2, 0, 3, dtype=torch.float64), dtype),
                      (torch.full((1,), 0.3), dtype), (spread(torch.float64, (2, 3, 2), 0, dtype), dtype)]
        return [(graded_values(x, dtype), dtype) for x, dtype in cases]

    def error_holds(c):
        """A tensor of x's shape, float64 (or float32 for a float32 x), elementwise: 1 where x.to(dtype) is 0, inf
        where it is inf, and elsewhere an error that puts |x| back on |x.to(dtype)|: |x| × (1 ± error)."""
        x, dtype = c
        got = roundtrip_rel_error(x, dtype)
        if not (isinstance(got, torch.Tensor) and got.shape == x.shape
                and got.dtype in ((torch.float32, torch.float64) if x.dtype == torch.float32 else (torch.float64,))):
            return False
        size, stored, err = x.double().abs(), x.to(dtype).double().abs(), got.double()
        under, over = stored == 0, torch.isinf(stored)
        # the precision it may be computed in: x's own dtype (float32 arithmetic is accepted for a float32 x)
        tol = 4 * size * err * torch.finfo(x.dtype).eps + 4 * size * torch.finfo(torch.float64).eps
        back = torch.minimum((size * (1 - err) - stored).abs(), (size * (1 + err) - stored).abs())
        rest = ~under & ~over
        return (bool((err[under] == 1).all()) and bool((err[over] == math.inf).all())
                and bool((err[rest] >= 0).all() & err[rest].isfinite().all()) and bool((back[rest] <= tol[rest]).all()))

    check.forall(error_calls, error_holds,
                 "Elementwise |x - x.to(dtype)| / |x| for a float32 or float64 x of any shape (zero-size ones too), "
                 "same shape, computed in float64 (or float32 for a float32 x): underflow to 0 gives 1, overflow to "
                 "inf gives inf, and a value beside the largest number or the smallest subnormal rounds as "
                 ".to(dtype) rounds it.",
                 cases=error_cases())

    error_leaves_x = unchanged_by(roundtrip_rel_error)  # c[0] as it was after roundtrip_rel_error(*c)

    check.forall(error_calls, error_leaves_x, "x itself is not modified: compute the error in a new tensor.",
                 cases=error_cases())

### BEGIN HIDDEN TESTS
import numpy as np
from gpucourse.checks import requirement as _requirement


def _unambiguous(x, dtype):
    """x without the rare float64 values that round differently through float32 than directly: those whose
    float32 value is a tie between two dtype numbers (each is replaced by its float32 value, which is not)."""
    if x.dtype != torch.float64:
        return x
    x32 = x.float()
    up = torch.nextafter(x32, torch.tensor(float("inf"))).to(dtype)
    down = torch.nextafter(x32, torch.tensor(float("-inf"))).to(dtype)
    tie = (up != down) & (x32.to(dtype) != x32)
    return torch.where(tie, x32.double(), x)


def _expected_error(x, dtype):
    if dtype == torch.float16:   # NumPy's own float16 rounding, independent of torch
        with np.errstate(over="ignore"):
            low = torch.from_numpy(x.numpy().astype(np.float16).astype(np.float64))
    else:
        low = x.to(dtype).double()
    return (x.double() - low).abs() / x.double().abs()


for _dtype in (torch.float16, torch.bfloat16):
    for _wide, _float32_values in ((torch.float32, True), (torch.float64, True), (torch.float64, False)):
        _x = torch.randn(7, 9, dtype=torch.float64) * torch.pow(10.0, torch.empty(7, 9).uniform_(-12, 8)).double()
        _x = _unambiguous(_x.float().to(_wide) if _float32_values else _x, _dtype)
        _x[_x == 0] = 1.0
        with _requirement(f"roundtrip_rel_error(x, {_dtype}) for a {_wide} x "
                          f"{'holding float32 values' if _float32_values else 'with all its digits'}: "
                          "|x - x.to(dtype)| / |x| elementwise, in float64 or in x's own dtype"):
            _got = roundtrip_rel_error(_x, _dtype)
            assert isinstance(_got, torch.Tensor) and _got.shape == _x.shape, "a tensor of x's shape"
            assert _got.dtype in ((torch.float32, torch.float64) if _wide == torch.float32 else (torch.float64,)), \
                f"returned as {_got.dtype}"
            _exp = _expected_error(_x, _dtype)
            _rtol = 1e-6 if _wide == torch.float32 else 1e-9    # float32 arithmetic is enough for a float32 x
            _bad = ~torch.isclose(_got.double(), _exp, rtol=_rtol, atol=1e-15)
            assert not bool(_bad.any()), \
                f"x = {_x[_bad][0].item()!r}: got {_got[_bad][0].item()!r}, expected {_exp[_bad][0].item()!r}"
            assert bool((_got >= 0).all()), "an error is never negative"
with _requirement("roundtrip_rel_error: underflow to 0 gives 1, overflow to inf gives inf, exact values give 0"):
    _under = roundtrip_rel_error(torch.tensor([1e-9, -1e-9]), torch.float16)
    assert torch.allclose(_under.double(), torch.ones(2, dtype=torch.float64)), "underflow to 0 is an error of 1"
    assert bool(torch.isinf(roundtrip_rel_error(torch.tensor([-1e5]), torch.float16)).all()), "overflow: inf"
    assert float(roundtrip_rel_error(torch.tensor([1e5]), torch.bfloat16)[0]) < 2**-8, "bfloat16 holds 1e5"
    _exact = roundtrip_rel_error(torch.tensor([0.5, 1.0, -2.0, 1024.0]), torch.bfloat16)
    assert bool((_exact == 0).all()), "powers of two are exact"
    _small = torch.tensor([1.0 + 2.0**-12])
    assert float(roundtrip_rel_error(_small, torch.float16)[0]) > 0, \
        "a difference below float16's eps must not be rounded away"
from gpucourse.contract import for_all as _for_all
with _requirement("roundtrip_rel_error keeps the whole contract for a float32 or float64 x of any shape (zero-size "
                  "too) and values across and beyond both 16-bit ranges: same shape, float64 (or float32 for a "
                  "float32 x), 1 on underflow, inf on overflow, |x| × (1 ± error) = |x.to(dtype)|, x unchanged"):
    def _more_error_cases():
        cases = error_cases()
        for _dtype in (torch.float16, torch.bfloat16):
            for _seed, _shape in enumerate(((0,), (1,), (5,), (3, 1), (1, 4), (2, 0), (2, 3, 4), (1, 1, 1))):
                cases += [(spread(_kind, _shape, _seed, _dtype), _dtype) for _kind in (torch.float32, torch.float64)]
        return cases

    _for_all(error_calls, error_holds, "the error of each element, in x's shape", examples=300,
             cases=_more_error_cases())
    _for_all(error_calls, error_leaves_x, "x is not modified", examples=100, cases=error_cases())
### END HIDDEN TESTS

# %% [markdown] fixtures="roundtrip_rel_error"
# ### Mistakes and correct alternatives for `roundtrip_rel_error` (author-only: in no generated notebook)
#
# **mistake `low-precision-diff`**, sample, loses `test_roundtrip_rel_error`: computes the difference in the 16-bit dtype
# ```diff
# @@
# -    wide = x.double()
# -    return (wide - x.to(dtype).double()).abs() / wide.abs()
# +    low = x.to(dtype)
# +    return (x.to(dtype) - low).abs() / x.to(dtype).abs() + (x - low.to(x.dtype)).abs() / x.abs() * 0
# ```
#
# **mistake `relative-to-rounded`**, loses `test_roundtrip_rel_error`: divides by the rounded value: underflow gives inf, overflow nan
# ```diff
# @@
# -    wide = x.double()
# -    return (wide - x.to(dtype).double()).abs() / wide.abs()
# +    low = x.to(dtype).double()
# +    return (x.double() - low).abs() / low.abs()
# ```
#
# **mistake `absolute`**, loses `test_roundtrip_rel_error`: absolute, not relative, error
# ```diff
# @@
# -    wide = x.double()
# -    return (wide - x.to(dtype).double()).abs() / wide.abs()
# +    return (x.double() - x.to(dtype).double()).abs()
# ```
#
# **mistake `no-abs`**, loses `test_roundtrip_rel_error`: forgets the absolute values
# ```diff
# @@
# -    wide = x.double()
# -    return (wide - x.to(dtype).double()).abs() / wide.abs()
# +    return (x.double() - x.to(dtype).double()) / x.double()
# ```
#
# **mistake `float32-first`**, loses `test_roundtrip_rel_error`: casts x to float32 first: a float64 x loses its digits
# ```diff
# @@
# -    wide = x.double()
# -    return (wide - x.to(dtype).double()).abs() / wide.abs()
# +    x = x.float()
# +    return (x - x.to(dtype).float()).abs() / x.abs()
# ```
#
# **mistake `finfo-tiny`**, loses `test_roundtrip_rel_error`: error 1 below the smallest normal (finfo.tiny), though subnormals survive
# ```diff
# @@
# -    return (wide - x.to(dtype).double()).abs() / wide.abs()
# +    err = (wide - x.to(dtype).double()).abs() / wide.abs()
# +    return torch.where(wide.abs() < torch.finfo(dtype).tiny, torch.ones_like(err), err)
# ```
#
# **mistake `float32-result`**, loses `test_roundtrip_rel_error`: computes in float64 but hands the error back as float32
# ```diff
# @@
# -    return (wide - x.to(dtype).double()).abs() / wide.abs()
# +    return ((wide - x.to(dtype).double()).abs() / wide.abs()).float()
# ```
#
# **mistake `clamp-one`**, loses `test_roundtrip_rel_error`: caps the error at 1, as if a relative error could not exceed 100 %
# ```diff
# @@
# -    return (wide - x.to(dtype).double()).abs() / wide.abs()
# +    return ((wide - x.to(dtype).double()).abs() / wide.abs()).clamp(max=1.0)
# ```
#
# **mistake `max-error`**, loses `test_roundtrip_rel_error`: returns the worst error of the tensor, not one per element
# ```diff
# @@
# -    return (wide - x.to(dtype).double()).abs() / wide.abs()
# +    return ((wide - x.to(dtype).double()).abs() / wide.abs()).max()
# ```
#
# **alternative `own-dtype`**: computes in x's own dtype (float32 for float32, float64 for float64)
# ```python
# def roundtrip_rel_error(x, dtype):
#     back = x.to(dtype).to(x.dtype)
#     return (x - back).abs() / x.abs()
# ```
#
# **alternative `numpy-direct-error`**: NumPy, which rounds a float64 directly to float16 (not through float32)
# ```python
# import numpy as np
#
# def roundtrip_rel_error(x, dtype):
#     wide = x.detach().cpu().numpy().astype(np.float64)
#     if dtype == torch.float16:
#         with np.errstate(over="ignore"):
#             back = wide.astype(np.float16).astype(np.float64)
#     else:   # NumPy has no bfloat16
#         back = x.detach().to(dtype).double().cpu().numpy()
#     return torch.from_numpy(np.abs(wide - back) / np.abs(wide))
# ```
#
# **alternative `float64-ops`**: torch.abs and .to(float64)
# ```python
# def roundtrip_rel_error(x, dtype):
#     back = x.to(dtype).to(torch.float64)
#     return torch.abs(x.to(torch.float64) - back) / torch.abs(x.to(torch.float64))
# ```
#
# **alternative `div-sub`**: |1 - low / x|: the same number, one operation fewer
# ```python
# def roundtrip_rel_error(x, dtype):
#     _x = x.double()
#     return (1 - x.to(dtype).double() / _x).abs()
# ```
#
# **alternative `sub-ops`**: torch.sub and in-place ops on a copy
# ```python
# def roundtrip_rel_error(x, dtype):
#     wide = x.detach().clone().double()
#     err = torch.sub(wide, x.to(dtype).double()).abs_()
#     return err.div_(wide.abs())
# ```
#
# **clauses of `roundtrip_rel_error`**
# - "Elementwise |x - x.to(dtype)|": visible "never negative" by `no-abs`
# - "/ |x|": visible "the error relative to |x| is 1/2049" by `relative-to-rounded`, `absolute`
# - "same shape": visible "Return a tensor of the same shape as x" by `max-error`
# - "for a float32 or float64 tensor x without zeros": no requirement (it states the inputs: the tests pass float32 and float64 tensors and never a zero)
# - "Computed in float64": visible "never in dtype, where it is rounded away" by `low-precision-diff`
# - "(or in float32 when x is float32)": allows `own-dtype`
# - "returned in float64": visible "For a float64 x, compute and return the error in float64" by `float32-result`
# - "(for a float32 x, a float32 result is accepted too)": allows `own-dtype`
# - "never by casting a float64 x to float32 first": visible "do not cast x to float32 first" by `float32-first`
# - "Underflow to 0 gives 1": visible "only a value that underflows to 0 has error 1" by `finfo-tiny`
# - "overflow to inf gives inf": visible "its error is inf" by `clamp-one`
# - "x.to(dtype) may round a float64 through float32 (PyTorch) or directly (NumPy): both are accepted.": allows `numpy-direct-error`, `float64-ops`

# %% [markdown] id="s2"
# ### Round-trip error over 80 orders of magnitude
#
# With your function, the error of storing each magnitude from 10⁻⁴⁴ to 10³⁸ in each 16-bit type:

# %% id="s2-plot"
x = torch.logspace(-44, 38.5, 20_000, dtype=torch.float64).to(torch.float32)   # float32 values, no zeros
if needs("roundtrip_rel_error"):
    fig, ax = plt.subplots(figsize=(10, 3.8))
    for dtype, colour in ((torch.bfloat16, "tab:orange"), (torch.float16, "tab:blue")):
        err = roundtrip_rel_error(x, dtype).double()
        worst = err.reshape(-1, 50).amax(dim=1)                   # the worst error in each bin of 50 magnitudes
        centre = x.double().reshape(-1, 50).median(dim=1).values
        shown = worst.clamp(min=1e-9).nan_to_num(posinf=30.0)      # inf drawn at the top
        ax.plot(centre.numpy(), shown.numpy(), lw=1.6, color=colour, label=f"{short(dtype)} (worst error per bin)")
        ax.axhline(torch.finfo(dtype).eps / 2, color=colour, ls=":", lw=1)
    ax.set(xscale="log", yscale="log", ylim=(1e-5, 100), xlabel="|x|", ylabel="relative round-trip error",
           title="range versus precision: float16 and bfloat16 (dotted: eps/2, the flat precision band)")
    ax.axhline(1, color="grey", lw=0.6)
    ax.text(1e-40, 1.6, "error 1: underflow to 0", fontsize=8)
    ax.text(1e6, 40, "inf: overflow", fontsize=8, color="tab:blue")
    ax.axvline(65504, color="tab:blue", lw=0.6, ls="--")
    ax.axvline(2**-24, color="tab:blue", lw=0.6, ls="--")
    ax.legend(loc="lower left", fontsize=8)
    fig.tight_layout()
    plt.show()

# %% [markdown] id="s2-read"
# Left to right: bfloat16's flat band starts where float32's normal range starts (about 10⁻³⁸; below it both are
# subnormal and lose precision); float16 underflows to 0 below about 3·10⁻⁸ (half its smallest subnormal,
# 2⁻²⁴ ≈ 6·10⁻⁸), and its subnormals lose precision up to its smallest normal, 2⁻¹⁴ ≈ 6·10⁻⁵, where its band starts. In the flat band, the relative error stays
# below eps/2: 2⁻¹¹ ≈ 5·10⁻⁴ for float16, 2⁻⁸ ≈ 4·10⁻³ for bfloat16, **8 times coarser**. Above 65504 float16
# overflows to `inf`, while bfloat16 carries on to 3.4·10³⁸. bfloat16 trades precision for float32's range.

# %% [markdown] id="s3"
# ## 2. Which GPUs compute bfloat16?
#
# Native bfloat16 arithmetic (and bfloat16 tensor cores) came with NVIDIA's Ampere generation, **compute capability
# 8.0**. Every GPU at 8.0 or above has it, not just the data-centre A100 and H100: A10, L4, RTX 30xx and 40xx too.

# %% id="s3-table"
for name, capability in GPU_CAPABILITIES:
    print(f"  {name:<28} {capability[0]}.{capability[1]}   native bf16: {'yes' if native_bf16(capability) else 'no'}")
if torch.cuda.is_available():
    capability = torch.cuda.get_device_capability()
    print(f"This GPU: {torch.cuda.get_device_name()} ({capability[0]}.{capability[1]}), "
          f"native bf16: {native_bf16(capability)}")
else:
    print("This machine has no CUDA GPU. The CPU runs bfloat16 autocast too (speed depends on the CPU).")

# %% [markdown] id="s3-myth"
# > **Myth vs. current PyTorch:** "bfloat16 is available on A100, H100 and newer; `torch.cuda.is_bf16_supported()`
# > tells you whether your GPU has it." Native bfloat16 means compute capability ≥ 8.0, which includes the A10, L4
# > and RTX 30xx/40xx. And on a T4 (7.5) `torch.cuda.is_bf16_supported()` returns **True**: since PyTorch 2.3 it
# > counts software emulation (it just tries to create a bfloat16 tensor). bfloat16 autocast then runs on a T4,
# > without tensor cores and slowly, and `torch.compile`'s inductor skips bfloat16 graphs there. Ask
# > `torch.cuda.is_bf16_supported(including_emulation=False)` or check `torch.cuda.get_device_capability() >= (8, 0)`.
#
# The function's own source shows it:

# %% id="s3-source"
import inspect
source = inspect.getsource(torch.cuda.is_bf16_supported)
start = source.find("if torch.version.hip")
body = source[start:] if start >= 0 else source        # the decision, without the docstring
print("\n".join(line for line in body.splitlines() if line.strip() and not line.strip().startswith("#")))
if torch.cuda.is_available():
    print("\nOn this GPU: is_bf16_supported() =", torch.cuda.is_bf16_supported(),
          "| including_emulation=False:", torch.cuda.is_bf16_supported(including_emulation=False))


# %% [markdown] id="ex3"
# ## Exercise 3: `choose_amp_dtype` (3 points)
#
# Write `choose_amp_dtype(device)` returning `(dtype, use_scaler)` for mixed-precision training on `device` (a
# `torch.device` or a string like `"cuda"`, `"cuda:0"`, `"cpu"`):
#
# - CUDA with compute capability ≥ 8.0: `(torch.bfloat16, False)`: native bfloat16, no scaler needed;
# - older CUDA GPUs (a T4 is 7.5): `(torch.float16, True)`: float16 tensor cores, with a `GradScaler`;
# - the CPU: `(torch.bfloat16, False)`: CPU autocast's default, no scaler.
#
# `use_scaler` is a `bool`. Every spelling of a CUDA device counts (`"cuda"`, `"cuda:0"`, `torch.device("cuda")`), and
# the device you are given decides, not the machine: `"cpu"` gets the CPU's answer even on a machine with a T4.
# Decide by the compute capability (`torch.cuda.get_device_capability(device)`), not by
# `torch.cuda.is_bf16_supported()`. The tests fake GPUs of several capabilities, so your code is graded on a CPU.
# (Other device types, such as `"mps"`, are not graded.)

# %% nbgrader={"grade": false, "grade_id": "choose_amp_dtype", "locked": false, "schema_version": 3, "solution": true}
def choose_amp_dtype(device):
    """(dtype, use_scaler): (bfloat16, False) on a CUDA device of compute capability >= 8.0 and on
    the CPU; (float16, True) on older CUDA GPUs. device: a torch.device or a string ("cuda", "cuda:0",
    "cpu"); the device given decides, not the machine (the CPU stays the CPU beside a GPU). Decide by
    torch.cuda.get_device_capability(device), not by torch.cuda.is_bf16_supported() (True on a T4,
    by emulation). On a machine whose GPUs differ in capability, asking the given device or the current one
    (is_bf16_supported(including_emulation=False) does) are both accepted. use_scaler is a bool."""
    ### BEGIN SOLUTION
    device = torch.device(device)
    if device.type == "cuda":
        if tuple(torch.cuda.get_device_capability(device)) >= (8, 0):
            return torch.bfloat16, False
        return torch.float16, True
    return torch.bfloat16, False
    ### END SOLUTION


# %% nbgrader={"grade": true, "grade_id": "test_choose_amp_dtype", "locked": true, "points": 3, "schema_version": 3, "solution": false}
from gpucourse.amp import fake_gpu
from gpucourse.checks import Check

def _choice(spelling):
    """choose_amp_dtype(spelling), or the error it raised as text (so that the check's hint shows what came back)."""
    try:
        return choose_amp_dtype(spelling)
    except Exception as error:
        return f"{type(error).__name__}: {error}"

with Check("choose_amp_dtype") as check:
    got = check.call(choose_amp_dtype, "cpu")
    check.equal(got, (torch.bfloat16, False), "On the CPU: bfloat16 autocast, no scaler")
    with fake_gpu(capability=(8, 0), name="A100"):
        check.equal(choose_amp_dtype("cuda"), (torch.bfloat16, False),
                    "An A100 (8.0) has native bfloat16: compute capability >= 8.0 includes 8.0")
    check.that(type(got[1]) is bool, f"use_scaler is a bool: True or False (got {got[1]!r}).")
    with fake_gpu(capability=(8, 6), name="RTX 3090"):
        check.equal(_choice(torch.device("cuda")), (torch.bfloat16, False),
                    "device may be a torch.device, not only a string: torch.device('cuda') on an 8.6 GPU")
    with fake_gpu(capability=(7, 5), name="Tesla T4"):
        got = _choice(torch.device("cuda"))
        check.equal(got[0], torch.float16,
                    "A T4 (7.5) has float16 tensor cores and no native bfloat16: decide by "
                    "torch.cuda.get_device_capability(device), not by torch.cuda.is_bf16_supported().")
        check.equal(got[1], True, "(float16, True) on older CUDA GPUs: float16 needs a GradScaler, use_scaler True.")
        check.equal(_choice("cuda:0"), (torch.float16, True),
                    "'cuda:0' is a CUDA device too: decide by the device's type, not by the exact string")
        check.equal(_choice("cpu"), (torch.bfloat16, False),
                    "On a machine with a T4, 'cpu' is still the CPU: the device given decides, not the machine")
        check.equal(_choice(torch.device("cpu")), (torch.bfloat16, False),
                    "device may be a torch.device: torch.device('cpu') is the CPU too, beside a T4 as well")
    # the whole contract, over its domain: every compute capability (up to 12.x), every spelling of a CUDA device on a
    # machine with two GPUs alike ("cuda:1" too), the CPU in both spellings beside any GPU or none, whatever CPU
    # autocast's default dtype is
    from hypothesis import strategies as st
    from gpucourse.fakes import fake_accelerators

    CUDA_SPELLINGS = ("cuda", "cuda:0", "cuda:1", torch.device("cuda"), torch.device("cuda", 0),
                      torch.device("cuda", 1))
    CPU_SPELLINGS = ("cpu", torch.device("cpu"))
    CAPABILITIES = ((3, 5), (5, 2), (6, 0), (6, 1), (7, 0), (7, 2), (7, 5), (8, 0), (8, 6), (8, 7), (8, 9), (9, 0),
                    (10, 0), (10, 3), (11, 0), (12, 0), (12, 1))
    capabilities = st.tuples(st.integers(3, 12), st.integers(0, 9))

    def by_capability(c):
        """(bfloat16, False) on a CUDA device of capability >= 8.0, else (float16, True), use_scaler a bool."""
        capability, device = c
        with fake_accelerators(cuda=True, capability=capability, count=2):
            got = choose_amp_dtype(device)
        want = (torch.bfloat16, False) if capability >= (8, 0) else (torch.float16, True)
        return got == want and type(got[1]) is bool

    check.forall(st.tuples(capabilities, st.sampled_from(CUDA_SPELLINGS)), by_capability,
                 "(bfloat16, False) on a CUDA device of compute capability >= 8.0, (float16, True) on an older one, "
                 "use_scaler a bool: for every capability (10.x, 11.x and 12.x too: compare (major, minor) as "
                 "numbers) and every spelling of a CUDA device ('cuda', 'cuda:1', torch.device('cuda', 1), ...).",
                 cases=[(capability, device) for capability in CAPABILITIES for device in CUDA_SPELLINGS])

    def cpu_choice(c):
        """(bfloat16, False) on the CPU, beside a GPU of any capability or none (None), whatever CPU autocast's
        default dtype is (another cell, or the caller, may have set it)."""
        capability, device, autocast_default = c
        saved = torch.get_autocast_dtype("cpu")
        torch.set_autocast_dtype("cpu", autocast_default)
        try:
            with fake_accelerators(cuda=capability is not None, capability=capability or (7, 5), count=2):
                got = choose_amp_dtype(device)
        finally:
            torch.set_autocast_dtype("cpu", saved)
        return got == (torch.bfloat16, False) and type(got[1]) is bool

    check.forall(st.tuples(st.none() | capabilities, st.sampled_from(CPU_SPELLINGS),
                           st.sampled_from([torch.bfloat16, torch.float16])), cpu_choice,
                 "On the CPU, (bfloat16, False), use_scaler a bool: in both spellings, beside a GPU of any capability "
                 "or none, and whatever CPU autocast's default dtype is (here set to float16): name bfloat16.",
                 cases=[(capability, device, default) for capability in (None, (7, 5), (9, 0))
                        for device in CPU_SPELLINGS for default in (torch.float16, torch.bfloat16)])

### BEGIN HIDDEN TESTS
from gpucourse.checks import requirement as _requirement
for _capability, _expected in [((6, 0), (torch.float16, True)), ((6, 1), (torch.float16, True)),
                               ((7, 0), (torch.float16, True)), ((7, 5), (torch.float16, True)),
                               ((8, 0), (torch.bfloat16, False)), ((8, 6), (torch.bfloat16, False)),
                               ((8, 9), (torch.bfloat16, False)), ((9, 0), (torch.bfloat16, False)),
                               ((10, 0), (torch.bfloat16, False)), ((12, 0), (torch.bfloat16, False))]:
    with _requirement(f"choose_amp_dtype on a CUDA device of capability {_capability}, in any spelling, "
                      f"returns {_expected} by the capability (not is_bf16_supported), use_scaler a bool"), \
            fake_gpu(capability=_capability):
        for _device in ("cuda", "cuda:0", torch.device("cuda"), torch.device("cuda", 0)):
            _got = choose_amp_dtype(_device)
            assert tuple(_got) == _expected, f"device {_device!r}: got {_got}"
            assert type(_got[1]) is bool, f"use_scaler {_got[1]!r} is not a bool"
    with _requirement(f"choose_amp_dtype('cpu') returns (torch.bfloat16, False) on a machine with a "
                      f"{_capability} GPU too: the device given decides, not the machine"), \
            fake_gpu(capability=_capability):
        assert tuple(choose_amp_dtype("cpu")) == (torch.bfloat16, False), "'cpu'"
        assert tuple(choose_amp_dtype(torch.device("cpu"))) == (torch.bfloat16, False), "torch.device('cpu')"
with _requirement("choose_amp_dtype('cpu') returns use_scaler as a bool"):
    assert type(choose_amp_dtype("cpu")[1]) is bool
from gpucourse.contract import for_all as _for_all
with _requirement("choose_amp_dtype keeps the whole contract: by the capability (any (major, minor)) for every "
                  "spelling of a CUDA device, (bfloat16, False) on the CPU beside any GPU or none and whatever CPU "
                  "autocast's default dtype, use_scaler a bool"):
    _for_all(st.tuples(capabilities, st.sampled_from(CUDA_SPELLINGS)), by_capability,
             "(bfloat16, False) from capability 8.0 on, (float16, True) below it, use_scaler a bool", examples=300,
             cases=[((_major, _minor), _device) for _major in range(3, 13) for _minor in range(10)
                    for _device in CUDA_SPELLINGS])
    _for_all(st.tuples(st.none() | capabilities, st.sampled_from(CPU_SPELLINGS),
                       st.sampled_from([torch.bfloat16, torch.float16])), cpu_choice,
             "(bfloat16, False) on the CPU", examples=100,
             cases=[(_capability, _device, _default) for _capability in (None, (6, 1), (7, 5), (8, 0), (12, 0))
                    for _device in CPU_SPELLINGS for _default in (torch.float16, torch.bfloat16)])
### END HIDDEN TESTS

# %% [markdown] fixtures="choose_amp_dtype"
# ### Mistakes and correct alternatives for `choose_amp_dtype` (author-only: in no generated notebook)
#
# **mistake `trusts-is-bf16-supported`**, sample, loses `test_choose_amp_dtype`: is_bf16_supported() is True on a T4 by emulation
# ```diff
# @@
# -    if device.type == "cuda":
# -        if tuple(torch.cuda.get_device_capability(device)) >= (8, 0):
# -            return torch.bfloat16, False
# +    if device.type == "cuda" and not torch.cuda.is_bf16_supported():
# ```
#
# **mistake `bf16-with-scaler`**, loses `test_choose_amp_dtype`: uses a scaler with bfloat16
# ```diff
# @@
# -    if device.type == "cuda":
# -        if tuple(torch.cuda.get_device_capability(device)) >= (8, 0):
# -            return torch.bfloat16, False
# +    if device.type == "cuda" and torch.cuda.get_device_capability(device) < (8, 0):
# @@
# -    return torch.bfloat16, False
# +    return torch.bfloat16, True
# ```
#
# **mistake `strictly-above-8`**, loses `test_choose_amp_dtype`: leaves out the A100 itself (8.0)
# ```diff
# @@
# -        if tuple(torch.cuda.get_device_capability(device)) >= (8, 0):
# +        if torch.cuda.get_device_capability(device) > (8, 0):
# ```
#
# **mistake `machine-not-device`**, loses `test_choose_amp_dtype`: looks at the machine, not at the device asked about
# ```diff
# @@
# -    device = torch.device(device)
# -    if device.type == "cuda":
# -        if tuple(torch.cuda.get_device_capability(device)) >= (8, 0):
# +    if torch.cuda.is_available():
# +        if torch.cuda.get_device_capability() >= (8, 0):
# ```
#
# **mistake `cpu-float16`**, loses `test_choose_amp_dtype`: float16 with a scaler on the CPU
# ```diff
# @@
# -    if device.type == "cuda":
# -        if tuple(torch.cuda.get_device_capability(device)) >= (8, 0):
# -            return torch.bfloat16, False
# -        return torch.float16, True
# -    return torch.bfloat16, False
# +    if device.type == "cuda" and torch.cuda.get_device_capability(device) >= (8, 0):
# +        return torch.bfloat16, False
# +    return torch.float16, True
# ```
#
# **mistake `string-equals-cuda`**, loses `test_choose_amp_dtype`: compares the string: misses 'cuda:0'
# ```diff
# @@
# -    device = torch.device(device)
# -    if device.type == "cuda":
# +    if str(device) == "cuda":
# ```
#
# **mistake `scaler-as-int`**, loses `test_choose_amp_dtype`: use_scaler as 0 or 1, not a bool
# ```diff
# @@
# -            return torch.bfloat16, False
# -        return torch.float16, True
# -    return torch.bfloat16, False
# +            return torch.bfloat16, 0
# +        return torch.float16, 1
# +    return torch.bfloat16, 0
# ```
#
# **mistake `old-gpu-no-scaler`**, loses `test_choose_amp_dtype`: float16 on an older GPU, but without a scaler
# ```diff
# @@
# -        return torch.float16, True
# +        return torch.float16, False
# ```
#
# **mistake `string-only`**, loses `test_choose_amp_dtype`: reads the device as a string with str methods: a torch.device has none
# ```diff
# @@
# -    device = torch.device(device)
# -    if device.type == "cuda":
# +    if device.startswith("cuda"):
# ```
#
# **mistake `cpu-string-only`**, loses `test_choose_amp_dtype`: knows the CPU only as the string "cpu"
# ```diff
# @@
# -    device = torch.device(device)
# -    if device.type == "cuda":
# +    if device != "cpu":
# ```
#
# **alternative `native-flag`**: asks is_bf16_supported for native support only (including_emulation=False)
# ```python
# def choose_amp_dtype(device):
#     if torch.device(device).type == "cuda" and not torch.cuda.is_bf16_supported(including_emulation=False):
#         return torch.float16, True
#     return torch.bfloat16, False
# ```
#
# **alternative `capability-major`**: compares the major version only
# ```python
# def choose_amp_dtype(device):
#     if torch.device(device).type != "cuda":
#         return torch.bfloat16, False
#     major, _minor = torch.cuda.get_device_capability(device)
#     return (torch.bfloat16, False) if major >= 8 else (torch.float16, True)
# ```
#
# **alternative `string-device`**: reads the device as a string
# ```python
# def choose_amp_dtype(device):
#     _name = str(device)
#     if _name.startswith("cuda") and torch.cuda.get_device_capability(device) < (8, 0):
#         return (torch.float16, True)
#     return (torch.bfloat16, False)
# ```
#
# **alternative `warn-cpu`**: a warning on the CPU, the device index, capability as a number
# ```python
# import warnings
#
# def choose_amp_dtype(device):
#     device = torch.device(device)
#     if device.type == "cpu":
#         warnings.warn("autocast on the CPU is slow for small models")
#         return torch.bfloat16, False
#     cap = torch.cuda.get_device_capability(device.index if device.index is not None else 0)
#     use_bf16 = cap[0] * 10 + cap[1] >= 80
#     return (torch.bfloat16 if use_bf16 else torch.float16), not use_bf16
# ```
#
# **clauses of `choose_amp_dtype`**
# - "(dtype, use_scaler): (bfloat16, False) on a CUDA device of compute capability >= 8.0": visible "compute capability >= 8.0 includes 8.0" by `strictly-above-8`
# - "(bfloat16, False) on a CUDA device of compute capability >= 8.0 and on the CPU": visible "On the CPU: bfloat16 autocast, no scaler" by `cpu-float16`, `bf16-with-scaler`
# - "(float16, True) on older CUDA GPUs.": visible "(float16, True) on older CUDA GPUs" by `old-gpu-no-scaler`
# - "device: a torch.device": visible "device may be a torch.device" by `string-only`
# - "or a string ("cuda", "cuda:0", "cpu")": visible "'cuda:0' is a CUDA device too" by `string-equals-cuda`
# - "or a string ("cuda", "cuda:0", "cpu")": allows `string-device`
# - "the device given decides, not the machine (the CPU stays the CPU beside a GPU).": visible "the device given decides, not the machine" by `machine-not-device`
# - "Decide by torch.cuda.get_device_capability(device), not by torch.cuda.is_bf16_supported() (True on a T4, by emulation).": visible "not by torch.cuda.is_bf16_supported()" by `trusts-is-bf16-supported`
# - "Decide by torch.cuda.get_device_capability(device)": allows `capability-major`, `warn-cpu`
# - "On a machine whose GPUs differ in capability, asking the given device or the current one (is_bf16_supported(including_emulation=False) does) are both accepted.": allows `native-flag`
# - "use_scaler is a bool.": visible "use_scaler is a bool" by `scaler-as-int`
# - "device: a torch.device or a string": visible "torch.device('cpu') is the CPU too" by `cpu-string-only`

# %% [markdown] id="ex4"
# ## Exercise 4: `bf16_train_step` (2 points)
#
# Write `bf16_train_step(model, x, y, optimizer, criterion, device_type)`: one training step with bfloat16 autocast
# and **no scaler**: zero the gradients, forward and loss under
# `torch.autocast(device_type=device_type, dtype=torch.bfloat16)`, backward, optimizer step. Return the loss as a
# Python `float`. The parameters stay float32 (no `model.bfloat16()`).

# %% nbgrader={"grade": false, "grade_id": "bf16_train_step", "locked": false, "schema_version": 3, "solution": true}
def bf16_train_step(model, x, y, optimizer, criterion, device_type) -> float:
    """One training step: optimizer.zero_grad(), forward and loss under torch.autocast(device_type,
    dtype=torch.bfloat16) (the loss may also follow the block), loss.backward(), optimizer.step(); no
    gradient scaler, and the parameters stay float32 (no model.bfloat16()). Returns the batch's loss,
    from before the step, as a float."""
    ### BEGIN SOLUTION
    optimizer.zero_grad(set_to_none=True)
    with torch.autocast(device_type=device_type, dtype=torch.bfloat16):
        loss = criterion(model(x), y)
    loss.backward()
    optimizer.step()
    return loss.item()
    ### END SOLUTION


# %% nbgrader={"grade": true, "grade_id": "test_bf16_train_step", "locked": true, "points": 2, "schema_version": 3, "solution": false}
import copy
import math
import warnings
from gpucourse.amp import OpDtypes
from gpucourse.checks import Check

with Check("bf16_train_step") as check, warnings.catch_warnings():
    warnings.simplefilter("ignore")
    model = torch.nn.Sequential(torch.nn.Linear(6, 8), torch.nn.ReLU(), torch.nn.Linear(8, 3))
    x, y = torch.randn(12, 6), torch.randint(0, 3, (12,))
    with torch.no_grad(), torch.autocast(device_type="cpu", dtype=torch.bfloat16):
        logits = model(x)
        loss_before = torch.nn.functional.cross_entropy(logits, y).item()   # this batch's loss, before the step
    with torch.no_grad():   # the loss may also follow the block: then it is the bfloat16 output's, as it is
        loss_after_block = torch.nn.functional.cross_entropy(logits, y).item()
    for p in model.parameters():
        p.grad = torch.full_like(p, 100.0)            # stale gradients that must be zeroed
    before = [p.detach().clone() for p in model.parameters()]
    with OpDtypes() as ops:
        loss = check.call(bf16_train_step, model, x, y, torch.optim.SGD(model.parameters(), lr=0.5),
                          torch.nn.CrossEntropyLoss(), "cpu")
    check.that(isinstance(loss, float), f"Return the loss as a Python float (loss.item()) (got {type(loss).__name__})")
    check.that(all(p.dtype == torch.float32 for p in model.parameters()),
               "Keep the parameters float32: use autocast, not model.bfloat16().")
    check.that(any(op in ("addmm", "mm", "matmul", "linear") and out == torch.bfloat16 for op, _, out in ops.rows),
               "Run the forward pass under torch.autocast(device_type=device_type, dtype=torch.bfloat16).")
    moved = max((p.detach() - q).abs().max().item() for p, q in zip(model.parameters(), before))
    check.that(moved > 0, "The step must update the parameters: loss.backward(), then optimizer.step().")
    check.that(moved < 20, "The step used stale gradients: call optimizer.zero_grad() before the backward pass.")
    check.that(any(math.isclose(loss, ref, rel_tol=2e-3) for ref in (loss_before, loss_after_block)),
               f"Return the batch's loss from before the step (the optimizer step changes it). (got {loss!r})")
    # autocast's default dtype differs by device (float16 on CUDA): the step must ask for bfloat16 by name
    model = torch.nn.Sequential(torch.nn.Linear(5, 7), torch.nn.ReLU(), torch.nn.Linear(7, 4))
    x, y = torch.randn(10, 5), torch.randint(0, 4, (10,))
    cpu_default = torch.get_autocast_dtype("cpu")
    torch.set_autocast_dtype("cpu", torch.float16)
    try:
        with OpDtypes() as ops:
            check.call(bf16_train_step, model, x, y, torch.optim.SGD(model.parameters(), lr=0.0),
                       torch.nn.CrossEntropyLoss(), "cpu")
    finally:
        torch.set_autocast_dtype("cpu", cpu_default)
    matmuls = [out for op, _, out in ops.rows if op in ("addmm", "mm", "matmul", "linear")]
    check.that(torch.bfloat16 in matmuls and torch.float16 not in matmuls,
               "With autocast's default dtype set to float16 (CUDA's default), the step ran in float16: "
               "autocast with dtype=torch.bfloat16, whatever the default.")
    # no gradient scaler: the backward pass starts from the loss itself
    seen = {}
    def keep_output_grad(module, inputs, output):
        seen["logits"] = output.detach().float()
        if output.requires_grad:   # a forward pass without gradients is the one-forward property's to judge
            output.register_hook(lambda grad: seen.__setitem__("grad", grad.detach().float()))
    hook = model.register_forward_hook(keep_output_grad)
    try:
        check.call(bf16_train_step, model, x, y, torch.optim.SGD(model.parameters(), lr=0.0),
                   torch.nn.CrossEntropyLoss(), "cpu")
    finally:
        hook.remove()
    # the gradient of the mean cross-entropy with respect to the logits: (softmax - one-hot) / batch size
    expected = (torch.softmax(seen["logits"], dim=1) - torch.nn.functional.one_hot(y, 4)) / len(y)
    check.that("grad" in seen and torch.allclose(seen["grad"], expected, rtol=2e-2, atol=1e-3),
               "No gradient scaler with bfloat16: the gradient that reached the model's output was not the "
               "loss's own gradient (was the loss scaled?). Call backward on the loss itself.")
    # the whole contract, over its domain: the models the course builds (dropout and BatchNorm too), optimizers of
    # every kind it uses (several parameter groups too), criteria of every reduction, batches of 2 to 6
    import torch.nn.functional as F
    from hypothesis import strategies as st
    from gpucourse import domains
    from gpucourse.contract import snapshot

    MODEL_KINDS = ("Linear", "MLP", "MLP with dropout", "MLP with BatchNorm")          # domains.model_cases, in order
    OPTIMIZER_KINDS = ("SGD", "SGD with momentum", "AdamW", "SGD with two parameter groups")   # optimizer_cases
    CRITERIA = {"nn.CrossEntropyLoss()": torch.nn.CrossEntropyLoss(),
                "nn.CrossEntropyLoss(reduction='sum')": torch.nn.CrossEntropyLoss(reduction="sum"),
                "F.cross_entropy": F.cross_entropy,
                "nn.CrossEntropyLoss(label_smoothing=0.1)": torch.nn.CrossEntropyLoss(label_smoothing=0.1)}
    bf16_steps = st.tuples(st.sampled_from(MODEL_KINDS), st.sampled_from(OPTIMIZER_KINDS),
                           st.sampled_from(list(CRITERIA)), st.integers(2, 6), st.integers(0, 2**16))

    def bf16_step_cases(optimizers=OPTIMIZER_KINDS, every=False):
        """Every model, with the optimizers, the criteria and the batch sizes taken in turn (every=True: every model
        with every optimizer). A bfloat16 step is slow on most CPUs: the visible checks try few."""
        pairs = ([(m, o) for m in MODEL_KINDS for o in optimizers] if every
                 else [(m, optimizers[i % len(optimizers)]) for i, m in enumerate(MODEL_KINDS)])
        return [(m, o, list(CRITERIA)[i % 4], 2 + i % 5, i) for i, (m, o) in enumerate(pairs)]

    def bf16_step_parts(case):
        """(model, optimizer, criterion, x, y) for a case, all new, the same every time."""
        model_kind, optimizer_kind, criterion_name, n, seed = case
        model = domains.model_cases(in_features=5)[MODEL_KINDS.index(model_kind)]
        optimizer = domains.optimizer_cases(model)[OPTIMIZER_KINDS.index(optimizer_kind)]
        ((x, y),) = domains.batches([n], in_features=5, seed=seed)
        return model, optimizer, CRITERIA[criterion_name], x, y

    def bf16_step_run(case, stale=False, scale=1.0):
        """One bf16_train_step on a case's parts, dropout drawing from the case's seed (the global generator left as
        it was): (what it returned, the model after it). stale: a gradient of 100 on every parameter before the
        step; scale: the criterion scale times larger and every learning rate scale times smaller."""
        model, optimizer, criterion, x, y = bf16_step_parts(case)
        if stale:
            for p in model.parameters():
                p.grad = torch.full_like(p, 100.0)
        for group in optimizer.param_groups:
            group["lr"] /= scale
        with torch.random.fork_rng(devices=[]):
            torch.manual_seed(case[-1])
            got = bf16_train_step(model, x, y, optimizer, lambda out, target: scale * criterion(out, target), "cpu")
        return got, model

    def same_parameters(a, b):
        return all(torch.allclose(p, q, rtol=1e-6, atol=1e-7) for p, q in zip(a.parameters(), b.parameters()))

    def zeroes_every_group(case):
        """Stale gradients on every parameter, in every parameter group, change nothing: zero_grad comes first."""
        return same_parameters(bf16_step_run(case)[1], bf16_step_run(case, stale=True)[1])

    check.forall(bf16_steps, zeroes_every_group,
                 "One training step: optimizer.zero_grad() first, for every parameter the optimizer steps: with stale "
                 "gradients on the parameters (in every parameter group), the step must come out the same as without "
                 "them.",
                 examples=2, cases=bf16_step_cases(("SGD with two parameter groups",)))

    def steps_on_own_loss(case):
        """A criterion 2**10 times larger, with learning rates 2**10 times smaller, gives the same step and a loss
        2**10 times larger (SGD; AdamW normalizes the gradient): the step is the criterion's own loss.backward()
        and optimizer.step(), nothing scaled, clipped or added."""
        case = (case[0], "SGD" if case[1] == "AdamW" else case[1], *case[2:])
        (loss, model), (big_loss, big_model) = bf16_step_run(case), bf16_step_run(case, scale=2.0**10)
        return math.isclose(float(big_loss), float(loss) * 2**10, rel_tol=1e-6) and same_parameters(model, big_model)

    check.forall(bf16_steps, steps_on_own_loss,
                 "The loss comes from the criterion given, and the step is loss.backward() then optimizer.step() on "
                 "it, nothing scaled or clipped: a criterion 1024 times larger, with learning rates 1024 times "
                 "smaller, must give the same parameters and a loss 1024 times larger.",
                 examples=2, cases=bf16_step_cases(("SGD", "SGD with momentum", "SGD with two parameter groups")))

    def one_forward_one_loss(case):
        """The model runs once and the criterion once, with gradients on; backward goes through that loss, whose
        value comes back as a float; x and y unchanged."""
        model, optimizer, criterion, x, y = bf16_step_parts(case)
        forwards, losses, backwards = [], [], []

        def watched(out, target):
            loss = criterion(out, target)
            losses.append((torch.is_grad_enabled(), loss.item()))
            if loss.requires_grad:
                loss.register_hook(lambda grad: backwards.append(1))
            return loss

        hook = model.register_forward_pre_hook(lambda module, args: forwards.append(torch.is_grad_enabled()))
        before = snapshot(x), snapshot(y)
        try:
            got = bf16_train_step(model, x, y, optimizer, watched, "cpu")
        finally:
            hook.remove()
        return (forwards == [True] and len(losses) == 1 and losses[0][0] and backwards == [1]
                and isinstance(got, float) and math.isclose(got, losses[0][1], rel_tol=1e-6)
                and (snapshot(x), snapshot(y)) == before)

    check.forall(bf16_steps, one_forward_one_loss,
                 "One training step: the model runs once and the criterion once (gradients on), loss.backward() on "
                 "that loss, and its value is returned as a float; x and y are left as they are.",
                 examples=2, cases=bf16_step_cases())

    def error_reaches_caller(case):
        """An error raised by the criterion reaches the caller as it is: the same object, raised once."""
        model, optimizer, _, x, y = bf16_step_parts(case)
        raised = []

        def failing(out, target):
            raised.append(RuntimeError("the criterion failed"))
            raise raised[-1]

        try:
            bf16_train_step(model, x, y, optimizer, failing, "cpu")
        except RuntimeError as error:
            return len(raised) == 1 and error is raised[0]
        return False

    check.forall(bf16_steps, error_reaches_caller,
                 "An error raised by the model or the criterion must reach the caller as it is (the same exception, "
                 "raised once): do not catch it and run the step again another way.",
                 examples=0, cases=bf16_step_cases()[:2])

### BEGIN HIDDEN TESTS
from gpucourse.checks import requirement as _requirement


def _reference_bf16_step(model, x, y, optimizer, criterion, device_type, loss_inside=True):
    """The docstring's step; loss_inside=False: the loss follows the autocast block (allowed), computed on the
    bfloat16 output as it is."""
    optimizer.zero_grad(set_to_none=True)
    with torch.autocast(device_type=device_type, dtype=torch.bfloat16):
        out = model(x)
        if loss_inside:
            loss = criterion(out, y)
    if not loss_inside:
        loss = criterion(out, y)
    loss.backward()
    optimizer.step()
    return loss.item()

def _run_both(device_type, steps, d=6, h=8, k=3, n=12):
    model = torch.nn.Sequential(torch.nn.Linear(d, h), torch.nn.ReLU(), torch.nn.Linear(h, k)).to(device_type)
    for p in model.parameters():
        p.grad = torch.full_like(p, 2.0)              # stale gradients that must be zeroed
    twins = [copy.deepcopy(model) for _ in range(2)]   # the loss inside the block, and after it
    opts = [torch.optim.SGD(m.parameters(), lr=0.1, momentum=0.9) for m in (model, *twins)]
    losses = [[], [], []]
    for _ in range(steps):
        x, y = torch.randn(n, d, device=device_type), torch.randint(0, k, (n,), device=device_type)
        losses[0].append(bf16_train_step(model, x, y, opts[0], torch.nn.CrossEntropyLoss(), device_type))
        for j, inside in ((1, True), (2, False)):
            losses[j].append(_reference_bf16_step(twins[j - 1], x, y, opts[j], torch.nn.CrossEntropyLoss(),
                                                  device_type, loss_inside=inside))
    def _gap(j):   # compared with the reading whose losses the answer follows
        return sum(abs(float(a) - b) for a, b in zip(losses[0], losses[j]) if isinstance(a, (int, float)))
    j = min((1, 2), key=_gap)
    return model, twins[j - 1], [losses[0], losses[j]]

with warnings.catch_warnings():
    warnings.simplefilter("ignore")
    _devices = ["cpu"] + (["cuda"] if torch.cuda.is_available() else [])
    for _device_type in _devices:
        for _trial in range(2):
            _dims = [int(v) for v in torch.randint(3, 14, (4,))]
            with _requirement(f"bf16_train_step on {_device_type}, 3 steps of a fresh model: zero_grad, forward "
                              "and loss under bfloat16 autocast, backward, step, no scaler; float32 parameters; "
                              "returns each batch's loss as a float"):
                _model, _twin, _losses = _run_both(_device_type, 3, *_dims)
                assert all(isinstance(v, float) for v in _losses[0]), "the loss is not a Python float"
                assert all(abs(a - b) <= 1e-5 * max(1.0, abs(b)) for a, b in zip(*_losses)), f"losses {_losses}"
                for _p, _q in zip(_model.parameters(), _twin.parameters()):
                    assert _p.dtype == torch.float32, f"a parameter became {_p.dtype}"
                    assert torch.allclose(_p, _q, rtol=1e-5, atol=1e-6), "parameters differ from the bf16 step"
                assert not torch.is_autocast_enabled(_device_type), "autocast left enabled"
    _dims = [int(v) for v in torch.randint(3, 14, (4,))]
    _d, _h, _k, _n = _dims
    _model = torch.nn.Sequential(torch.nn.Linear(_d, _h), torch.nn.ReLU(), torch.nn.Linear(_h, _k))
    _x, _y = torch.randn(_n, _d), torch.randint(0, _k, (_n,))
    _cpu_default = torch.get_autocast_dtype("cpu")
    with _requirement("bf16_train_step: forward and loss under torch.autocast(device_type, dtype=torch.bfloat16), "
                      "bfloat16 named, not autocast's default dtype (float16 on CUDA; here the CPU's set to "
                      "float16)"):
        torch.set_autocast_dtype("cpu", torch.float16)
        try:
            with OpDtypes() as _ops:
                bf16_train_step(_model, _x, _y, torch.optim.SGD(_model.parameters(), lr=0.0),
                                torch.nn.CrossEntropyLoss(), "cpu")
        finally:
            torch.set_autocast_dtype("cpu", _cpu_default)
        _mm = [_out for _op, _, _out in _ops.rows if _op in ("addmm", "mm", "matmul", "linear", "bmm")]
        assert torch.bfloat16 in _mm and torch.float16 not in _mm, f"matmuls ran in {sorted(set(map(str, _mm)))}"
    with _requirement("bf16_train_step: no gradient scaler: loss.backward() on the loss itself, so the gradient "
                      "reaching the model's output is the loss's own"):
        _seen = {}
        def _keep(module, inputs, output):
            _seen["logits"] = output.detach().float()
            if output.requires_grad:
                output.register_hook(lambda grad: _seen.__setitem__("grad", grad.detach().float()))
        _hook = _model.register_forward_hook(_keep)
        try:
            bf16_train_step(_model, _x, _y, torch.optim.SGD(_model.parameters(), lr=0.0),
                            torch.nn.CrossEntropyLoss(reduction="sum"), "cpu")
        finally:
            _hook.remove()
        _expected = torch.softmax(_seen["logits"], dim=1) - torch.nn.functional.one_hot(_y, _k)  # d(sum CE)/d logits
        assert "grad" in _seen, "no gradient reached the model's output"
        assert torch.allclose(_seen["grad"], _expected, rtol=2e-2, atol=1e-2), \
            f"the gradient at the output reaches {_seen['grad'].abs().max().item():.4g}, the loss's own at most 1"
from gpucourse.contract import for_all as _for_all
with warnings.catch_warnings(), _requirement(
        "bf16_train_step keeps the whole contract for every model kind (dropout, BatchNorm), optimizer kind (several "
        "parameter groups) and criterion: zero_grad first for every group, one forward and one loss with gradients "
        "on, backward on the criterion's own loss and step (nothing scaled or clipped), the loss returned as a "
        "float, x and y unchanged, an error reaching the caller as it is"):
    warnings.simplefilter("ignore")
    _for_all(bf16_steps, zeroes_every_group, "stale gradients in any parameter group change nothing", examples=4,
             cases=bf16_step_cases(("SGD with two parameter groups", "AdamW"), every=True))
    _for_all(bf16_steps, steps_on_own_loss, "the criterion 1024 times larger, the learning rates 1024 times smaller: "
             "the same step, a loss 1024 times larger", examples=4,
             cases=bf16_step_cases(("SGD", "SGD with momentum", "SGD with two parameter groups"), every=True))
    _for_all(bf16_steps, one_forward_one_loss, "one forward, one loss, backward on it, its value returned",
             examples=4, cases=bf16_step_cases(every=True))
    _for_all(bf16_steps, error_reaches_caller, "the criterion's error reaches the caller as it is", examples=4,
             cases=bf16_step_cases())
### END HIDDEN TESTS

# %% [markdown] fixtures="bf16_train_step"
# ### Mistakes and correct alternatives for `bf16_train_step` (author-only: in no generated notebook)
#
# **mistake `model-bfloat16`**, sample, loses `test_bf16_train_step`: converts the model to bfloat16
# ```diff
# @@
# -    optimizer.zero_grad(set_to_none=True)
# -    with torch.autocast(device_type=device_type, dtype=torch.bfloat16):
# -        loss = criterion(model(x), y)
# +    model.bfloat16()
# +    optimizer.zero_grad()
# +    loss = criterion(model(x.bfloat16()).float(), y)
# ```
#
# **mistake `float16`**, loses `test_bf16_train_step`: autocasts to float16
# ```diff
# @@
# -    optimizer.zero_grad(set_to_none=True)
# -    with torch.autocast(device_type=device_type, dtype=torch.bfloat16):
# +    optimizer.zero_grad()
# +    with torch.autocast(device_type=device_type, dtype=torch.float16):
# ```
#
# **mistake `no-autocast`**, loses `test_bf16_train_step`: plain float32
# ```diff
# @@
# -    optimizer.zero_grad(set_to_none=True)
# -    with torch.autocast(device_type=device_type, dtype=torch.bfloat16):
# -        loss = criterion(model(x), y)
# +    optimizer.zero_grad()
# +    loss = criterion(model(x), y)
# ```
#
# **mistake `no-zero-grad`**, loses `test_bf16_train_step`: gradients accumulate
# ```diff
# @@
# -    optimizer.zero_grad(set_to_none=True)
# ```
#
# **mistake `default-autocast-dtype`**, loses `test_bf16_train_step`: relies on autocast's default dtype (float16 on CUDA)
# ```diff
# @@
# -    with torch.autocast(device_type=device_type, dtype=torch.bfloat16):
# +    with torch.autocast(device_type=device_type):
# ```
#
# **mistake `with-scaler`**, loses `test_bf16_train_step`: keeps notebook 05's GradScaler
# ```diff
# @@
# -    optimizer.zero_grad(set_to_none=True)
# +    scaler = torch.amp.GradScaler(device_type)
# +    optimizer.zero_grad(set_to_none=True)
# @@
# -    loss.backward()
# -    optimizer.step()
# +    scaler.scale(loss).backward()
# +    scaler.step(optimizer)
# +    scaler.update()
# ```
#
# **mistake `returns-tensor`**, loses `test_bf16_train_step`: returns the loss tensor
# ```diff
# @@
# -    optimizer.zero_grad(set_to_none=True)
# +    optimizer.zero_grad()
# @@
# -    return loss.item()
# +    return loss
# ```
#
# **mistake `zero-grad-last`**, loses `test_bf16_train_step`: zeros the gradients after the step, not before
# ```diff
# @@
# -    optimizer.zero_grad(set_to_none=True)
#      with torch.autocast(device_type=device_type, dtype=torch.bfloat16):
# @@
#      optimizer.step()
# +    optimizer.zero_grad(set_to_none=True)
# ```
#
# **mistake `autocast-cuda`**, loses `test_bf16_train_step`: autocasts for CUDA whatever device_type it is given
# ```diff
# @@
# -    with torch.autocast(device_type=device_type, dtype=torch.bfloat16):
# +    with torch.autocast(device_type="cuda", dtype=torch.bfloat16):
# ```
#
# **mistake `no-step`**, loses `test_bf16_train_step`: computes the gradients but never steps the optimizer
# ```diff
# @@
#      loss.backward()
# -    optimizer.step()
# ```
#
# **mistake `loss-after-step`**, loses `test_bf16_train_step`: reports the loss measured again after the step
# ```diff
# @@
#      optimizer.step()
# -    return loss.item()
# +    with torch.no_grad(), torch.autocast(device_type=device_type, dtype=torch.bfloat16):
# +        return criterion(model(x), y).item()
# ```
#
# **alternative `amp-autocast`**: torch.amp.autocast, zero_grad() to zeros, float(loss)
# ```python
# def bf16_train_step(model, x, y, optimizer, criterion, device_type) -> float:
#     optimizer.zero_grad()
#     with torch.amp.autocast(device_type=device_type, dtype=torch.bfloat16):
#         _loss = criterion(model(x), y)
#     _loss.backward()
#     optimizer.step()
#     return float(_loss)
# ```
#
# **alternative `manual-zero`**: clears the gradients through the optimizer's groups, a print
# ```python
# def bf16_train_step(model, x, y, optimizer, criterion, device_type) -> float:
#     for group in optimizer.param_groups:
#         for p in group["params"]:
#             p.grad = None
#     with torch.autocast(device_type, torch.bfloat16):
#         out = model(x)
#         loss = criterion(out, y)
#     loss.backward()
#     optimizer.step()
#     print("step loss", loss.item())
#     return loss.detach().item()
# ```
#
# **alternative `loss-outside-low`**: autocast as a decorator on the forward alone; the loss on the bfloat16 output as it is
# ```python
# def bf16_train_step(model, x, y, optimizer, criterion, device_type) -> float:
#     @torch.autocast(device_type, dtype=torch.bfloat16)
#     def _forward(inputs):
#         return model(inputs)
#
#     optimizer.zero_grad()
#     loss = criterion(_forward(x), y)
#     loss.backward()
#     _value = loss.item()
#     optimizer.step()
#     return _value
# ```
#
# **alternative `loss-outside`**: the loss in float32 after the block (what autocast does for cross-entropy)
# ```python
# def bf16_train_step(model, x, y, optimizer, criterion, device_type) -> float:
#     optimizer.zero_grad(set_to_none=True)
#     with torch.autocast(device_type=device_type, dtype=torch.bfloat16):
#         logits = model(x)
#     loss = criterion(logits.float(), y)
#     loss.backward()
#     optimizer.step()
#     return loss.item()
# ```
#
# **clauses of `bf16_train_step`**
# - "One training step: optimizer.zero_grad()": visible "call optimizer.zero_grad() before the backward pass" by `no-zero-grad`, `zero-grad-last`
# - "optimizer.zero_grad()": allows `manual-zero`, `amp-autocast`
# - "forward and loss under torch.autocast(device_type, dtype=torch.bfloat16)": visible "Run the forward pass under torch.autocast(device_type=device_type, dtype=torch.bfloat16)" by `float16`, `no-autocast`, `autocast-cuda`
# - "dtype=torch.bfloat16)": visible "autocast with dtype=torch.bfloat16, whatever the default" by `default-autocast-dtype`
# - "(the loss may also follow the block)": allows `loss-outside`, `loss-outside-low`
# - "loss.backward(), optimizer.step()": visible "The step must update the parameters: loss.backward(), then optimizer.step()" by `no-step`
# - "no gradient scaler": visible "No gradient scaler with bfloat16" by `with-scaler`
# - "the parameters stay float32 (no model.bfloat16()).": visible "Keep the parameters float32" by `model-bfloat16`
# - "Returns the batch's loss, from before the step": visible "Return the batch's loss from before the step" by `loss-after-step`
# - "as a float.": visible "Return the loss as a Python float" by `returns-tensor`

# %% [markdown] id="s4"
# ## 3. No scaler, and the price
#
# bfloat16's range is float32's, so the gradients that float16 loses in notebook 05 survive without any scaling.
# The price is precision: a bfloat16 number carries 8 significant bits, which is why the parameters (and the
# optimizer's arithmetic) stay float32 under autocast.

# %% id="s4-demo"
tiny = torch.tensor([1e-8, 1e-12, 1e-20, 1e-30])
print("tiny gradients in float16: ", tiny.half().tolist())
print("tiny gradients in bfloat16:", [f"{v:.3g}" for v in tiny.bfloat16().float().tolist()])
print("1 + 2**-8 in bfloat16:", (torch.tensor(1.0, dtype=torch.bfloat16) + 2**-8).item(),
      "| in float16:", (torch.tensor(1.0, dtype=torch.float16) + 2**-8).item())

# %% id="s4-train"
from torch.utils.data import DataLoader
from gpucourse.data import fashion_mnist, float_dataset

train_set = float_dataset(fashion_mnist(train=True), limit=1_024 if QUICK else 20_000)
if needs("choose_amp_dtype", "bf16_train_step"):
    amp_device = "cuda" if DEVICE.type == "cuda" else "cpu"
    dtype, use_scaler = choose_amp_dtype(DEVICE)
    print(f"choose_amp_dtype({DEVICE}) -> {dtype}, scaler: {use_scaler}")
    if dtype != torch.bfloat16:
        print("This GPU would train in float16 with a scaler; the demo runs bfloat16 anyway "
              "(emulated here: no bfloat16 tensor cores).")
    curves = {}
    for name in ("float32", "bfloat16 autocast, no scaler"):
        torch.manual_seed(0)
        model = make_mlp().to(DEVICE)
        optimizer = torch.optim.AdamW(model.parameters(), lr=2e-3)
        curves[name] = []
        for epoch in range(1 if QUICK else 3):
            for xb, yb in DataLoader(train_set, batch_size=256, shuffle=True, drop_last=True):
                xb, yb = xb.to(DEVICE), yb.to(DEVICE)
                if name == "float32":
                    optimizer.zero_grad()
                    loss = F.cross_entropy(model(xb), yb)
                    loss.backward()
                    optimizer.step()
                    curves[name].append(loss.item())
                else:
                    curves[name].append(bf16_train_step(model, xb, yb, optimizer, F.cross_entropy, amp_device))
    fig, ax = plt.subplots(figsize=(8, 3))
    for name, losses in curves.items():
        ax.plot(losses, label=name)
    ax.set(xlabel="step", ylabel="training loss", title=f"bfloat16 autocast trains like float32 (on {DEVICE.type})")
    ax.legend()
    plt.show()

# %% [markdown] id="summary"
# ## Summary
#
# - float16: 5 exponent bits, 10 mantissa bits: precise, range 6·10⁻⁸ to 65504. bfloat16: float32's 8 exponent bits,
#   7 mantissa bits: float32's range, 8 times coarser.
# - bfloat16 needs no gradient scaler. It is native on compute capability ≥ 8.0 (A100, A10, L4, RTX 30xx/40xx,
#   H100 ...); on a T4 `is_bf16_supported()` says True by emulation, so decide by capability: float16 plus
#   `GradScaler` on a T4, bfloat16 on Ampere and newer and on the CPU.
