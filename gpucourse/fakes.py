"""Fakes that let a CPU-only machine check GPU-facing code by its method, not its timings.

- :func:`fake_accelerators` makes ``torch.cuda.is_available`` and friends say what a test wants.
- :class:`RecordTransfers` is a ``TorchFunctionMode`` that records every ``Tensor.to`` / ``.cuda``
  / ``.copy_`` call: which device it targets and whether ``non_blocking=True`` was asked for.
"""

from __future__ import annotations

import contextlib
from dataclasses import dataclass
from unittest import mock

import torch
from torch.overrides import TorchFunctionMode


@contextlib.contextmanager
def fake_accelerators(cuda: bool = False, mps: bool = False, capability: tuple[int, int] = (7, 5)):
    """Pretend this machine has (or lacks) CUDA and Apple MPS, with a given compute capability."""
    patches = [
        mock.patch.object(torch.cuda, "is_available", lambda: cuda),
        mock.patch.object(torch.cuda, "device_count", lambda: 1 if cuda else 0),
        mock.patch.object(torch.cuda, "get_device_capability", lambda device=None: capability),
        mock.patch.object(torch.backends.mps, "is_available", lambda: mps),
        mock.patch.object(torch.backends.mps, "is_built", lambda: mps),
    ]
    with contextlib.ExitStack() as stack:
        for patch in patches:
            stack.enter_context(patch)
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
