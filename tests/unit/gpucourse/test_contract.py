"""What every check holds an answer to besides its examples (issue 40, docs/properties.md): the released signature,
torch's process-wide state, and properties over a domain with the smallest failing input shown. The checks that use
them are judged in tests/judge/ and by ``python -m graders judge NN --answers tests/data/docstring_answers_domain``."""

from __future__ import annotations

import os

import pytest
import torch
from hypothesis import strategies as st

from gpucourse import contract, domains
from gpucourse.checks import Check, CheckFailed, RequirementFailed, Unanswered, requirement
from gpucourse.released import SIGNATURES
from graders.authoring import signatures

RELEASED = "(obj, device, non_blocking=False)"


# -- the released signature ---------------------------------------------------------------------------------------
@pytest.mark.parametrize("code, problem", [
    ("def f(obj, device, non_blocking=False): ...", None),
    ("def f(obj, device, non_blocking: bool = False) -> object: ...", None),   # annotations do not count
    ("def f(obj, device, non_blocking=False, *, log=None): ...", None),        # an added optional parameter
    ("def f(obj, device, non_blocking=False, **kw): ...", None),
    ("def f(obj, device, non_blocking=True): ...", "`non_blocking` must keep its default False"),
    ("def f(obj, device, non_blocking=0): ...", "`non_blocking` must keep its default False"),  # 0 == False, not it
    ("def f(obj, device, non_blocking): ...", "`non_blocking` must keep its default False"),
    ("def f(obj, device=None, non_blocking=False): ...", "`device` must keep its default (none"),
    ("def f(obj, dev, non_blocking=False): ...", "parameter 2 must be `device`"),
    ("def f(device, obj, non_blocking=False): ...", "parameter 1 must be `obj`"),
    ("def f(obj, device, *, non_blocking=False): ...", "parameter 3 must be `non_blocking`"),
    ("def f(obj, device): ...", "parameter 3 must be `non_blocking`"),
    ("def f(obj, device, non_blocking=False, extra): ...", None),  # a SyntaxError, not a case: replaced below
])
def test_a_changed_signature_is_named(code, problem):
    if "extra)" in code:
        code = "def f(obj, device, non_blocking=False, *, extra): ..."
        problem = "the added parameter `extra` needs a default"
    namespace = {}
    exec(code, namespace)
    found = contract.signature_problem(namespace["f"], RELEASED)
    assert (found is None) if problem is None else (found is not None and found.startswith(problem)), found


def test_defaults_that_are_torch_objects_are_compared_as_released():
    def underflow_fraction(t, dtype=torch.float16):
        return 0.0

    def changed(t, dtype=torch.bfloat16):
        return 0.0

    assert contract.signature_problem(underflow_fraction, SIGNATURES["underflow_fraction"]) is None
    problem = contract.signature_problem(changed, SIGNATURES["underflow_fraction"])
    assert "must keep its default torch.float16" in problem


def test_the_released_signatures_are_what_the_build_writes():
    from graders.paths import REPO
    assert (REPO / "gpucourse" / "released.py").read_text(encoding="utf-8") == signatures.released_text(), \
        "gpucourse/released.py is stale: run python -m graders build"
    assert SIGNATURES["to_device"] == RELEASED and SIGNATURES["pick_device"] == "()"


def test_a_check_fails_a_changed_signature_before_any_call(monkeypatch):
    """The check reads the answer where a test cell finds it: in the globals of the code that enters it."""
    calls = []

    def to_device(obj, device, non_blocking=True):
        calls.append(obj)
        return obj

    monkeypatch.setitem(globals(), "to_device", to_device)
    with pytest.raises(CheckFailed) as caught:
        with Check("to_device") as check:
            check.call(to_device, 1, "cpu")
    assert calls == [] and caught.value.exercise == "to_device"
    assert caught.value._render_traceback_() == [
        "[FAIL] to_device: Keep the released signature to_device(obj, device, non_blocking=False): `non_blocking` "
        "must keep its default False."]


# -- torch's process-wide state ------------------------------------------------------------------------------------
SWITCHES = [
    (lambda: torch.set_grad_enabled(False), "grad mode"),
    (lambda: torch.set_default_dtype(torch.float64), "the default dtype"),
    (lambda: torch.set_autocast_enabled("cpu", True), "autocast on cpu"),
    (lambda: torch.autocast("cpu").__enter__(), "autocast on cpu"),
    (lambda: setattr(torch.backends.cudnn, "benchmark", not torch.backends.cudnn.benchmark),
     "torch.backends.cudnn.benchmark"),
    (lambda: torch.set_float32_matmul_precision("medium"), "torch.get_float32_matmul_precision()"),
]


@pytest.mark.parametrize("change, named", SWITCHES, ids=[n for _, n in SWITCHES])
def test_a_check_fails_an_answer_that_leaves_a_switch_changed_and_puts_it_back(change, named):
    before = contract.torch_state()

    def to_device(obj, device, non_blocking=False):
        change()
        return obj

    with pytest.raises(CheckFailed) as caught:
        with Check("to_device"):
            to_device(1, "cpu")
    assert "Leave torch's settings as you found them" in str(caught.value) and named in str(caught.value)
    assert contract.state_changes(before) == []  # put back: the next cell starts clean


@pytest.mark.parametrize("change, named", SWITCHES[:3], ids=[n for _, n in SWITCHES[:3]])
def test_a_hidden_requirement_does_the_same(change, named):
    before = contract.torch_state()
    with pytest.raises(RequirementFailed) as caught:
        with requirement("f does its job"):
            change()
    assert str(caught.value).startswith("f does its job (torch's settings must be as they were: ") \
        and named in str(caught.value)
    assert contract.state_changes(before) == []


def test_a_switch_changed_and_put_back_inside_is_fine_and_the_rng_is_free():
    with Check("anything"), requirement("anything"):
        with torch.no_grad(), torch.autocast("cpu", dtype=torch.bfloat16):
            torch.randn(2)
        torch.manual_seed(1234)  # several contracts draw from the global generator: not a setting


# -- properties over a domain ----------------------------------------------------------------------------------------
def test_the_smallest_failing_input_is_found_the_same_way_every_time():
    first = contract.counterexample(st.lists(st.integers(0, 100)), lambda xs: sum(xs) < 150, examples=200)
    assert first is not None and first == contract.counterexample(st.lists(st.integers(0, 100)),
                                                                    lambda xs: sum(xs) < 150, examples=200)
    shown, error = first
    assert error is None and sum(eval(shown)) == 150 and len(eval(shown)) <= 2  # shrunk to the edge


def test_covering_cases_come_first_and_an_error_is_a_failure_with_its_exception():
    seen = []

    def holds(n):
        seen.append(n)
        return 1 / (n - 3) is not None

    shown, error = contract.counterexample(st.integers(), holds, examples=50, cases=[1, 2, 3, 4])
    assert seen[:3] == [1, 2, 3] and shown == "3" and isinstance(error, ZeroDivisionError)
    assert contract.counterexample(st.integers(), lambda n: True, examples=20, cases=[1]) is None


def test_an_input_that_fails_once_and_passes_again_is_no_finding_but_one_that_fails_again_is():
    seen = set()

    def fails_the_first_time(n):  # a harness that is not deterministic: Hypothesis's replay raises Flaky
        if n > 5 and n not in seen:
            seen.add(n)
            return False
        return True

    assert contract.counterexample(st.integers(0, 100), fails_the_first_time, examples=50) is None
    assert contract.counterexample(st.integers(0, 100), lambda n: n <= 5, examples=50) == ("6", None)


def test_no_example_database_is_written(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    contract.counterexample(st.integers(), lambda n: n < 10, examples=50)
    assert not any(tmp_path.iterdir()), os.listdir(tmp_path)  # no .hypothesis/ in the kernel's folder


def test_a_visible_property_fails_with_its_hint_and_the_smallest_input():
    def to_device(obj, device, non_blocking=False):
        return obj if obj.dtype is torch.bool else obj.to(device)

    with pytest.raises(CheckFailed) as caught:
        with Check("to_device") as check:
            check.forall(domains.tensors(), lambda t: to_device(t, "meta").device.type == "meta",
                         "Every tensor moves, whatever its dtype.", cases=domains.tensor_cases())
    assert str(caught.value) == ("Every tensor moves, whatever its dtype. (smallest failing input: "
                                 "tensor([], shape=(0,), dtype=torch.bool, device='cpu'))") \
        or "dtype=torch.bool" in str(caught.value)


def test_an_unanswered_exercise_is_still_todo_inside_a_property():
    def to_device(obj, device, non_blocking=False):
        raise NotImplementedError()

    with pytest.raises(Unanswered):
        with Check("to_device") as check:
            check.forall(st.integers(), lambda n: to_device(n, "cpu") == n, "anything")


def test_a_hidden_property_names_its_requirement_and_the_input():
    with pytest.raises(RequirementFailed) as caught:
        with requirement("double doubles"):
            contract.for_all(st.integers(0, 10), lambda n: n * 2 == n + 2, "n * 2", examples=30)
    assert str(caught.value).startswith("double doubles (n * 2: not for 0")


def test_snapshot_sees_a_write_a_replacement_and_a_reordering():
    t = torch.zeros(2)
    obj = {"a": [t, 1], "b": (2,)}
    before = contract.snapshot(obj)
    assert contract.snapshot(obj) == before
    t[0] = 1
    assert contract.snapshot(obj) != before
    before = contract.snapshot(obj)
    obj["a"][1] = 1.0
    assert contract.snapshot(obj) != before
    obj = {"a": 1, "b": 2}
    before = contract.snapshot(obj)
    assert contract.snapshot({"b": 2, "a": 1}) != before


# -- the domains -------------------------------------------------------------------------------------------------
def test_every_dtype_a_docstring_admits_is_drawn():
    names = {str(d) for d in domains.ALL_DTYPES}
    assert {"torch.bool", "torch.uint8", "torch.int8", "torch.int16", "torch.int32", "torch.int64", "torch.float16",
            "torch.bfloat16", "torch.float32", "torch.float64", "torch.complex64", "torch.complex128"} <= names
    cases = domains.tensor_cases()
    assert {t.dtype for t in cases} == set(domains.ALL_DTYPES)
    assert {tuple(t.shape) for t in cases} == {(), (0,), (2, 3)}


def test_devices_come_in_both_spellings_and_models_leave_the_generator_alone():
    cases = domains.device_cases()
    assert "cpu" in cases and torch.device("cpu") in cases and "meta" in cases and torch.device("meta") in cases
    state = torch.get_rng_state()
    first, again = domains.model_cases(), domains.model_cases()
    assert torch.equal(state, torch.get_rng_state())
    assert all(torch.equal(a, b) for m, n in zip(first, again, strict=True)
               for a, b in zip(m.parameters(), n.parameters(), strict=True))
    assert any(isinstance(layer, torch.nn.Dropout) for m in first for layer in m.modules())
    groups = [len(o.param_groups) for o in domains.optimizer_cases(first[1])]
    assert max(groups) == 2


def test_unchanged_by_sees_a_write_into_its_argument_and_nothing_else():
    def scales(t, k):
        return t * k

    def scales_in_place(t, k):
        return t.mul_(k)

    call = (torch.ones(3), 2.0)
    assert contract.unchanged_by(scales)(call) and not contract.unchanged_by(scales_in_place)(call)
    assert contract.unchanged_by(scales_in_place, argument=1)((torch.ones(3), 2.0))


def test_virtual_time_times_a_gpu_call_exactly_through_a_name_imported_from_time():
    import time as real_time

    from gpucourse.simdevice import VirtualTime

    clock = VirtualTime()
    namespace = {"perf_counter": real_time.perf_counter}
    with clock.active(namespace):
        start = namespace["perf_counter"]()
        clock.run(0.25, "cuda")
        torch.cuda.synchronize()
        assert namespace["perf_counter"]() - start == pytest.approx(0.25) and torch.cuda.is_available()
    assert namespace["perf_counter"] is real_time.perf_counter


def test_every_device_spelling_on_every_machine():
    pairs = domains.machines_and_devices()
    assert {m for m, _ in pairs} == {None, "cuda", "mps"}
    assert all(torch.device(d).type in ("cpu", m) for m, d in pairs)
    assert {type(d) for d in domains.spellings("cuda")} == {str, torch.device}
