"""What the grader pastes into the kernel: the in-kernel guard's cells (docs/grading.md, "Tampering").

:func:`guard_sources` makes the cell that installs the guard (``guard.py``'s source, and ``guard_os.py``'s where
the kernel runs without the OS sandbox), followed by ``_grader_guard_install(CONFIG, OS_RULES)``, and the small
checkpoint cells that call ``before(test)`` / ``after(test)``; :func:`insert_guards` puts them in the notebook.
The install cell then deletes every top-level name those sources define (found with ``ast``, so a helper added
to ``guard.py`` is deleted too): the student's code reaches none of them. The guard signs its log with a key
made by :func:`new_key`; ``graders.grading.guard_log`` reads it back.
"""

from __future__ import annotations

import ast
import hashlib
import json
import os
import re
from pathlib import Path

from graders import nbtools

GUARD_SOURCE = (Path(__file__).with_name("guard.py")).read_text()
#: pasted after GUARD_SOURCE only where the kernel runs without the OS sandbox (``config["sandboxed"]`` false)
GUARD_OS_SOURCE = (Path(__file__).with_name("guard_os.py")).read_text()
MARK = "# GRADER GUARD: added by the autograder, not part of the submission."

#: Modules whose functions, classes (with their methods) and code the tests rely on; snapshotted
#: before any student code, put back before every test. Every module of these packages is included:
PROTECTED_PREFIXES = ["gpucourse"]
#: and these modules exactly (all of torch's 900 modules would cost seconds per notebook).
PROTECTED_MODULES = ["torch", "torch.nn", "torch.nn.functional", "torch.nn.init", "torch.nn.parameter",
                     "torch.nn.modules.module", "torch.optim", "torch.optim.optimizer", "torch.utils.data",
                     "torch.utils.data.dataloader", "torch.overrides", "torch.testing", "torch.amp", "torch.cuda",
                     "torch.backends", "torch.backends.mps", "torch.backends.cuda", "torch.backends.cudnn",
                     "torch.autograd", "torch.autograd.grad_mode", "torch.random", "torch.linalg", "torch._tensor",
                     "torch.functional", "torch.types", "torch._C._VariableFunctions",
                     "math", "cmath", "random", "copy", "operator", "functools", "itertools", "contextlib",
                     "unittest.mock", "warnings", "numbers", "numpy", "collections", "abc", "types", "inspect",
                     "json", "time", "re", "statistics", "dataclasses", "typing"]
PROTECTED_PACKAGES = PROTECTED_PREFIXES + sorted({m.split(".")[0] for m in PROTECTED_MODULES})
PRELOAD = ["torch", "torch.nn", "torch.nn.functional", "torch.optim", "torch.utils.data", "torch.overrides",
           "torch.testing", "torch.amp", "copy", "math", "random", "unittest.mock", "numpy"]


def norm(text: str) -> str:
    return "\n".join(line.rstrip() for line in text.strip().splitlines())


def source_hash(text: str) -> str:
    """A cell's identity, as the pasted guard computes it too (``guard.py``'s ``norm``): the trusted cells, the
    last cell the kernel started."""
    return hashlib.sha256(norm(text).encode()).hexdigest()


def defined_names(source: str) -> list[str]:
    """Every name the top level of ``source`` binds (functions, classes, assignments, imports), in order: what the
    install cell deletes once the guard is installed."""
    names: list[str] = []
    for node in nbtools.parse_python(source).body:
        if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
            found = [node.name]
        elif isinstance(node, (ast.Import, ast.ImportFrom)):
            found = [alias.asname or alias.name.split(".")[0] for alias in node.names]
        elif isinstance(node, (ast.Assign, ast.AnnAssign, ast.AugAssign)):
            targets = node.targets if isinstance(node, ast.Assign) else [node.target]
            found = [n.id for t in targets for n in ast.walk(t) if isinstance(n, ast.Name)]
        else:
            found = []
        names += [name for name in found if name not in names]
    return names


#: what the install cell deletes: every name the pasted guard defines, and guard_os.py's where it is pasted too
GUARD_NAMES = defined_names(GUARD_SOURCE)
GUARD_OS_NAMES = defined_names(GUARD_OS_SOURCE)


def new_key() -> str:
    return os.urandom(32).hex()


def guard_sources(token: str, config: dict, tests: list[str]) -> dict[str, str]:
    """The source of every guard cell: ``"top"``, and ``"before:<test>"`` / ``"after:<test>"``.

    The small checkpoint cells are added to the trusted sources; the top cell names itself when it runs.
    A kernel without the OS sandbox (``config["sandboxed"]`` false) also gets the file, program and signal
    rules of ``guard_os.py``.
    """
    var = f"_grader_guard_{token}"
    cells = {}
    for test in tests:
        cells[f"before:{test}"] = f"{MARK}\n{var}.before({test!r})\n"
        cells[f"after:{test}"] = f"{MARK}\n{var}.after({test!r})\n"
    config = dict(config, trusted_sources=list(config["trusted_sources"]) + [source_hash(s) for s in cells.values()])
    os_rules = not config.get("sandboxed", False)
    source = GUARD_SOURCE + (f"\n\n{GUARD_OS_SOURCE}" if os_rules else "")
    helpers = GUARD_NAMES + (GUARD_OS_NAMES if os_rules else [])
    cells["top"] = (f"{MARK}\n{source}\n\n{var} = _grader_guard_install(__import__('json').loads("
                    f"{json.dumps(config)!r}), {'_grader_guard_os_rules' if os_rules else 'None'})\n"
                    f"del {', '.join(helpers)}\n")
    return cells



def insert_guards(nb, sources: dict[str, str]):
    """The notebook with the guard cells in place (first cell; around every test cell)."""
    import nbformat

    def cell(key):
        c = nbformat.v4.new_code_cell(sources[key])
        c.metadata["grader_guard"] = True
        c.id = "grader-guard-" + re.sub(r"[^A-Za-z0-9-]", "-", key.replace(":", "-"))[:50]
        return c

    cells = [cell("top")]
    for c in nb.cells:
        gid = nbtools.grade_id(c)
        if nbtools.is_test_cell(c) and f"before:{gid}" in sources:
            cells += [cell(f"before:{gid}"), c, cell(f"after:{gid}")]
        else:
            cells.append(c)
    nb.cells = cells
    return nb


