"""Mixed-precision helpers for notebooks 04 to 06: constants, probes, fakes and a figure.

Nothing here answers an exercise. The probes *observe* what PyTorch does (which dtype each
operation produced, what the real ``GradScaler`` did), so the tests can compare a student's
answer with PyTorch itself rather than with numbers written by hand.
"""

from __future__ import annotations

import contextlib
import struct

import torch
from torch.utils._python_dispatch import TorchDispatchMode

#: float16's limits (``torch.finfo(torch.float16)``), spelled out for plots and prose.
FP16_MAX = 65504.0
FP16_SMALLEST_NORMAL = 2.0**-14      # 6.1e-05
FP16_SMALLEST_SUBNORMAL = 2.0**-24   # 6.0e-08
FP16_EPS = 2.0**-10
BF16_EPS = 2.0**-7

#: (sign bits, exponent bits, mantissa bits) of the three floating-point formats of the module.
LAYOUTS = {
    torch.float32: (1, 8, 23),
    torch.float16: (1, 5, 10),
    torch.bfloat16: (1, 8, 7),
}

#: Representative GPUs and their CUDA compute capability (NVIDIA's CUDA GPUs list).
GPU_CAPABILITIES = [
    ("Tesla P100", (6, 0)), ("Tesla V100", (7, 0)), ("Tesla T4 (Colab free tier)", (7, 5)),
    ("RTX 20xx (Turing)", (7, 5)), ("A100", (8, 0)), ("A10 / A10G", (8, 6)), ("RTX 30xx (Ampere)", (8, 6)),
    ("L4", (8, 9)), ("RTX 40xx (Ada)", (8, 9)), ("H100 / H200", (9, 0)), ("B200 (Blackwell)", (10, 0)),
]


def native_bf16(capability: tuple[int, int]) -> bool:
    """True when a GPU of this compute capability computes bfloat16 in hardware (Ampere, 8.0, and newer)."""
    return tuple(capability) >= (8, 0)


# ---------------------------------------------------------------------------------------------
# Which dtype did each operation produce?
# ---------------------------------------------------------------------------------------------
class OpDtypes(TorchDispatchMode):
    """Record every aten operation that runs while active: name, input dtypes and output dtype.

    Autocast sits above this mode in the dispatcher, so what it records is what autocast decided:
    the ``_to_copy`` casts it inserted and the dtype each kernel really ran in.
    """

    def __init__(self):
        super().__init__()
        self.rows: list[tuple[str, tuple, object]] = []

    def __torch_dispatch__(self, func, types, args=(), kwargs=None):
        out = func(*args, **(kwargs or {}))
        inputs = tuple(a.dtype for a in args if isinstance(a, torch.Tensor))
        first = out[0] if isinstance(out, (tuple, list)) and out else out
        self.rows.append((func.overloadpacket.__name__, inputs, getattr(first, "dtype", None)))
        return out


def short(dtype) -> str:
    """``torch.bfloat16`` -> ``"bfloat16"``."""
    return str(dtype).replace("torch.", "") if dtype is not None else "-"


def autocast_op_dtypes(device_type: str, dtype: torch.dtype) -> dict[str, torch.dtype]:
    """Run the five operations of notebook 04's question under real autocast on ``device_type``.

    ``a`` and ``b`` are float32; ``h = a @ b`` is computed under autocast (so it is ``dtype`` where
    matmul autocasts), and softmax, cross-entropy, sum and add take ``h`` as input, as they would
    take a layer's output. Returns ``{"matmul", "softmax", "cross_entropy", "sum", "add"}`` -> the
    dtype of each result (``add`` is ``h + a``). Needs that device to be present.
    """
    a = torch.randn(8, 8, device=device_type)
    b = torch.randn(8, 8, device=device_type)
    target = torch.randint(0, 8, (8,), device=device_type)
    with torch.autocast(device_type=device_type, dtype=dtype):
        h = a @ b
        return {
            "matmul": h.dtype,
            "softmax": torch.softmax(h, dim=1).dtype,
            "cross_entropy": torch.nn.functional.cross_entropy(h, target).dtype,
            "sum": h.sum().dtype,
            "add": (h + a).dtype,
        }


# ---------------------------------------------------------------------------------------------
# Memory saved for backward
# ---------------------------------------------------------------------------------------------
def saved_tensor_bytes(fn) -> int:
    """Bytes of every tensor autograd saves for the backward pass while ``fn()`` runs."""
    total = 0

    def pack(t):
        nonlocal total
        total += t.numel() * t.element_size()
        return t

    with torch.autograd.graph.saved_tensors_hooks(pack, lambda t: t):
        fn()
    return total


# ---------------------------------------------------------------------------------------------
# The real GradScaler, driven by a sequence of overflow flags
# ---------------------------------------------------------------------------------------------
def drive_grad_scaler(flags, init_scale: float = 2.0**16, growth_factor: float = 2.0,
                      backoff_factor: float = 0.5, growth_interval: int = 2000,
                      device: str = "cpu") -> list[tuple[float, int]]:
    """Feed ``torch.amp.GradScaler(device)`` one step per flag and record what it does.

    For each flag the gradient is set to inf (True) or to a finite value (False), then
    ``scaler.step`` and ``scaler.update`` run. Returns ``[(get_scale(), growth tracker), ...]``
    after every update.
    """
    param = torch.nn.Parameter(torch.zeros(1, device=device))
    optimizer = torch.optim.SGD([param], lr=0.0)
    scaler = torch.amp.GradScaler(device, init_scale=init_scale, growth_factor=growth_factor,
                                  backoff_factor=backoff_factor, growth_interval=growth_interval)
    scaler.scale(torch.ones((), device=device))  # creates the scale and the growth tracker
    history = []
    for flag in flags:
        param.grad = torch.full_like(param, float("inf") if flag else 1.0)
        scaler.step(optimizer)
        scaler.update()
        history.append((scaler.get_scale(), int(scaler._growth_tracker.item())))
    return history


# ---------------------------------------------------------------------------------------------
# A CUDA GPU of any compute capability, on a machine without one
# ---------------------------------------------------------------------------------------------
@contextlib.contextmanager
def fake_gpu(capability: tuple[int, int] = (7, 5), name: str | None = None):
    """Pretend a CUDA GPU of ``capability`` is present, including what ``is_bf16_supported`` says.

    ``torch.cuda.is_bf16_supported()`` answers True on every capability, as it does on a real
    T4 (software emulation); with ``including_emulation=False`` it answers ``capability >= 8.0``.
    ``get_device_properties`` reports ``major``, ``minor``, ``name`` and ``total_memory``. Every other
    device query agrees (:func:`gpucourse.fakes.fake_accelerators`, ``torch.accelerator`` included).
    """
    from .fakes import fake_accelerators

    with fake_accelerators(cuda=True, mps=False, capability=capability, name=name):
        yield torch.cuda.get_device_properties(0)


# ---------------------------------------------------------------------------------------------
# Bits
# ---------------------------------------------------------------------------------------------
def bit_string(x: float, dtype: torch.dtype) -> str:
    """The bits of ``x`` rounded to ``dtype``, most significant first (sign, exponent, mantissa)."""
    width = sum(LAYOUTS[dtype])
    if dtype == torch.float32:
        (pattern,) = struct.unpack(">I", struct.pack(">f", float(x)))
    else:
        value = torch.tensor(float(x), dtype=torch.float32).to(dtype)
        pattern = int(value.view(torch.int16).item()) & 0xFFFF
    return format(pattern, f"0{width}b")


def draw_bit_layouts(x: float = -1.5, ax=None):
    """Draw the sign, exponent and mantissa fields of float32, float16 and bfloat16, filled with ``x``'s bits."""
    import matplotlib.pyplot as plt
    from matplotlib.patches import Rectangle

    if ax is None:
        _, ax = plt.subplots(figsize=(11, 3.2))
    colours = ("#e74c3c", "#3b6db3", "#27ae60")
    cell = 1.0 / 32
    for row, dtype in enumerate((torch.float32, torch.float16, torch.bfloat16)):
        y = 2 - row
        bits = bit_string(x, dtype)
        position = 0
        for field, (width, colour) in enumerate(zip(LAYOUTS[dtype], colours)):
            for _ in range(width):
                ax.add_patch(Rectangle((position * cell, y), cell, 0.7, fc=colour, ec="white", alpha=0.8))
                ax.text((position + 0.5) * cell, y + 0.35, bits[position], ha="center", va="center",
                        color="white", fontsize=8, family="monospace")
                position += 1
            label = ("sign", f"exponent {width}", f"mantissa {width}")[field]
            start = position - width
            ax.text((start + width / 2) * cell, y + 0.8, label if width > 1 else "s", ha="center", fontsize=8)
        ax.text(-0.01, y + 0.35, short(dtype), ha="right", va="center", fontsize=10, weight="bold")
    ax.set_xlim(-0.12, 1.0)
    ax.set_ylim(-0.1, 3.1)
    ax.set_axis_off()
    ax.set_title(f"bit layouts, filled with the bits of {x!r} (rounded to each type)")
    return ax
