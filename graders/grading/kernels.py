"""How nbgrader starts the kernel of one run: the ``python3`` kernelspec written into the run's own
``JUPYTER_PATH`` (nbgrader asks for ``python3``, and a kernelspec found there comes first).

- In a warm slot (``graders.grading.warm``): a small launcher (``kernel_launch.py``, the standard library
  only) asks the slot's sandboxed template process for a fresh kernel, forked from one that has imported
  torch and the helper package already.
- Otherwise, where the sandbox starts: ``bwrap`` (``graders.grading.sandbox``) around ipykernel.
- Where it does not: no kernelspec is written, and nbgrader starts the venv's own kernel, as before.
"""

from __future__ import annotations

import json
import sys
from pathlib import Path

from graders.grading import rundir, sandbox

LAUNCHER = Path(__file__).with_name("kernel_launch.py")


def argv(run: Path, template: Path | None = None) -> list[str] | None:
    """The kernel's command line for ``run``; None for the venv's own kernel."""
    if template is not None:
        return [sys.executable, "-I", "-S", str(LAUNCHER), str(template), "{connection_file}"]  # + nbgrader's arguments
    if sandbox.active():
        return [sandbox.bwrap(), *sandbox.bwrap_args([str(rundir.kernel_dir(run))]),
                sys.executable, "-m", "ipykernel_launcher", "-f", "{connection_file}"]
    return None


def write_spec(run: Path, template: Path | None = None) -> None:
    command = argv(run, template)
    if command is None:
        return
    folder = run / "jupyter" / "kernels" / "python3"
    folder.mkdir(parents=True, exist_ok=True)
    spec = {"argv": command, "display_name": "Python 3 (graded)", "language": "python",
            "interrupt_mode": "signal", "metadata": {"debugger": False}}
    (folder / "kernel.json").write_text(json.dumps(spec, indent=1))
