"""What every exercise's checks hold an answer to besides its examples (issue 40): the released signature, torch's
process-wide state left as it was, and properties tried over the input domain a docstring states.

- :func:`signature_problem`: the answer keeps the signature the notebook released (``gpucourse.released``, written
  by ``python -m graders build`` from the answer cells): every parameter's name, order, kind and default; a parameter
  the student adds must have a default, so that every call the contract allows still works.
- :func:`torch_state` / :func:`state_changes`: grad mode, inference mode, the default dtype, autocast on every device
  type (enabled, dtype, nesting) and the ``torch.backends`` switches. No docstring of the course allows an answer to
  change any of them, so a check (``gpucourse.checks.Check``) and a hidden requirement
  (``gpucourse.checks.requirement``) fail when one differs after their block from before it. The global random
  generator is not among them: several contracts draw from it (shuffling, dropout).
- :func:`counterexample`: the smallest input, drawn by Hypothesis from a strategy (``gpucourse.domains``), for which
  a property does not hold. Derandomized, without an example database and without deadlines: every machine draws
  the same inputs, nothing is written to disk, and a slow kernel fails nothing.
"""

from __future__ import annotations

import inspect

import torch

AUTOCAST_DEVICES = ("cpu", "cuda")


# -- the released signature -----------------------------------------------------------------------------------
def _parameters(text: str) -> list[inspect.Parameter]:
    """The parameters of a released signature written as ``(a, b, c=3)``."""
    namespace: dict = {}
    exec(f"def _released{text}:\n    pass\n", {"torch": torch}, namespace)  # the course's own released text
    return list(inspect.signature(namespace["_released"]).parameters.values())


def _same_default(a, b) -> bool:
    if a is inspect.Parameter.empty or b is inspect.Parameter.empty:
        return a is b
    return type(a) is type(b) and (a is b or a == b)


def signature_problem(fn, released: str) -> str | None:
    """Why ``fn`` does not keep the ``released`` signature (``"(obj, device, non_blocking=False)"``); None when it
    does. Annotations do not count; extra parameters are allowed when they have defaults (or are ``*args`` or
    ``**kwargs``)."""
    try:
        have = list(inspect.signature(fn).parameters.values())
    except (TypeError, ValueError):  # a builtin or a callable object without one: nothing to compare
        return None
    want = _parameters(released)
    positional = (inspect.Parameter.POSITIONAL_ONLY, inspect.Parameter.POSITIONAL_OR_KEYWORD)
    have_pos = [p for p in have if p.kind in positional]
    for i, w in enumerate(p for p in want if p.kind in positional):
        if i >= len(have_pos) or have_pos[i].name != w.name:
            return f"parameter {i + 1} must be `{w.name}`"
        if have_pos[i].kind != w.kind:
            return f"`{w.name}` must stay a {w.kind.description} parameter"
        if not _same_default(have_pos[i].default, w.default):
            return (f"`{w.name}` must keep its default" + (f" {w.default!r}" if w.default is not w.empty else
                                                             " (none: the caller always passes it)"))
    by_name = {p.name: p for p in have}
    for w in want:
        if w.kind in positional:
            continue
        p = by_name.get(w.name)
        if p is None or p.kind != w.kind or not _same_default(p.default, w.default):
            return f"`{w.name}` must stay a {w.kind.description} parameter with default {w.default!r}"
    wanted = {w.name for w in want}
    for p in have:
        if p.name not in wanted and p.default is p.empty and p.kind not in (p.VAR_POSITIONAL, p.VAR_KEYWORD):
            return f"the added parameter `{p.name}` needs a default, so that every call the contract allows works"
    return None


# -- torch's process-wide state ---------------------------------------------------------------------------------
def _nesting() -> int:
    level = torch.autocast_increment_nesting() - 1  # autocast has no getter for it
    torch.autocast_decrement_nesting()
    return level


def torch_state() -> dict[str, object]:
    """Torch's process-wide switches, by the name a hint uses for each."""
    state: dict[str, object] = {
        "grad mode (torch.is_grad_enabled())": torch.is_grad_enabled(),
        "inference mode": torch.is_inference_mode_enabled(),
        "the default dtype (torch.get_default_dtype())": torch.get_default_dtype(),
        "the number of autocast blocks entered and not left": _nesting(),
        "torch.backends.cudnn.benchmark": torch.backends.cudnn.benchmark,
        "torch.backends.cudnn.deterministic": torch.backends.cudnn.deterministic,
        "torch.backends.cudnn.allow_tf32": torch.backends.cudnn.allow_tf32,
        "torch.backends.cuda.matmul.allow_tf32": torch.backends.cuda.matmul.allow_tf32,
        "torch.get_float32_matmul_precision()": torch.get_float32_matmul_precision(),
        "torch.are_deterministic_algorithms_enabled()": torch.are_deterministic_algorithms_enabled(),
    }
    for device in AUTOCAST_DEVICES:
        state[f"autocast on {device}"] = torch.is_autocast_enabled(device)
        state[f"autocast's dtype on {device}"] = torch.get_autocast_dtype(device)
    return state


def state_changes(before: dict, after: dict | None = None) -> list[str]:
    """``"grad mode (...) was True, now False"`` for every switch that differs."""
    after = torch_state() if after is None else after
    return [f"{name} was {before[name]}, now {after.get(name)}" for name in before if after.get(name) != before[name]]


def restore(state: dict) -> None:
    """Put back what :func:`torch_state` read, so that one failed check does not fail every later cell too."""
    torch.set_grad_enabled(state["grad mode (torch.is_grad_enabled())"])
    torch.set_default_dtype(state["the default dtype (torch.get_default_dtype())"])
    for device in AUTOCAST_DEVICES:
        torch.set_autocast_enabled(device, state[f"autocast on {device}"])
        torch.set_autocast_dtype(device, state[f"autocast's dtype on {device}"])
    level, want = _nesting(), state["the number of autocast blocks entered and not left"]
    while level > want:
        level = torch.autocast_decrement_nesting()
    while level < want:
        level = torch.autocast_increment_nesting()
    torch.backends.cudnn.benchmark = state["torch.backends.cudnn.benchmark"]
    torch.backends.cudnn.deterministic = state["torch.backends.cudnn.deterministic"]
    torch.backends.cudnn.allow_tf32 = state["torch.backends.cudnn.allow_tf32"]
    torch.backends.cuda.matmul.allow_tf32 = state["torch.backends.cuda.matmul.allow_tf32"]
    torch.set_float32_matmul_precision(state["torch.get_float32_matmul_precision()"])
    torch.use_deterministic_algorithms(state["torch.are_deterministic_algorithms_enabled()"])


# -- properties over a domain ------------------------------------------------------------------------------------
def settings(examples: int):
    """Hypothesis's settings for the course: ``examples`` draws, the same on every machine, nothing on disk."""
    from hypothesis import HealthCheck, Phase
    from hypothesis import settings as hypothesis_settings

    return hypothesis_settings(max_examples=examples, derandomize=True, database=None, deadline=None,
                               suppress_health_check=list(HealthCheck), print_blob=False,
                               phases=[Phase.explicit, Phase.generate, Phase.shrink])


def counterexample(strategy, holds, examples: int = 20, cases=()) -> tuple[str, BaseException | None] | None:
    """``(the smallest input found, shown; what it raised or None)`` for which ``holds(input)`` is false or raises an
    ``Exception``; None when it held for every input tried. First ``cases`` (a fixed sample that covers the domain,
    smallest first: every dtype, every device spelling; the first that fails is the one shown), then ``examples``
    draws from ``strategy``, of which Hypothesis shrinks a failing one. An input is shown before ``holds`` runs,
    so an answer that modifies its input does not change what is shown."""
    from hypothesis import find
    from hypothesis.errors import Flaky, NoSuchExample, Unsatisfiable

    shown: dict[str, object] = {}

    def fails(value) -> bool:
        shown["last"], shown["error"] = show(value), None
        try:
            return not holds(value)
        except Exception as exc:  # the student's code may raise anything: that is the finding
            shown["error"] = exc
            return True

    for case in cases:
        if fails(case):
            return str(shown["last"]), shown["error"]
    if not examples:
        return None
    failing: list = []

    def fails_drawn(value) -> bool:
        failed = fails(value)
        if failed and len(failing) < 3:
            failing.append(value)
        return failed

    try:
        find(strategy, fails_drawn, settings=settings(examples))
    except (NoSuchExample, Unsatisfiable):
        return None
    except Flaky:  # an input failed once and passed when tried again: a finding only where it fails again
        for value in failing:
            if fails(value):
                return str(shown["last"]), shown["error"]
        return None
    return str(shown["last"]), shown["error"]  # find's last call replays the shrunk example


def for_all(strategy, holds, what: str, examples: int = 100, cases=()) -> None:
    """A hidden test's property: raise ``AssertionError`` naming ``what`` and the smallest input (of ``cases``, then
    of ``examples`` draws) for which ``holds`` is false or raises (inside ``gpucourse.checks.requirement``, which
    names the requirement)."""
    found = counterexample(strategy, holds, examples, cases)
    if found is not None:
        shown, error = found
        raised = "" if error is None else f"; it raised {type(error).__name__}: {error}"
        raise AssertionError(f"{what}: not for {shown}{raised}")


def snapshot(obj):
    """What ``obj`` is made of, to compare before and after a call: every built-in container by type, identity and
    order (a dict's keys too), every tensor by identity, device, dtype, shape and values, every other object by
    identity. Equal snapshots: nothing in it was replaced, moved, reordered or written to."""
    if isinstance(obj, torch.Tensor):
        values = None if obj.device.type == "meta" else obj.detach().cpu().tolist()
        return ("tensor", id(obj), str(obj.device), obj.dtype, tuple(obj.shape), values)
    if type(obj) in (list, tuple):
        return (type(obj).__name__, id(obj), [snapshot(v) for v in obj])
    if type(obj) is dict:
        return ("dict", id(obj), [(k, snapshot(v)) for k, v in obj.items()])
    return ("object", id(obj))


def show(value, depth: int = 0) -> str:
    """A short, exact description of an input: tensors by shape, dtype and device (their values when few)."""
    if depth > 4:
        return "..."
    if isinstance(value, torch.Tensor):
        body = f"shape={tuple(value.shape)}, dtype={value.dtype}, device='{value.device}'"
        if value.device.type != "meta" and value.numel() <= 6:
            body = f"{value.tolist()!r}, {body}"
        return f"tensor({body})"
    if isinstance(value, torch.nn.Module):
        return f"{type(value).__name__}({sum(p.numel() for p in value.parameters())} parameters)"
    if isinstance(value, dict):
        return "{" + ", ".join(f"{k!r}: {show(v, depth + 1)}" for k, v in value.items()) + "}"
    if isinstance(value, list):
        return "[" + ", ".join(show(v, depth + 1) for v in value) + "]"
    if isinstance(value, tuple):
        inner = ", ".join(show(v, depth + 1) for v in value)
        return f"({inner},)" if len(value) == 1 else f"({inner})"
    text = repr(value)
    return text if len(text) <= 80 else text[:77] + "..."


def unchanged_by(fn, argument: int = 0):
    """A property of a call ``c`` (a tuple of arguments): ``fn(*c)`` leaves ``c[argument]``, and everything inside it,
    as it was (:func:`snapshot`). What ``fn`` raises fails the property, as any other property's error does."""
    def holds(c) -> bool:
        before = snapshot(c[argument])
        fn(*c)
        return snapshot(c[argument]) == before
    return holds
