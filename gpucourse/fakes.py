"""Fakes that let a CPU-only machine check GPU-facing code by its method, not its timings.

- :func:`fake_accelerators` makes every device query PyTorch offers say what a test wants: the
  ``torch.cuda`` queries, ``torch.backends.mps``, ``torch.mps`` and ``torch.accelerator``, so that an
  answer scores the same whichever API it asks, on a CPU-only grader and on a Colab GPU.
- :class:`RecordTransfers` is a ``TorchFunctionMode`` that records every ``Tensor.to`` / ``.cuda``
  / ``.copy_`` call: which device it targets and whether ``non_blocking=True`` was asked for.
"""

from __future__ import annotations

import contextlib
from dataclasses import dataclass
from types import SimpleNamespace
from unittest import mock

import torch
from torch.overrides import TorchFunctionMode


def _absent(what: str):
    """What a device query does on a machine without that device (CUDA-built torch, no driver): raise."""
    def fail(*_args, **_kwargs):
        raise RuntimeError(f"{what}: no such device on this machine (simulated)")
    return fail


def _cuda_index(device, count: int) -> int:
    """The CUDA device index ``device`` names, checked as ``torch.cuda.get_device_properties`` checks it."""
    if device is None:
        index = 0
    elif isinstance(device, int):
        index = device
    else:
        device = torch.device(device)
        if device.type != "cuda":  # torch.cuda.get_device_capability("cpu") raises the same ValueError
            raise ValueError(f"Expected a cuda device, but got: {device}")
        index = device.index or 0
    if not 0 <= index < count:
        raise AssertionError("Invalid device id")
    return index


def _cuda_patches(cuda: bool, capability: tuple[int, int], name: str, count: int) -> dict:
    """``torch.cuda``'s device queries for a machine with ``count`` GPUs of ``capability`` (or none)."""
    major, minor = capability
    props = SimpleNamespace(major=major, minor=minor, name=name, total_memory=16 * 2**30,
                            multi_processor_count=40)

    def checked(result):
        def query(device=None):
            _cuda_index(device, count)
            return result
        return query

    def set_device(device) -> None:
        _cuda_index(device, count)

    def is_bf16_supported(including_emulation: bool = True) -> bool:
        # since torch 2.3, True on every CUDA GPU (emulation); natively from compute capability 8.0
        return cuda and (including_emulation or capability >= (8, 0))

    absent = {fn: _absent(f"torch.cuda.{fn}") for fn in
              ("current_device", "get_device_capability", "get_device_properties", "get_device_name", "set_device")}
    present = {"current_device": lambda: 0, "get_device_capability": checked(capability),
               "get_device_properties": checked(props), "get_device_name": checked(name),
               "set_device": set_device}
    return {"is_available": lambda: cuda, "device_count": lambda: count if cuda else 0,
            "is_bf16_supported": is_bf16_supported, **(present if cuda else absent)}


def _accelerator_patches(cuda: bool, mps: bool, count: int) -> dict:
    """``torch.accelerator`` (torch 2.6 and newer) for the same machine: at most one accelerator type, CUDA
    first. With none available it answers as CUDA-built torch does on a machine without a GPU (the grader,
    a Colab CPU runtime): ``current_accelerator()`` is still ``cuda``, ``current_accelerator(True)`` is None."""
    kind = "cuda" if cuda else "mps" if mps else None
    built = kind or "cuda"
    devices = (count if cuda else 1) if kind else 0

    def current_accelerator(check_available: bool = False):
        return None if check_available and kind is None else torch.device(built)

    def set_device_index(device, /):
        if kind is None:
            _absent("torch.accelerator.set_device_index")()
        index = device if isinstance(device, int) else torch.device(device).index or 0
        if not 0 <= index < devices:
            raise AssertionError("Invalid device id")

    current = (lambda: 0) if kind else _absent("torch.accelerator.current_device_index")
    return {"is_available": lambda: kind is not None, "current_accelerator": current_accelerator,
            "device_count": lambda: devices, "current_device_index": current, "current_device_idx": current,
            "set_device_index": set_device_index, "set_device_idx": set_device_index}


@contextlib.contextmanager
def fake_accelerators(cuda: bool = False, mps: bool = False, capability: tuple[int, int] = (7, 5),
                      name: str | None = None, count: int = 1):
    """Pretend this machine has (or lacks) ``count`` CUDA GPUs of ``capability`` and Apple's MPS.

    Every device query a correct answer may ask agrees: ``torch.cuda.is_available / device_count /
    current_device / get_device_capability / get_device_properties / get_device_name / is_bf16_supported
    / set_device``, ``torch.backends.cuda.is_built``, ``torch.backends.mps.is_available / is_built``,
    ``torch.mps.is_available / device_count`` and ``torch.accelerator.is_available / current_accelerator
    / device_count / current_device_index / set_device_index`` (each where the installed torch has
    it: older releases lack some). A query about an absent device raises, as on a machine without it.
    Not patched: ``torch.get_default_device()`` (it says where new tensors go, not what the machine has).
    """
    name = name or f"Fake GPU sm_{capability[0]}{capability[1]}"
    targets = [(torch.cuda, _cuda_patches(cuda, capability, name, count)),
               # the build: CUDA torch (Colab's, the grader's) unless only MPS is faked (a Mac's)
               (torch.backends.cuda, {"is_built": lambda: cuda or not mps}),
               (torch.backends.mps, {"is_available": lambda: mps, "is_built": lambda: mps}),
               (getattr(torch, "mps", None), {"is_available": lambda: mps, "device_count": lambda: int(mps)}),
               (getattr(torch, "accelerator", None), _accelerator_patches(cuda, mps, count))]
    with contextlib.ExitStack() as stack:
        for module, functions in targets:
            for attribute, fake in functions.items():
                if module is not None and hasattr(module, attribute):  # absent in this torch: nothing to fake
                    stack.enter_context(mock.patch.object(module, attribute, fake))
        yield


@dataclass
class Transfer:
    method: str            # "to", "cuda" or "copy_"
    device: str | None     # target device type, if one was named
    dtype: torch.dtype | None
    non_blocking: bool
    source_device: str
    source_dtype: torch.dtype


def _target(args, kwargs):
    device = kwargs.get("device")
    dtype = kwargs.get("dtype")
    for arg in args:
        if isinstance(arg, (torch.device, str)) and device is None:
            device = arg
        elif isinstance(arg, torch.dtype) and dtype is None:
            dtype = arg
        elif isinstance(arg, torch.Tensor) and device is None:  # .to(other_tensor)
            device, dtype = arg.device, arg.dtype
    non_blocking = bool(kwargs.get("non_blocking", False)) or any(a is True for a in args)
    device = torch.device(device).type if device is not None else None
    return device, dtype, non_blocking


class RecordTransfers(TorchFunctionMode):
    """Record tensor moves while active: ``with RecordTransfers() as rec: ...; rec.transfers``."""

    METHODS = {torch.Tensor.to: "to", torch.Tensor.cuda: "cuda", torch.Tensor.copy_: "copy_"}

    def __init__(self):
        super().__init__()
        self.transfers: list[Transfer] = []

    def __torch_function__(self, func, types, args=(), kwargs=None):
        kwargs = kwargs or {}
        name = self.METHODS.get(func)
        if name is not None and args and isinstance(args[0], torch.Tensor):
            src = args[0]
            if name == "copy_":
                other = args[1] if len(args) > 1 else kwargs.get("src")
                device, dtype = src.device.type, src.dtype
                non_blocking = bool(kwargs.get("non_blocking", len(args) > 2 and args[2]))
                source = other if isinstance(other, torch.Tensor) else src
                self.transfers.append(Transfer(name, device, dtype, non_blocking, source.device.type, source.dtype))
            else:
                if name == "cuda":
                    device, dtype, non_blocking = "cuda", None, bool(kwargs.get("non_blocking", False))
                else:
                    device, dtype, non_blocking = _target(args[1:], kwargs)
                self.transfers.append(Transfer(name, device, dtype, non_blocking, src.device.type, src.dtype))
        return func(*args, **kwargs)

    @property
    def all_non_blocking(self) -> bool:
        return bool(self.transfers) and all(t.non_blocking for t in self.transfers)
