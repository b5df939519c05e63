"""gpucourse.compiling (compile with an eager fallback), and the compile facts notebook 07 teaches."""

from __future__ import annotations

import logging
from unittest import mock

import pytest
import torch

from gpucourse import compiling
from gpucourse.fakes import fake_accelerators


class Graphs:
    """A counting backend (what notebook 07's CompileCounter exercise asks for)."""

    def __init__(self):
        self.graphs = []

    def __call__(self, gm, example_inputs):
        self.graphs.append(gm)
        return gm.forward


def count(model, sizes, dynamic):
    torch._dynamo.reset()
    backend = Graphs()
    compiled = torch.compile(model, backend=backend, dynamic=dynamic)
    for b in sizes:
        compiled(torch.randn(b, 8))
    torch._dynamo.reset()
    return len(backend.graphs)


# -- compile_unavailable_reason -----------------------------------------------------------------
def test_cpu_with_a_compiler_is_fine():
    if compiling._find_cxx() is None:
        pytest.skip("no C++ compiler on this machine")
    assert compiling.compile_unavailable_reason("cpu") is None


def test_cpu_without_a_compiler():
    with mock.patch.object(compiling.shutil, "which", lambda name: None):
        reason = compiling.compile_unavailable_reason("cpu")
    assert reason and "C++ compiler" in reason


@pytest.mark.parametrize("capability", [(3, 7), (6, 0), (6, 1)])
def test_old_gpu(capability):
    with fake_accelerators(cuda=True, capability=capability):
        reason = compiling.compile_unavailable_reason("cuda")
    assert reason and "7.0" in reason and f"{capability[0]}.{capability[1]}" in reason


def test_t4_with_triton_is_fine_and_without_triton_is_not():
    with fake_accelerators(cuda=True, capability=(7, 5)):
        with mock.patch.object(compiling.importlib.util, "find_spec", lambda name: object()):
            assert compiling.compile_unavailable_reason("cuda") is None
        with mock.patch.object(compiling.importlib.util, "find_spec", lambda name: None):
            assert "Triton" in compiling.compile_unavailable_reason("cuda")


def test_debug_backends_need_nothing():
    with mock.patch.object(compiling.shutil, "which", lambda name: None):
        assert compiling.compile_unavailable_reason("cpu", backend="eager") is None
        assert compiling.compile_unavailable_reason("cpu", backend="aot_eager") is None
    with fake_accelerators(cuda=True, capability=(6, 0)):
        assert compiling.compile_unavailable_reason("cuda", backend=Graphs()) is None


def test_mps_is_reported():
    assert "MPS" in compiling.compile_unavailable_reason("mps")


# -- try_compile --------------------------------------------------------------------------------
def test_try_compile_compiles_and_runs(capsys):
    torch._dynamo.reset()
    model = torch.nn.Linear(8, 3)
    backend = Graphs()
    result = compiling.try_compile(model, example_inputs=(torch.randn(4, 8),), backend=backend)
    assert result.compiled and result.fn is not model and len(backend.graphs) == 1
    x = torch.randn(4, 8)
    assert torch.allclose(result.fn(x), model(x))
    assert "compiled" in capsys.readouterr().out
    torch._dynamo.reset()


def test_try_compile_falls_back_when_the_backend_fails(capsys):
    torch._dynamo.reset()

    def broken(gm, example_inputs):
        raise RuntimeError("simulated failure")

    model = torch.nn.Linear(8, 3)
    fn, compiled, message = compiling.try_compile(model, example_inputs=(torch.randn(2, 8),), backend=broken)
    assert fn is model and not compiled
    assert "running eagerly" in message and "simulated failure" in message
    assert message in capsys.readouterr().out
    torch._dynamo.reset()


def test_try_compile_skips_when_unavailable():
    model = torch.nn.Linear(8, 3)
    with mock.patch.object(compiling.shutil, "which", lambda name: None):
        fn, compiled, message = compiling.try_compile(model, verbose=False)
    assert fn is model and not compiled and "C++ compiler" in message


def test_try_compile_without_example_is_lazy():
    torch._dynamo.reset()
    backend = Graphs()
    result = compiling.try_compile(torch.nn.Linear(8, 3), backend=backend, verbose=False)
    assert result.compiled and backend.graphs == []
    torch._dynamo.reset()


# -- the facts notebook 07 teaches (torch 2.13 to 2.15) -------------------------------------------
def test_recompile_limit_is_eight_by_its_current_name():
    assert torch._dynamo.config.recompile_limit == 8


def test_automatic_dynamic_recompiles_once():
    model = torch.nn.Linear(8, 3)
    assert count(model, [4, 8, 16, 32], None) == 2   # static, then one dynamic recompile
    assert count(model, [4, 8, 16, 32], False) == 4  # one static graph per size
    assert count(model, [4, 8, 16, 32], True) == 1
    assert count(model, [4, 8, 4, 8], False) == 2    # old graphs stay cached: nothing is invalidated


def test_recompile_limit_then_eager():
    logging.getLogger("torch._dynamo").setLevel(logging.ERROR)
    try:
        model = torch.nn.Linear(8, 3)
        assert count(model, list(range(2, 14)), False) == torch._dynamo.config.recompile_limit
    finally:
        logging.getLogger("torch._dynamo").setLevel(logging.NOTSET)


def test_autocast_state_is_guarded():
    torch._dynamo.reset()
    backend = Graphs()
    compiled = torch.compile(torch.nn.Linear(8, 3), backend=backend)
    x = torch.randn(4, 8)
    with torch.autocast("cpu", dtype=torch.bfloat16):
        assert compiled(x).dtype == torch.bfloat16
    assert compiled(x).dtype == torch.float32
    assert len(backend.graphs) == 2
    torch._dynamo.reset()
