"""The hand-in check's run: a copy of the notebook from the top in a fresh kernel, and what its cells said.

The copy runs with nbclient (what nbgrader's own execution uses) in a scratch folder, in quick mode
(``COURSE_QUICK=1``), without the hand-in cell, with every cell's outputs cleared and ``allow_errors`` (as nbgrader
runs a notebook: a failing cell does not stop the ones after it), and a time limit per cell, past which the run
stops there. Its kernel's environment says it is the check's own run (``GPUCOURSE_HANDIN``), so the set-up cell
installs nothing (``gpucourse.bootstrap``). A student's notebook holds only the visible checks: they are what runs.
"""

from __future__ import annotations

import copy
import os
import re
import tempfile
from dataclasses import dataclass, field

from gpucourse.handin_cells import HANDIN_ID, NESTED_ENV, grade_id, kind, source_of

TAG = re.compile(r"^\[(PASS|FAIL|TODO)\]\s*([^:\s]*)")
ANSI = re.compile(r"\x1b\[[0-9;?]*[A-Za-z]")
CELL_LINE = re.compile(r"Cell In\s*\[[^\]]*\],\s*line (\d+)")
SETUP_SOURCE = re.compile(r"""^GPUCOURSE_SOURCE\s*=\s*["']([^"']+)["']""", re.M)


@dataclass
class Outcome:
    check_lines: list[str] = field(default_factory=list)  # every check's [PASS]/[FAIL]/[TODO] line, in order
    todo: list[str] = field(default_factory=list)  # exercises whose check says [TODO]
    failed: list[str] = field(default_factory=list)  # exercises whose check says [FAIL]
    first_error: str | None = None  # the first error of a cell that is not a check, from the top
    first_bad: str | None = None  # the first thing from the top to fix: an error, a [FAIL] or a [TODO]
    stopped: str | None = None  # why the run stopped before the end (time limit, kernel died)


def kernel_env(nb: dict) -> dict:
    """The copy's kernel environment: this one, in quick mode, marked as the check's run, installing nothing."""
    env = {k: v for k, v in os.environ.items() if k not in ("JPY_SESSION_NAME", "NBGRADER_EXECUTION")}
    env.update(COURSE_QUICK="1", MPLBACKEND="Agg", PYDEVD_DISABLE_FILE_VALIDATION="1")
    env[NESTED_ENV] = "1"
    for cell in nb["cells"]:
        if grade_id(cell) == "setup":
            found = SETUP_SOURCE.search(source_of(cell))
            if found:  # the set-up cell's own guard: it tried this source already, so it does not pip install
                env["GPUCOURSE_TRIED"] = found.group(1)
    return env


def prepared(nb: dict):
    """The copy to run: an nbformat notebook without outputs, its hand-in cell an empty raw cell."""
    import nbformat

    data = copy.deepcopy(nb)
    data["cells"] = [c if grade_id(c) != HANDIN_ID else {"cell_type": "raw", "source": "", "metadata": {},
                                                         **({"id": c["id"]} if "id" in c else {})}
                     for c in data["cells"]]  # not run here; in its place, so that cell numbers stay as saved
    for cell in data["cells"]:
        cell["source"] = source_of(cell)
        cell.setdefault("metadata", {})
        if cell.get("cell_type") == "code":
            cell["outputs"], cell["execution_count"] = [], None
    return nbformat.from_dict(data)


def run_copy(nb: dict, release: dict, cell_timeout: int = 120) -> Outcome:
    """Run a copy of ``nb`` and read its cells (:func:`read_outcome`)."""
    try:
        from nbclient import NotebookClient
        from nbclient.exceptions import CellTimeoutError, DeadKernelError
    except ImportError:
        return Outcome(stopped="nbclient is not installed here (Colab and JupyterLab have it): use a runtime that "
                               "has, or python -m graders validate in a clone of the course")
    from traitlets.config import Config

    runnable = prepared(nb)
    started: list[int] = []
    stopped = None
    config = Config()
    with tempfile.TemporaryDirectory(prefix="handin-") as work:
        if os.name == "posix":  # Unix sockets in a folder of its own: no TCP port another process can take meanwhile
            config.KernelManager.transport = "ipc"
            config.KernelManager.ip = str(os.path.join(os.path.realpath(work), "kernel"))
        client = NotebookClient(runnable, config=config, timeout=cell_timeout, kernel_name="python3",
                                allow_errors=True, interrupt_on_timeout=False, record_timing=False,
                                resources={"metadata": {"path": work}},
                                on_cell_start=lambda cell, cell_index: started.append(cell_index))
        try:
            client.execute(env=kernel_env(nb))
        except CellTimeoutError:
            at = started[-1] if started else 0
            stopped = (f"cell {_position(runnable, at)} ({_label(runnable.cells[at])}) ran longer than the "
                       f"{cell_timeout} s a cell may take here (an endless loop?): the run stopped there")
        except DeadKernelError:
            at = started[-1] if started else 0
            stopped = (f"the kernel died in cell {_position(runnable, at)} ({_label(runnable.cells[at])}): "
                       "it crashes Python (memory?), the run stopped there")
    outcome = read_outcome(runnable, started[-1] + 1 if started else 0)
    outcome.stopped = stopped
    return outcome


def _label(cell) -> str:
    gid = grade_id(cell)
    if gid is None:
        return f"`{cell.get('id', '?')}`" if cell.get("id") else "a cell you added"
    return {"answer": f"answer cell `{gid}`", "test": f"check cell `{gid}`"}.get(kind(cell), f"read-only cell `{gid}`")


def _position(runnable, index: int) -> int:
    """The cell's position in the notebook as saved (1-based): the copy keeps every cell in its place."""
    return index + 1


def _error_text(output) -> tuple[str | None, str]:
    """(a check's tagged line, if the error is one; the error in one line with the line of the cell it was on)."""
    lines = [ANSI.sub("", line) for line in output.get("traceback", []) for line in line.splitlines()]
    tagged = next((line.strip() for line in lines if TAG.match(line.strip())), None)
    at = [m.group(1) for m in map(CELL_LINE.search, lines) if m]
    where = f" (line {at[-1]})" if at else ""
    return tagged, f"{output.get('ename', 'Error')}: {output.get('evalue', '')}".rstrip(": ") + where


def read_outcome(runnable, ran: int) -> Outcome:
    """What the first ``ran`` cells of the executed copy said: the checks' lines, the first error, what to fix first."""
    outcome = Outcome()
    for index, cell in enumerate(runnable.cells[:ran]):
        if cell.get("cell_type") != "code":
            continue
        stdout = "".join(o.get("text", "") for o in cell.get("outputs", []) if o.get("name") == "stdout")
        error = next((o for o in cell.get("outputs", []) if o.get("output_type") == "error"), None)
        lines = [line.strip() for line in stdout.splitlines() if TAG.match(line.strip())]
        where = f"cell {_position(runnable, index)}, {_label(cell)}"
        if kind(cell) == "test":
            if error is not None:
                tagged, text = _error_text(error)
                lines.append(tagged or f"[FAIL] {grade_id(cell)}: {text}")
            for line in lines:
                tag, exercise = TAG.match(line).groups()
                if tag == "PASS":
                    continue
                (outcome.todo if tag == "TODO" else outcome.failed).append(exercise or grade_id(cell))
                if outcome.first_bad is None:
                    outcome.first_bad = (f"exercise `{exercise}` is still to do ({where})" if tag == "TODO"
                                         else f"{line} ({where})")
            outcome.check_lines += [line.split(":")[0] if line.startswith("[PASS]") else line for line in lines] \
                or [f"[PASS] {grade_id(cell)}"]
        elif error is not None:
            _, text = _error_text(error)
            if outcome.first_error is None:
                outcome.first_error = f"{where}: {text}"
            if outcome.first_bad is None:
                outcome.first_bad = f"{where} raised {text}"
    outcome.todo = list(dict.fromkeys(outcome.todo))
    outcome.failed = list(dict.fromkeys(outcome.failed))
    return outcome
