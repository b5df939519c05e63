"""A kernel that has run a solution notebook in quick mode, as the grader does, and then runs the
checks' own calls in it (``stress``, ``judge``).

Executing a notebook costs seconds to minutes; trying an answer in the kernel it left costs
milliseconds. The calls go to ``graders.qa.inkernel``, loaded into the kernel as a private
module, and each is a cell of its own, so the per-cell timeout interrupts a call that hangs (a
test calling an answer that never returns) as nbgrader's does, and the kernel carries on.
"""

from __future__ import annotations

import contextlib
import json
import os
import tempfile
from collections.abc import Iterator
from pathlib import Path

import nbformat

from graders.authoring import source
from graders.limits import Limits
from graders.qa import inkernel

MODULE = "_course_checks"  # its name in the notebook's namespace


class KernelCallError(RuntimeError):
    """A call whose cell failed outside the code it guards (an interrupt at the wrong moment)."""


class SolutionKernel:
    def __init__(self, client, nb):
        self.client = client
        self.nb = nb

    def run_cell(self, source: str) -> str:
        """Run ``source`` as one more cell; its stdout. The cell is dropped again: the notebook
        object does not grow with every call."""
        cell = nbformat.v4.new_code_cell(source)
        self.nb.cells.append(cell)
        try:
            self.client.execute_cell(cell, len(self.nb.cells) - 1)
        finally:
            self.nb.cells.pop()
        return "".join(o.get("text", "") for o in cell.outputs if o.get("name") == "stdout")

    def call(self, function: str, *arguments):
        """``inkernel.<function>(namespace, *arguments)`` in the kernel; its result, through JSON."""
        from nbclient.exceptions import CellExecutionError

        source = f"{MODULE}.emit(globals(), {function!r}, {json.dumps(arguments)!r})"
        try:
            text = self.run_cell(source)
        except CellExecutionError as exc:
            raise KernelCallError(f"{function}: {str(exc).strip().splitlines()[-1]}") from exc
        lines = [ln for ln in text.splitlines() if ln.startswith(inkernel.MARKER)]
        if not lines:
            raise KernelCallError(f"{function}: no result came back")
        return json.loads(lines[-1][len(inkernel.MARKER):])


def _loader() -> str:
    """The cell that makes ``graders/qa/inkernel.py`` a module of the kernel's own."""
    source = Path(inkernel.__file__).read_text(encoding="utf-8")
    return "\n".join([
        f"{MODULE} = __import__('types').ModuleType({MODULE!r})",
        f"exec(compile({source!r}, {inkernel.__file__!r}, 'exec'), {MODULE}.__dict__)",
    ])


def solution_notebook(name: str):
    """The solution notebook the checks execute and read test cells from: made from the source in
    memory, so that a test just edited in ``sources/NN_name.py`` is judged without a build."""
    return source.solution(name)


@contextlib.contextmanager
def solution_kernel(name: str, timeout: int | None = None, limits: Limits | None = None) -> Iterator[SolutionKernel]:
    """``name``'s solution executed top to bottom in quick mode, in a scratch folder. Its cells may
    run as long as the grader lets a cell run; each call then may run ``timeout`` seconds (default:
    the same), so a test of a hang can wait seconds without the notebook's cells being cut short.
    ``limits``: the run's (default: :meth:`Limits.from_env`)."""
    from graders.kernel_client import notebook_client

    limits = limits or Limits.from_env()
    nb = solution_notebook(name)
    env = {**os.environ, "COURSE_QUICK": "1", "MPLBACKEND": "Agg"}  # the kernel's, not this process's
    with (tempfile.TemporaryDirectory(prefix=f"check-{name}-") as work,
          notebook_client(nb, work, timeout=limits.cell_timeout_s, kernel_name="python3",
                          allow_errors=False, interrupt_on_timeout=True) as client):
        with client.setup_kernel(env=env):
            for index, cell in enumerate(list(nb.cells)):
                client.execute_cell(cell, index)
            kernel = SolutionKernel(client, nb)
            kernel.run_cell(_loader())
            client.timeout = timeout or limits.cell_timeout_s
            yield kernel
