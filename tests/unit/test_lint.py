"""Lint over the code and the notebooks' sources (ruff, configured in pyproject.toml), and no new copies of code
within sources/ (the local ``duplicates`` tool)."""

from __future__ import annotations

import collections
import importlib.util
import re
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from graders.paths import REPO, SOURCES

MAX_LINE = 120  # pyproject.toml's [tool.ruff] line-length


def _ruff() -> list[str]:
    if importlib.util.find_spec("ruff") is not None:
        return [sys.executable, "-m", "ruff"]
    beside = Path(sys.executable).with_name("ruff")
    if beside.exists():
        return [str(beside)]
    pytest.skip("ruff is not installed in this Python (requirements.txt lists it: pip install -r requirements.txt)")


def test_ruff_finds_nothing():
    cmd = _ruff() + ["check", "--no-cache", "--output-format", "concise", "--config", str(REPO / "pyproject.toml"),
                     str(REPO)]
    result = subprocess.run(cmd, cwd=REPO, capture_output=True, text=True, timeout=300)
    assert result.returncode == 0, f"ruff check found problems (`ruff check --fix` mends some):\n{result.stdout}" \
                                   f"{result.stderr}"


MAX_MODULE_LINES = 400
#: modules allowed past MAX_MODULE_LINES, each with why; an entry whose module shrank below it fails (remove it)
LONG_MODULES = {
    "graders/grading/guard.py": "the in-kernel guard's source, pasted whole into the kernel as one cell",
}


def test_no_graders_module_is_over_400_lines():
    # a module past 400 lines does more than one job: split it by concern (issue 44: export/lms/, scan.py)
    sizes = {str(p.relative_to(REPO)): len(p.read_text(encoding="utf-8").splitlines())
             for p in sorted((REPO / "graders").rglob("*.py"))}
    long = [f"{path}: {n} lines" for path, n in sizes.items() if n > MAX_MODULE_LINES and path not in LONG_MODULES]
    assert not long, f"modules over {MAX_MODULE_LINES} lines (split them by concern):\n" + "\n".join(long)
    stale = [path for path in LONG_MODULES if sizes.get(path, 0) <= MAX_MODULE_LINES]
    assert not stale, f"LONG_MODULES lists modules no longer over {MAX_MODULE_LINES} lines: {stale}"


def _code_lines(path: Path):
    """(line number, line) of every line in the code cells of a jupytext percent source."""
    markdown = True  # the header before the first cell is a comment block, as a markdown cell is
    for number, line in enumerate(path.read_text(encoding="utf-8").splitlines(), start=1):
        if line.startswith("# %%"):
            markdown = "[markdown]" in line or "[raw]" in line
        elif not markdown:
            yield number, line


def test_source_code_lines_fit():
    # ruff's E501 is off for sources/*.py, whose markdown cells are long comment lines; the code cells still fit.
    sources = sorted(SOURCES.glob("*.py"))
    assert sources, f"no notebook sources in {SOURCES}"
    long = [f"{path.relative_to(REPO)}:{number}: {len(line)} characters"
            for path in sources for number, line in _code_lines(path) if len(line) > MAX_LINE]
    assert not long, f"code lines longer than {MAX_LINE} characters:\n" + "\n".join(long)


# The copies that stay, by the two files that share them, each with why. A new pair (or a second pair between
# the same files) fails the test; so does an entry here that no longer has its pair (remove it).
KNOWN_COPIES = {
    ("05_gradscaler.py", "05_gradscaler.py"):
        "scaled_train_step's hidden test recomputes the step independently; students never receive it",
    ("06_bf16.py", "06_bf16.py"):
        "alike in shape only: bit_fields's and roundtrip_rel_error's properties, each a check.forall with its own "
        "hint, one of them contract.unchanged_by",
    ("07_compile.py", "08_throughput.py"):
        "alike in shape only: first_and_steady_ms's fn and throughput's step_fn in virtual time (the clock itself "
        "is gpucourse.simdevice.VirtualTime), each recording what its own contract needs",
    ("01_devices.py", "01_devices.py"):
        "alike in shape only: train_one_epoch's and evaluate's lists of properties, each a check.forall with its own "
        "property and hint",
    ("01_devices.py", "06_bf16.py"):
        "alike in shape only: a property with its hint, then contract.unchanged_by for the argument left as it was",
    ("01_devices.py", "02_transfers.py"):
        "two hidden-test RecordTransfers subclasses alike in shape (shapes, numel); merging them changes "
        "gpucourse.fakes.Transfer and both notebooks' hidden tests",
}
ROW = re.compile(r"^D\d+ (\S+):\d+-\d+ ~ (\S+):\d+-\d+")


def test_no_new_copies_in_sources():
    tool = shutil.which("duplicates")
    if tool is None:
        pytest.skip("the `duplicates` tool is not on PATH")
    result = subprocess.run([tool, "--repo", str(SOURCES), "--most", "200", "--seconds", "120"],
                            cwd=REPO, capture_output=True, text=True, timeout=300)
    out = result.stdout + result.stderr
    lines = out.splitlines()
    assert not [line for line in lines if line.startswith(("incomplete:", "left out:", "(+"))], \
        f"duplicates did not read or list everything, so the pairs below are not the whole story:\n{out}"
    read = re.search(r"\((\d+) files? read\)", lines[0] if lines else "")
    assert read and int(read.group(1)) == len(list(SOURCES.glob("*.py"))), f"not every source was read:\n{out}"
    found = collections.Counter(tuple(sorted(m.groups())) for m in map(ROW.match, lines) if m)
    new = [f"{a} ~ {b}" for (a, b), count in found.items() if count > (1 if (a, b) in KNOWN_COPIES else 0)]
    assert not new, ("code copied within sources/ (put it in one place, or list the pair in KNOWN_COPIES with "
                     "why it stays):\n" + "\n".join(new) + f"\n\n{out}")
    gone = [f"{a} ~ {b}" for a, b in KNOWN_COPIES if (a, b) not in found]
    assert not gone, "no longer copies, remove from KNOWN_COPIES:\n" + "\n".join(gone) + f"\n\n{out}"
