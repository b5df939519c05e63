"""What protects the grading machine, in lines a person reads: ``python -m graders autograde --check``.

The OS sandbox (``graders.grading.sandbox``, tried with each escape a submission might attempt), the warm start
(``graders.grading.warm``), the in-kernel guard, the limits, and the pre-flight (``graders.grading.preflight``): a
kernel started as grading starts them runs the course's set-up and reads the data, as every ``autograde`` run does
before its first notebook.
"""

from __future__ import annotations

from graders import machine
from graders.grading import preflight, sandbox, warm
from graders.limits import Limits


def report(limits: Limits | None = None) -> list[str]:
    """What protects the grading machine, for ``python -m graders autograde --check``; ``limits``: the run's (by
    default those of the environment, as ``autograde`` reads them)."""
    limits = Limits.from_env() if limits is None else limits
    protection = sandbox.probe()
    lines = [protection.line()]
    if protection.sandboxed:
        for name, contained, what in sandbox.check_containment():
            lines.append(f"  {'ok  ' if contained else 'FAIL'} {name}: {what}")
        lines.append(f"warm start: {'on' if warm.enabled() else 'off'} (GRADER_WARM=0 turns it off): one template "
                     "process per job slot forks a fresh kernel per notebook, and one nbgrader worker grades in it")
    else:
        lines.append("warm start: off (it needs the sandbox); each notebook starts nbgrader and a kernel of its own")
    lines.append("in-kernel guard: on (snapshot and repair of what the tests rely on, objects that lie in ==, a signed "
                 "log)" + ("" if protection.sandboxed else "; with its file, program and signal rules, as no sandbox"))
    lines.append("limits: " + ", ".join(f"{name}={value}" for name, value, _ in limits.describe()))
    lines.append(preflight_line(limits))
    return lines


#: how ``report`` starts the line of a pre-flight that failed: ``autograde --check`` then exits 2, as a run would
PREFLIGHT_FAILED = "FAIL pre-flight: "


def preflight_line(limits: Limits) -> str:
    """The pre-flight as a run makes it (the data prepared, a warm slot where runs have one), in one line."""
    machine.prepare(verbose=False)
    with warm.slots(1, limits) as slots:
        slot = slots.all[0] if slots.all and slots.all[0].usable() else None
        result = preflight.check(preflight.released_in_repo(), limits, slot)
    return result.line if result.ok else PREFLIGHT_FAILED + result.line
