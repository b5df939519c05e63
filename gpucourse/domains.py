"""The input domains the exercises' docstrings state, as Hypothesis strategies (issue 40): a check draws its inputs
from the whole domain a docstring admits, not from the few examples its author thought of.

Every strategy is deterministic given Hypothesis's draws (tensors are filled from a seeded ``torch.Generator``), so
a derandomized run (``gpucourse.contract.settings``) draws the same inputs on every machine. The domains:

- :func:`dtypes`: every dtype this torch can make a tensor of (bool, unsigned and signed integers of 8 to 64 bits,
  the 8-bit floats where torch has them, float16, bfloat16, float32, float64, complex);
- :func:`shapes`: shapes of 0 to ``max_dims`` dimensions, ``()`` and zero-size ones included;
- :func:`devices`: a device in every spelling the notebooks use (``"cpu"``, ``torch.device("cpu")``, ``"meta"``,
  and ``"cuda"``, ``"cuda:0"`` where there is a GPU);
- :func:`tensors`, :func:`plain_objects` (numbers, strings, None, other objects) and :func:`nested` (built-in
  lists, tuples and dicts of them, to any depth, empty ones included).
"""

from __future__ import annotations

import torch
from hypothesis import strategies as st

#: every dtype a docstring's "any dtype" admits, where this torch has it (torch 2.3 added uint16/32/64)
_NAMES = ("bool", "uint8", "int8", "int16", "int32", "int64", "uint16", "uint32", "uint64", "float8_e4m3fn",
          "float8_e5m2", "float16", "bfloat16", "float32", "float64", "complex64", "complex128")
ALL_DTYPES = tuple(getattr(torch, name) for name in _NAMES if isinstance(getattr(torch, name, None), torch.dtype))
FLOATING = tuple(d for d in ALL_DTYPES if d.is_floating_point)
INTEGRAL = tuple(d for d in ALL_DTYPES if not d.is_floating_point and not d.is_complex and d is not torch.bool)
COMPLEX = tuple(d for d in ALL_DTYPES if d.is_complex)


def dtypes(of=ALL_DTYPES):
    return st.sampled_from(list(of))


def shapes(max_dims: int = 3, max_side: int = 3, min_dims: int = 0):
    """Shapes as tuples: ``()``, zero-size sides included."""
    return st.lists(st.integers(0, max_side), min_size=min_dims, max_size=max_dims).map(tuple)


def devices(meta: bool = True):
    """A device in each spelling: a ``str`` and a ``torch.device``; ``meta`` (a second device on any machine) when
    ``meta``; CUDA's where a GPU is present."""
    names = ["cpu"] + (["meta"] if meta else []) + (["cuda", "cuda:0"] if torch.cuda.is_available() else [])
    return st.sampled_from(names).flatmap(lambda name: st.sampled_from([name, torch.device(name)]))


def fill(shape: tuple, dtype: torch.dtype, seed: int) -> torch.Tensor:
    """A tensor of ``shape`` and ``dtype`` on the CPU, its values from ``seed``: small integers for integral types
    and bool, normal values for floating and complex ones."""
    generator = torch.Generator().manual_seed(seed)
    if dtype is torch.bool:
        return torch.randint(0, 2, shape, generator=generator).bool()
    if not dtype.is_floating_point and not dtype.is_complex:
        low = 0 if dtype in (torch.uint8, getattr(torch, "uint16", None), getattr(torch, "uint32", None),
                             getattr(torch, "uint64", None)) else -100
        return torch.randint(low, 100, shape, generator=generator).to(dtype)
    if dtype.is_complex:
        return torch.randn(shape, generator=generator, dtype=dtype)
    return torch.randn(shape, generator=generator).to(dtype)


def tensors(dtype_strategy=None, shape_strategy=None):
    """CPU tensors of any dtype and shape (by default), values drawn from a seed."""
    return st.builds(fill, shape_strategy or shapes(), dtype_strategy or dtypes(), st.integers(0, 2**31 - 1))


class Opaque:
    """An object of no kind the exercises know: it must come back as it is (the same object)."""

    def __repr__(self) -> str:
        return "<an object>"


def plain_objects():
    """What "numbers, strings, None" and "other objects" cover: ints (large ones too: "as they are" means the same
    object), floats, bools, complex numbers, strings, None and an object of a class of its own."""
    return st.one_of(st.integers(), st.integers(min_value=10**6), st.floats(allow_nan=False), st.booleans(),
                     st.complex_numbers(allow_nan=False, allow_infinity=False), st.text(max_size=4), st.none(),
                     st.builds(Opaque))


def nested(leaves=None, max_leaves: int = 8):
    """Built-in lists, tuples and dicts (string keys, in drawn order) of ``leaves`` (by default tensors and plain
    objects), to any depth, empty containers included."""
    leaves = leaves if leaves is not None else st.one_of(tensors(), plain_objects())
    return st.recursive(leaves, lambda inner: st.one_of(st.lists(inner, max_size=3),
                                                        st.lists(inner, max_size=3).map(tuple),
                                                        st.dictionaries(st.text(min_size=1, max_size=3), inner,
                                                                        max_size=3)),
                        max_leaves=max_leaves)


# -- fixed samples that cover a domain: tried before any draw, smallest first ---------------------------------
COVERING_SHAPES = ((), (0,), (2, 3))


def _both_spellings(names) -> list:
    """Each device name as a str and as a torch.device, in order."""
    return [spelt for name in names for spelt in (name, torch.device(name))]


def device_cases(meta: bool = True) -> list:
    """Every device spelling :func:`devices` draws from, in order."""
    gpu = ["cuda", "cuda:0"] if torch.cuda.is_available() else []
    return _both_spellings(["cpu"] + (["meta"] if meta else []) + gpu)


def spellings(kind: str) -> list:
    """Every way to name a device of this kind: as a str and as a torch.device, with and without an index."""
    names = {"cpu": ["cpu", "cpu:0"], "cuda": ["cuda", "cuda:0", "cuda:1"], "mps": ["mps", "mps:0"]}[kind]
    return _both_spellings(names)


def machines_and_devices() -> list[tuple]:
    """(a machine's accelerator, a device it has): the CPU in every spelling on every machine (none, a CUDA GPU, a
    Mac), and each accelerator's own devices in every spelling."""
    return [(machine, device) for machine in (None, "cuda", "mps")
            for device in spellings("cpu") + (spellings(machine) if machine else [])]


#: the modes a caller may call from, by name: user code the function calls must run in the caller's one
CALLER_MODES = {"torch.enable_grad()": torch.enable_grad, "torch.no_grad()": torch.no_grad,
                "torch.inference_mode()": torch.inference_mode,
                "torch.autocast('cpu')": lambda: torch.autocast("cpu", dtype=torch.bfloat16)}


def modes_seen() -> tuple[bool, bool, bool]:
    """(grad mode, inference mode, CPU autocast) as user code sees them now."""
    return torch.is_grad_enabled(), torch.is_inference_mode_enabled(), torch.is_autocast_enabled("cpu")


def tensor_cases(of=ALL_DTYPES, shapes_=COVERING_SHAPES) -> list[torch.Tensor]:
    """One tensor of every dtype in ``of`` and every shape in ``shapes_`` (``()``, zero-size, 2-D), smallest first."""
    return [fill(shape, dtype, seed) for seed, (shape, dtype) in enumerate((s, d) for s in shapes_ for d in of)]


def container_cases() -> list:
    """Each built-in container empty, alone and nested, with a tensor, a plain object and another container inside."""
    t = fill((2,), torch.float32, 0)
    return [[], (), {}, [t], (t,), {"k": t}, [1, "s", None, Opaque()], {"b": 2, "a": [t, (3.5, t)]},
            ([], {}, ()), {"x": {"y": [(t, {"z": t})]}}]


# -- models, optimizers and batches of the kinds the notebooks build -----------------------------------------------
def model_cases(in_features: int = 4, classes: int = 3) -> list[torch.nn.Module]:
    """Small classifiers of ``in_features`` inputs: the module's MLP shape with and without dropout, one with a
    BatchNorm (its running statistics are state too; in training mode it needs batches of 2 or more), and a single
    Linear layer; each the same on every call, the global random generator left as it was."""
    with torch.random.fork_rng(devices=[]):
        torch.manual_seed(0)
        return _models(in_features, classes)


def _models(in_features: int, classes: int) -> list[torch.nn.Module]:
    return [torch.nn.Linear(in_features, classes),
            torch.nn.Sequential(torch.nn.Linear(in_features, 8), torch.nn.ReLU(), torch.nn.Linear(8, classes)),
            torch.nn.Sequential(torch.nn.Linear(in_features, 8), torch.nn.Dropout(0.5), torch.nn.ReLU(),
                                torch.nn.Linear(8, classes)),
            torch.nn.Sequential(torch.nn.Linear(in_features, 8), torch.nn.BatchNorm1d(8), torch.nn.ReLU(),
                                torch.nn.Linear(8, classes))]


def optimizer_cases(model: torch.nn.Module) -> list[torch.optim.Optimizer]:
    """Optimizers over ``model`` of the kinds the notebooks use: SGD, SGD with momentum, AdamW, and one with two
    parameter groups of their own learning rates (weights and biases apart)."""
    weights = [p for name, p in model.named_parameters() if name.endswith("weight")]
    biases = [p for name, p in model.named_parameters() if not name.endswith("weight")]
    return [torch.optim.SGD(model.parameters(), lr=0.1), torch.optim.SGD(model.parameters(), lr=0.05, momentum=0.9),
            torch.optim.AdamW(model.parameters(), lr=1e-3),
            torch.optim.SGD([{"params": weights, "lr": 0.1}, {"params": biases, "lr": 0.01}], lr=0.2)]


def batches(sizes: list[int], in_features: int = 4, classes: int = 3, seed: int = 0) -> list[tuple]:
    """``[(x, y), ...]``: float32 inputs of ``in_features`` and int64 labels below ``classes``, one batch per size."""
    generator = torch.Generator().manual_seed(seed)
    return [(torch.randn(n, in_features, generator=generator), torch.randint(0, classes, (n,), generator=generator))
            for n in sizes]


def batch_sizes(max_batches: int = 4, max_size: int = 5):
    """Lists of batch sizes: one batch or several, the last one smaller (a data set not divisible by the batch
    size), a batch of one."""
    return st.lists(st.integers(1, max_size), min_size=1, max_size=max_batches)
