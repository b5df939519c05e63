"""``torch.compile`` that never leaves a notebook broken: check first, fall back to eager with a clear message.

``torch.compile`` is lazy: ``torch.compile(model)`` compiles nothing. It raises at once on invalid arguments (an
unknown backend name raises ``InvalidBackend``) and on a Python it does not support (3.15 and newer in torch 2.14,
which :func:`compile_unavailable_reason` reports); the real work, and any failure of code generation, happens at the
first call. The default backend, inductor, needs a working C++ compiler for CPU code and
Triton with a GPU of compute capability >= 7.0 for CUDA code. :func:`compile_unavailable_reason` checks
those preconditions cheaply; :func:`try_compile` also runs one example call inside ``try`` so that a
failure during compilation falls back to the eager model instead of stopping the notebook.
"""

from __future__ import annotations

import importlib.util
import os
import shutil
import sys
from typing import Any, Callable, NamedTuple

import torch

#: Backends that generate code (and so need a compiler, or Triton on a GPU).
CODEGEN_BACKENDS = ("inductor",)


def _find_cxx() -> str | None:
    """The first C++ compiler inductor could use on this machine, or None."""
    candidates: list[str] = []
    if os.environ.get("CXX"):
        candidates.append(os.environ["CXX"])
    try:
        from torch._inductor import config as inductor_config

        cxx = inductor_config.cpp.cxx
        candidates.extend(c for c in (cxx if isinstance(cxx, (list, tuple)) else (cxx,)) if c)
    except Exception:  # inductor missing or changed: fall back to the usual names
        pass
    candidates.extend(["cl"] if sys.platform == "win32" else ["g++", "clang++", "c++"])
    for name in candidates:
        found = shutil.which(name)
        if found:
            return found
    return None


def compile_unavailable_reason(device: str | torch.device = "cpu", backend: str = "inductor") -> str | None:
    """Why ``torch.compile(..., backend=backend)`` cannot run on ``device`` here, or None if it should.

    A cheap check of the known preconditions; it does not compile anything. None does not promise
    success: :func:`try_compile` with an example input is the real test.
    """
    device = torch.device(device)
    try:
        from torch._dynamo.eval_frame import is_dynamo_supported

        if not is_dynamo_supported():
            return (f"torch.compile does not support Python {sys.version_info.major}.{sys.version_info.minor} "
                    f"with torch {torch.__version__} yet")
    except Exception:
        pass
    if callable(backend) or backend not in CODEGEN_BACKENDS:
        return None  # "eager", "aot_eager" and custom backends need no compiler
    if device.type == "cuda":
        major, minor = torch.cuda.get_device_capability(device)
        if major < 7:
            return (f"the GPU has compute capability {major}.{minor}; inductor's Triton kernels need 7.0 or "
                    "newer (GPUTooOldForTriton)")
        if importlib.util.find_spec("triton") is None:
            return "Triton is not installed, and inductor needs it for CUDA code"
    elif device.type == "cpu":
        if _find_cxx() is None:
            return ("no working C++ compiler was found (inductor compiles CPU code with one: install g++ or "
                    "clang, or MSVC on Windows)")
    elif device.type == "mps":
        return "inductor's Apple MPS support is a prototype; this course compiles only for cpu and cuda"
    return None


def _describe(error: BaseException) -> str:
    """One line naming the error, and the backend's own error when Dynamo wrapped it."""
    def first_line(e: BaseException) -> str:
        return (str(e).strip().splitlines() or [""])[0][:200]

    inner = getattr(error, "inner_exception", None) or error.__cause__
    text = f"{type(error).__name__}: {first_line(error)}"
    if inner is not None and inner is not error:
        text += f" ({type(inner).__name__}: {first_line(inner)})"
    return text


class CompileResult(NamedTuple):
    fn: Callable[..., Any]   # the compiled module or function, or the original one after a fallback
    compiled: bool           # True when fn is compiled
    message: str             # what happened, in one line, for the notebook to print


def try_compile(model: Callable[..., Any], example_inputs: tuple | None = None, device=None,
                verbose: bool = True, **compile_kwargs) -> CompileResult:
    """``torch.compile(model, **compile_kwargs)`` with an eager fallback and a clear message.

    ``device`` defaults to the device of the model's first parameter (else the CPU). When
    ``example_inputs`` is given, the compiled model is called once with them inside ``try``, so
    that a failure during compilation (which happens at the first call) falls back too.
    Returns ``CompileResult(fn, compiled, message)`` and prints the message when ``verbose``.
    """
    backend = compile_kwargs.get("backend", "inductor")
    if device is None:
        params = list(model.parameters()) if isinstance(model, torch.nn.Module) else []
        device = params[0].device if params else torch.device("cpu")
    backend_name = getattr(backend, "__name__", type(backend).__name__) if callable(backend) else backend
    reason = compile_unavailable_reason(device, backend)
    if reason is not None:
        result = CompileResult(model, False, f"torch.compile skipped, running eagerly: {reason}.")
    else:
        try:
            fn = torch.compile(model, **compile_kwargs)
            if example_inputs is not None:
                fn(*example_inputs)
            result = CompileResult(fn, True, f"compiled with backend={backend_name!r} for {torch.device(device)}.")
        except Exception as error:  # compile failures vary by platform; every one means "run eagerly"
            result = CompileResult(model, False, f"torch.compile failed, running eagerly: {_describe(error)}")
    if verbose:
        print(result.message)
    return result
