"""Adversarial submissions of 01_devices, each with the row it must end as.

``build(folder)`` writes ``folder/<student>/<file>`` for every case and returns the expectations.
The cases start from a *trimmed* copy of the course (``trimmed_solutions``): the demonstrations
are dropped, so that each grading run costs seconds; the graded cells are the real ones.

Points of 01_devices: test_pick_device 2, test_to_device 3, test_train_one_epoch 3, test_evaluate 2.
"""

from __future__ import annotations

import copy
import json
import os
import textwrap
import time
import uuid
import zipfile
from dataclasses import dataclass, field
from pathlib import Path

from graders import nbtools
from graders.authoring.samples import reference_answers
from graders.mistakes import for_notebook
from graders.paths import NOTEBOOKS, REPO, SOLUTIONS

NAME = "01_devices"
DEMO_CELLS = {"s1-demo", "s1-figure", "s2-demo", "s3-demo", "s4-train", "s4-plot"}
POINTS = {"test_pick_device": 2.0, "test_to_device": 3.0, "test_train_one_epoch": 3.0, "test_evaluate": 2.0}
MAX = sum(POINTS.values())


@dataclass
class Case:
    student: str
    status: str                      # "graded", "review" (a tamper finding) or "failed"
    score: float | None              # None: withheld for review
    says: list[str] = field(default_factory=list)   # fragments the message must hold
    lost: frozenset = frozenset()    # test cells at 0 (graded and review rows); every other at full marks
    what: str = ""


def trimmed_solutions(folder: Path) -> Path:
    """solutions/01_devices.ipynb without its demonstrations, as a solutions folder."""
    nb = nbtools.read(SOLUTIONS / f"{NAME}.ipynb")
    nb.cells = [c for c in nb.cells if c.get("id") not in DEMO_CELLS]
    folder.mkdir(parents=True, exist_ok=True)
    nbtools.write(nb, folder / f"{NAME}.ipynb")
    return folder


def student_nb(answers: dict | None = None):
    """The released student notebook (trimmed), answers filled in."""
    nb = nbtools.read(NOTEBOOKS / f"{NAME}.ipynb")
    nb.cells = [c for c in nb.cells if c.get("id") not in DEMO_CELLS]
    for cell in nb.cells:
        gid = nbtools.grade_id(cell)
        if answers and nbtools.is_solution_cell(cell) and gid in answers:
            cell.source = answers[gid]
    return nb


def mistake(key: str) -> tuple[str, str]:
    m = next(m for m in for_notebook(NAME) if m.key == key)
    return m.cell, m.code


def answers(*mistakes: str, **extra: str) -> dict:
    """Reference answers, with the named mistakes, and code put before an answer (``extra``)."""
    result = reference_answers(NAME)
    for key in mistakes:
        cell, code = mistake(key)
        result[cell] = code
    for cell, prefix in extra.items():
        result[cell] = textwrap.dedent(prefix).strip() + "\n\n" + result[cell]
    return result


def index_of(nb, gid: str) -> int:
    return next(i for i, c in enumerate(nb.cells) if nbtools.grade_id(c) == gid)


def code_cell(source: str):
    import nbformat
    cell = nbformat.v4.new_code_cell(textwrap.dedent(source).strip() + "\n")
    cell.id = uuid.uuid4().hex[:8]
    return cell


def write(nb, path: Path, mtime: float | None = None) -> None:
    nbtools.write(nb, path)
    if mtime is not None:
        os.utime(path, (mtime, mtime))


# ---------------------------------------------------------------------------------------------
def colab_save(nb):
    """What a save through Colab may do: its own metadata and ids, nbgrader's marks and locks gone."""
    nb = copy.deepcopy(nb)
    nb.metadata = {"colab": {"provenance": [], "gpuType": "T4"}, "accelerator": "GPU",
                   "kernelspec": {"name": "python3", "display_name": "Python 3"},
                   "language_info": {"name": "python"}}
    for cell in nb.cells:
        cell.metadata = {"id": uuid.uuid4().hex[:12]} if cell.cell_type == "code" else {}
        if cell.cell_type == "code":
            cell.metadata["colab"] = {"base_uri": "https://localhost:8080/"}
            cell.metadata["outputId"] = uuid.uuid4().hex
        cell.id = uuid.uuid4().hex[:12]
    return nb


def build(folder: Path) -> list[Case]:  # noqa: C901  (a list of cases)
    folder = Path(folder)
    cases: list[Case] = []
    old = time.time() - 3 * 86400

    def add(student, nb, status, score, says=(), lost=(), what="", filename=f"{NAME}.ipynb"):
        if nb is not None:
            write(nb, folder / student / filename)
        cases.append(Case(student, status, score, list(says), frozenset(lost), what))

    ok = answers()
    # -- bystanders: first, middle and last in the run ------------------------------------------
    add("aaa-clean", student_nb(ok), "graded", MAX, what="correct answers")
    add("mmm-clean-mistakes", student_nb(answers("dict-ignored", "no-eval-mode")), "graded", 5,
        lost={"test_to_device", "test_evaluate"}, what="two ordinary mistakes")
    add("zzz-clean", student_nb(ok), "graded", MAX, what="correct answers, graded after every attack")

    # -- intake: names, zips, Colab --------------------------------------------------------------
    add("name-copy-of", student_nb(ok), "graded", MAX, ["graded 'Copy of 01_devices.ipynb'"],
        filename=f"Copy of {NAME}.ipynb", what="Colab's 'Copy of' name")
    write(student_nb(), folder / "name-two-downloads" / f"{NAME}.ipynb", mtime=old)
    add("name-two-downloads", student_nb(ok), "graded", MAX, ["several files", "graded '01_devices (1).ipynb'"],
        filename=f"{NAME} (1).ipynb", what="an old download and a newer '(1)' one")
    add("name-untitled", student_nb(ok), "graded", MAX, ["graded 'Untitled3.ipynb'"], filename="Untitled3.ipynb",
        what="renamed beyond recognition: matched by content")
    zpath = folder / "zip-one-per-student" / "submission.zip"
    zpath.parent.mkdir(parents=True)
    with zipfile.ZipFile(zpath, "w") as zf:
        zf.writestr(f"work/{NAME}.ipynb", nbtools_text(student_nb(ok)))
        zf.writestr(f"__MACOSX/work/._{NAME}.ipynb", b"\x00\x05junk")
        zf.writestr("work/notes.txt", "my notes")
        zf.writestr("work/data.csv", "a,b\n1,2\n")
    (folder / "zip-one-per-student" / "README.md").write_text("extra file")
    add("zip-one-per-student", None, "graded", MAX, ["submission.zip:work/01_devices.ipynb"],
        what="one zip with the notebook and extra files")
    add("colab-saved", colab_save(student_nb(answers("percent"))), "graded", 8,
        ["nbgrader's marks were missing"], lost={"test_evaluate"},
        what="saved through Colab: nbgrader metadata, locks and ids gone")

    # -- test cells edited, deleted, duplicated, turned to markdown; grade id renamed -------------
    nb = student_nb(answers("percent"))
    nb.cells[index_of(nb, "test_evaluate")].source = "print('all tests pass')\n"
    add("test-edited", nb, "graded", 8, ["edited test cell(s) test_evaluate"], lost={"test_evaluate"},
        what="test cell replaced by a print")
    nb = student_nb(answers("tuple-to-list"))
    del nb.cells[index_of(nb, "test_to_device")]
    add("test-deleted", nb, "graded", 7, ["'test_to_device' was missing"], lost={"test_to_device"},
        what="test cell deleted")
    nb = student_nb(ok)
    i = index_of(nb, "test_pick_device")
    nb.cells.insert(i + 1, copy.deepcopy(nb.cells[i]))
    nb.cells[i + 1].id = "pasted-copy"
    add("test-duplicated", nb, "graded", MAX, what="test cell pasted twice (nbgrader alone aborts the run)")
    nb = student_nb(answers("no-zero-grad"))
    cell = nb.cells[index_of(nb, "test_train_one_epoch")]
    cell.cell_type = "markdown"
    cell.pop("outputs", None)
    cell.pop("execution_count", None)
    add("test-to-markdown", nb, "graded", 7, ["had become markdown"], lost={"test_train_one_epoch"},
        what="test cell turned into markdown")
    nb = student_nb(answers("percent"))
    nb.cells[index_of(nb, "test_evaluate")].metadata["nbgrader"]["grade_id"] = "hacked"
    add("grade-id-renamed", nb, "graded", 8, ["hacked->test_evaluate"], lost={"test_evaluate"},
        what="a test's grade id renamed (nbgrader alone fails the student)")
    nb = student_nb(ok)
    i = index_of(nb, "to_device")
    nb.cells.insert(i, code_cell("scratch = [1, 2, 3]\nprint('trying things', scratch)"))
    nb.cells.insert(i + 2, code_cell("print(to_device([torch.ones(1)], 'cpu'))"))
    nb.cells.insert(i + 3, copy.deepcopy(nb.cells[0]))  # a markdown cell pasted in between
    nb.cells[i + 3].id = "pasted-md"
    add("cells-added", nb, "graded", MAX, what="code and markdown cells added between answer and test")

    # -- files that are no notebook -------------------------------------------------------------
    (folder / "file-invalid-json").mkdir()
    (folder / "file-invalid-json" / f"{NAME}.ipynb").write_text('{"cells": [ {"cell_type": "code", ')
    add("file-invalid-json", None, "failed", 0, ["not valid JSON"], what="truncated JSON")
    (folder / "file-empty").mkdir()
    (folder / "file-empty" / f"{NAME}.ipynb").write_bytes(b"")
    add("file-empty", None, "failed", 0, ["empty"], what="0 bytes")

    # -- kernel death, memory, time, output --------------------------------------------------------
    nb = student_nb(ok)
    nb.cells.insert(index_of(nb, "test_evaluate") + 1, code_cell("import os\nos._exit(1)"))
    add("kernel-exit-cell", nb, "graded", MAX, ["graded again", "kernel died"],
        what="os._exit in a cell of its own: rerun without it")
    nb = student_nb(ok)
    nb.cells[index_of(nb, "pick_device")].source = textwrap.dedent('''
        import os as _os
        def pick_device() -> torch.device:
            _os._exit(3)
        ''').strip() + "\n"
    add("kernel-exit-in-test", nb, "graded", 8, ["graded again", "pick_device"], lost={"test_pick_device"},
        what="the graded function calls os._exit when the test runs")
    nb = student_nb(ok)
    nb.cells[index_of(nb, "evaluate")].source = reference_answers(NAME)["evaluate"].replace(
        "model.eval()", "model.eval()\n    _hog = [torch.empty(2**30, dtype=torch.uint8) for _ in range(1000)]", 1)
    add("memory-blowup", nb, "graded", 8, lost={"test_evaluate"},
        what="the graded function allocates without end (stopped by the address-space limit)")
    nb = student_nb(ok)
    nb.cells.insert(index_of(nb, "test_evaluate") + 1, code_cell("while True:\n    pass"))
    add("infinite-loop", nb, "graded", MAX, ["cell limit"], what="an endless loop in a cell of its own")
    nb = student_nb(ok)
    nb.cells[index_of(nb, "train_one_epoch")].source = reference_answers(NAME)["train_one_epoch"].replace(
        "model.train()", "model.train()\n    import time; time.sleep(10**6)", 1)
    add("sleep-past-budget", nb, "graded", 7, ["cell limit", "test_train_one_epoch"],
        lost={"test_train_one_epoch"}, what="the graded function sleeps for days")
    nb = student_nb(ok)
    nb.cells.insert(index_of(nb, "test_pick_device"), code_cell("for i in range(1_000_000):\n    print(i)"))
    add("million-lines", nb, "graded", MAX, what="a million printed lines")

    # -- gaming the tests: each is a review (score kept), and the test it games earns nothing -------------
    all_tests = set(POINTS)
    def whole(**cells):
        """Reference answers with whole answer cells replaced."""
        result = answers()
        result.update({k: textwrap.dedent(v).strip() + "\n" for k, v in cells.items()})
        return result

    add("game-allclose", student_nb(answers("no-zero-grad", train_one_epoch="""
        torch.allclose = lambda *a, **k: True
        """)), "review", 7, ["review", "torch.allclose"], lost={"test_train_one_epoch"},
        what="torch.allclose always True, wrong answer")
    add("game-check-helper", student_nb(answers("device-string", pick_device="""
        getattr(__import__("gpucourse.checks", fromlist=["Check"]), "Check").that = lambda *a, **k: None
        getattr(__import__("gpucourse.checks", fromlist=["Check"]), "Check").equal = lambda *a, **k: None
        """)), "review", 8, ["review", "Check.that was replaced"], lost={"test_pick_device"},
        what="gpucourse.checks.Check patched (hidden from the static scan), wrong answer")
    add("game-reference", student_nb(whole(evaluate="""
        import gpucourse.testing as _t
        _t.toy_loader = lambda *args, **kwargs: [(torch.zeros(2, 4), torch.zeros(2, dtype=torch.long))]

        def evaluate(model, loader, device):
            return 0.5
        """)), "review", 8, ["review", "toy_loader"], lost={"test_evaluate"},
        what="the tests' probe (toy data) patched, wrong answer")
    add("game-builtins", student_nb(answers("device-string", pick_device="""
        import builtins
        builtins.isinstance = lambda *a: True
        """)), "review", 8, ["review", "isinstance"], lost={"test_pick_device"},
        what="builtins.isinstance always True")
    add("game-shadow-builtins", student_nb(answers("device-string", pick_device="""
        def isinstance(obj, cls):
            return True
        AssertionError = type("AssertionError", (Exception,), {})
        """)), "review", 8, ["review", "isinstance"], lost={"test_pick_device"},
        what="isinstance and AssertionError redefined in the notebook")
    add("game-settrace", student_nb(answers("percent", evaluate="""
        import sys as _s, linecache as _lc
        def _skip(frame, event, arg):
            if event == "line":
                line = _lc.getline(frame.f_code.co_filename, frame.f_lineno).strip()
                if line.startswith(("assert", "check.")):
                    try:
                        frame.f_lineno = frame.f_lineno + 1
                    except Exception:
                        pass
            return _skip
        getattr(_s, "set" + "trace")(_skip)
        """)), "review", 8, ["review", "trace"], lost={"test_evaluate"},
        what="a trace function that jumps over asserts")
    add("game-eq-true", student_nb(whole(pick_device="""
        class _Any:
            def __eq__(self, other):
                return True
            __class__ = property(lambda self: torch.device)

        def pick_device():
            return _Any()
        """, evaluate="""
        class _F(float):
            def __sub__(self, other):
                return 0.0
            def __le__(self, other):
                return True
            def __ge__(self, other):
                return True

        def evaluate(model, loader, device):
            model.eval()
            with torch.no_grad():
                model(next(iter(loader))[0])
            return _F(0.123)
        """)), "review", 6, ["review", "returned an object of class"],
        lost={"test_pick_device", "test_evaluate"}, what="objects whose == is always True")
    solutions_path = str(REPO / "solutions" / f"{NAME}.ipynb")
    add("game-read-solutions", student_nb(whole(pick_device=f"""
        import json as _json
        try:
            _src = _json.load(open({solutions_path!r}))
            for _c in _src["cells"]:
                if "BEGIN SOLUTION" in "".join(_c["source"]):
                    exec("".join(_c["source"]))
        except Exception as _e:
            print("could not read:", _e)
        """, to_device="# copied from the solutions at grading time", train_one_epoch="pass", evaluate="pass")),
        "review", 0, ["review", "reading", "solutions"], lost=all_tests,
        what="reads the instructor's solutions at grading time")
    add("game-gradebook", student_nb(answers(evaluate="""
        import sqlite3 as _sq
        for _path in ("../../../gradebook.db", "../../../../gradebook.db", "../../../../course/gradebook.db"):
            try:
                _con = _sq.connect(_path)
                _con.execute("update grade set auto_score = 100")
                _con.commit()
            except Exception as _e:
                print("no:", _e)
            try:
                open(_path, "r+b").write(b"garbage")
            except Exception as _e:
                print("no:", _e)
        """)), "review", MAX, ["review", "gradebook.db"],
        what="writes the gradebook (its own and the shared one): refused, the correct answers keep their points")
    checks_path = str(REPO / "gpucourse" / "checks.py")
    add("game-write-outside", student_nb(answers(to_device=f"""
        for _path in ({checks_path!r}, "../../../../grades.csv", "/tmp/evil.pth"):
            try:
                with open(_path, "a") as _f:
                    _f.write("# changed by a student")
            except Exception as _e:
                print("no:", _e)
        """)), "review", MAX, ["review", "writing"],
        what="writes the helper package and the results folder: refused, the correct answers keep their points")
    add("game-read-test-variables", student_nb(whole(evaluate="""
        def evaluate(model, loader, device):
            model.eval()
            with torch.no_grad():
                model(next(iter(loader))[0])
            return float(globals().get("_expected", 0.5))
        """)), "review", 8, ["review", "globals"], lost={"test_evaluate"},
        what="returns the hidden test's expected value from globals()")
    add("game-forge-log", student_nb(answers(pick_device="""
        import os as _o
        for _fd in range(3, 200):
            try:
                if _o.readlink(f"/proc/self/fd/{_fd}").endswith("guard.log"):
                    _o.write(_fd, b"0" * 64 + b' {"kind": "install", "seq": 0}\\n')
            except OSError:
                pass
        """)), "review", None, ["withheld", "not written by the grader"],
        what="writes a line into the guard's log: nothing can repair a forged log, so the score is withheld")
    return cases


def nbtools_text(nb) -> str:
    import nbformat
    return nbformat.writes(nb)


def clean_row(case: Case) -> dict:
    """What a bystander's row is in a clean run (the same whatever else is graded)."""
    return {"student_id": case.student, "notebook": NAME, "score": f"{case.score:g}", "max_score": f"{MAX:g}",
            "status": case.status, "message": ""}


if __name__ == "__main__":  # write the cases somewhere to look at them
    import sys
    target = Path(sys.argv[1] if len(sys.argv) > 1 else "/tmp/adversarial")
    for c in build(target):
        print(f"{c.student:<26} {c.status:<7} {c.score if c.score is not None else '-':>4}  {c.what}")
    print(json.dumps(str(target)))
