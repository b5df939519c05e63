"""Adversarial submissions of 01_devices, each with the row it must end as.

``build(folder)`` writes ``folder/<student>/<file>`` for every case and returns the expectations.
The cases start from a *trimmed* copy of the course (``trimmed_solutions``): the demonstrations
are dropped, so that each grading run costs seconds; the graded cells are the real ones.

Where kernels run in the OS sandbox (``graders.grading.sandbox``), ``build(folder, host=Host(...))`` adds
the ``native-*`` cases: code that calls the C library (``ctypes``) or forks, past every audit hook, aimed at
what ``host`` names on the grading machine (a folder of the test's, ``/tmp``, the shared gradebook, a port
the test listens on, the grader's pid). Without the sandbox nothing contains native code (docs/grading.md),
so they are not built there.

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
from graders.grading import sandbox
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


# ---------------------------------------------------------------------------------------------
# Native code: what it aims at on the grading machine, and the cases
# ---------------------------------------------------------------------------------------------
#: How long the forked background process keeps trying (it should die with its kernel long before).
FORK_TRIES_S = 900


@dataclass(frozen=True)
class Host:
    """What the native-code cases aim at on the grading machine; the test checks each after the run."""
    outside: Path        # a folder of the test's, outside every run: nothing may appear in it
    gradebook: Path      # the shared course gradebook (``<out>/course/gradebook.db``)
    port: int            # the test listens on 127.0.0.1:port: no connection may arrive
    grader_pid: int      # the test's own process, which grades in threads
    pid_namespace: str   # the grader's (``/proc/self/ns/pid``): see native_kill
    token: str = field(default_factory=lambda: uuid.uuid4().hex[:8])
    escaped: list[str] = field(default_factory=list, compare=False)  # what the test found and took back

    @classmethod
    def example(cls, folder: Path) -> Host:
        """Harmless targets, for looking at the cases (``python -m tests.helpers.adversarial``)."""
        return cls(Path(folder) / "outside", Path(folder) / "gradebook.db", 9, 0, "pid:[0]")

    def markers(self) -> list[Path]:
        """Every file a native case tries to create on the grading machine."""
        return [self.outside / f"write-{self.token}", Path("/tmp") / f"grader-escape-write-{self.token}",
                self.outside / f"fork-{self.token}", Path("/tmp") / f"grader-escape-fork-{self.token}"]

    @property
    def process_name(self) -> str:
        """The name the forked background process gives itself (``/proc/<pid>/comm``, 15 characters)."""
        return f"advfork{self.token}"


LIBC = """
import ctypes as _ct
import os as _os
_libc = _ct.CDLL(None, use_errno=True)
"""


def native_write(host: Host) -> str:
    """Files created with libc's open/write: at absolute paths outside the run, and appended to the helper package."""
    targets = [str(host.markers()[0]), str(host.markers()[1])]
    checks = str(REPO / "gpucourse" / "checks.py")
    return LIBC + f"""
_new, _end = _os.O_WRONLY | _os.O_CREAT | _os.O_TRUNC, _os.O_WRONLY | _os.O_APPEND
for _path, _flags in [*[(_p, _new) for _p in {targets!r}], ({checks!r}, _end), ({str(host.gradebook)!r}, _end)]:
    _fd = _libc.open(_path.encode(), _flags, 0o644)
    _wrote = _libc.write(_fd, b"# escaped {host.token}\\n", {len(f"# escaped {host.token}") + 1}) if _fd >= 0 else -1
    print("native-write", _path, "fd", _fd, "wrote", _wrote, "errno", _ct.get_errno())
    if _fd >= 0:
        _libc.close(_fd)
"""


def _libc_read(variable: str, path: str) -> str:
    return f"""
{variable} = b""
_fd = _libc.open({path!r}.encode(), _os.O_RDONLY)
while _fd >= 0:
    _buf = _ct.create_string_buffer(1 << 16)
    _n = _libc.read(_fd, _buf, len(_buf))
    if _n <= 0:
        _libc.close(_fd)
        break
    {variable} += _buf.raw[:_n]
print("native-read", {path!r}, "fd", _fd, "bytes", len({variable}), "errno", _ct.get_errno())
"""


def native_read(host: Host) -> str:
    """The grader's files read with libc: the shared gradebook, and the solutions, whose evaluate it runs."""
    solutions = str(REPO / "solutions" / f"{NAME}.ipynb")
    return LIBC + _libc_read("_book", str(host.gradebook)) + _libc_read("_sol", solutions) + """
if _sol:
    import json as _json
    for _c in _json.loads(_sol)["cells"]:
        if "def evaluate" in "".join(_c["source"]):
            exec("".join(_c["source"]))
"""


def native_connect(host: Host) -> str:
    """A TCP connection to the grading machine's 127.0.0.1, with libc's socket/connect and with Python's socket."""
    return LIBC + f"""
import socket as _socket
import struct as _struct
_addr = _struct.pack("=H", _socket.AF_INET) + _struct.pack("!H", {host.port}) + _socket.inet_aton("127.0.0.1")
_addr += bytes(8)  # struct sockaddr_in
_fd = _libc.socket(_socket.AF_INET, _socket.SOCK_STREAM, 0)
print("native-connect libc: socket", _fd, "connect", _libc.connect(_fd, _addr, len(_addr)), "errno", _ct.get_errno())
try:
    _socket.create_connection(("127.0.0.1", {host.port}), timeout=5).close()
    print("native-connect python: connected")
except OSError as _e:
    print("native-connect python:", _e)
"""


def native_kill(host: Host) -> str:
    """kill(-1, SIGKILL) (every process the kernel may signal) and kill(grader, SIGKILL), with libc.

    The test's own safety, not part of the attack: a kernel that shares the grader's PID namespace (the sandbox
    is not in effect) does not send them, since kill(-1) would end every process of this user on the machine;
    it says so, and the test fails on that line instead."""
    return LIBC + f"""
if _os.readlink("/proc/self/ns/pid") != {host.pid_namespace!r}:
    print("native-kill: kill(-1) ->", _libc.kill(-1, 9), "kill(grader) ->", _libc.kill({host.grader_pid}, 9),
          "errno", _ct.get_errno(), flush=True)
    import time as _time
    _time.sleep(3)  # whatever dies of it has died before this cell ends: the row does not depend on a race
else:
    print("native-kill: not attempted, the kernel shares the grader's PID namespace")
"""


def native_fork(host: Host) -> str:
    """A background process (its own session, so no process-group kill reaches it) that tries every second,
    for FORK_TRIES_S, to create files outside the run and to append to the helper package."""
    targets = [str(host.markers()[2]), str(host.markers()[3])]
    checks = str(REPO / "gpucourse" / "checks.py")
    return f"""
import os as _os
import time as _time
if _os.fork() == 0:
    try:
        _os.setsid()
        with open("/proc/self/comm", "w") as _f:
            _f.write({host.process_name!r})
        for _ in range({FORK_TRIES_S}):
            for _path, _mode in [*[(_p, "w") for _p in {targets!r}], ({checks!r}, "a")]:
                try:
                    with open(_path, _mode) as _f:
                        _f.write("# escaped {host.token}\\n")
                except OSError:
                    pass
            _time.sleep(1)
    finally:
        _os._exit(0)
print("native-fork: forked")
"""


def native_cases(add, host: Host) -> None:
    """Each keeps its honest answers' points; the ctypes ones are a review (the static scan names them)."""
    add("native-write-outside", student_nb(answers(pick_device=native_write(host))), "review", MAX,
        ["review", "ctypes"], what="libc open/write: files outside the run, the helper package, the gradebook")
    stolen = dict(answers(), evaluate=native_read(host).strip() + "\n")  # no evaluate of its own
    add("native-read-grader-files", student_nb(stolen), "review", 8, ["review", "ctypes"], lost={"test_evaluate"},
        what="libc open/read of the gradebook and the solutions; evaluate only from the solutions read")
    add("native-connect-out", student_nb(answers(to_device=native_connect(host))), "review", MAX,
        ["review", "ctypes"], what="libc socket/connect and Python's socket to a port of the grading machine")
    # in a cell of its own: where the kill ends the kernel's own grading (a warm slot's template is in its reach,
    # and the kernel dies with it), the notebook is graded again without that cell, as for kernel-exit-cell
    nb = student_nb(answers())
    nb.cells.insert(index_of(nb, "test_evaluate") + 1, code_cell(native_kill(host)))
    add("native-kill-grader", nb, "review", MAX, ["review", "ctypes"],
        what="libc kill(-1, SIGKILL) and kill(grader's pid, SIGKILL), in a cell of its own")
    # a fork is no tampering with the tests, and the static scan does not name it: a plain graded row
    add("native-fork-outlives", student_nb(answers(pick_device=native_fork(host))), "graded", MAX,
        what="a forked background process in its own session that keeps trying to write outside the run")


def build(folder: Path, *, host: Host | None = None, sandboxed: bool | None = None) -> list[Case]:
    """The cases in ``folder``; ``sandboxed`` (default: whether kernels run in the OS sandbox here) decides the
    native cases and the expectations that depend on who refuses; ``host``: what the native cases aim at."""
    folder = Path(folder)
    sandboxed = sandbox.active() if sandboxed is None else sandboxed
    cases: list[Case] = []
    old = time.time() - 3 * 86400

    def add(student, nb, status, score, says=(), lost=(), what="", filename=f"{NAME}.ipynb"):
        if nb is not None:
            write(nb, folder / student / filename)
        cases.append(Case(student, status, score, list(says), frozenset(lost), what))

    def refused_by_guard(score, says):
        """(status, score, says) of a case the guard's file rules refuse and record (a review) without the OS
        sandbox; in it, the operating system refuses (no such file, a read-only one, a private /tmp) and the
        guard, which has no file rules there, records nothing: a graded row. The score is the same."""
        return ("graded", score, []) if sandboxed else ("review", score, ["review", *says])

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
        *refused_by_guard(0, ["reading", "solutions"]), lost=all_tests,
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
        """)), *refused_by_guard(MAX, ["gradebook.db"]),
        what="writes the gradebook (its own and the shared one): refused, the correct answers keep their points")
    checks_path = str(REPO / "gpucourse" / "checks.py")
    add("game-write-outside", student_nb(answers(to_device=f"""
        for _path in ({checks_path!r}, "../../../../grades.csv", "/tmp/evil.pth"):
            try:
                with open(_path, "a") as _f:
                    _f.write("# changed by a student")
            except Exception as _e:
                print("no:", _e)
        """)), *refused_by_guard(MAX, ["writing"]),
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
    if sandboxed:
        native_cases(add, host or Host.example(folder))
    return cases


def nbtools_text(nb) -> str:
    import nbformat
    return nbformat.writes(nb)


def clean_row(case: Case) -> dict:
    """What a bystander's row is in a clean run (the same whatever else is graded)."""
    return {"student_id": case.student, "notebook": NAME, "score": f"{case.score:g}", "max_score": f"{MAX:g}",
            "status": case.status, "message": ""}


def main(argv: list[str]) -> None:
    """Write the cases somewhere to look at them (``python -m tests.helpers.adversarial [FOLDER]``)."""
    target = Path(argv[0] if argv else "/tmp/adversarial")
    for c in build(target):
        print(f"{c.student:<26} {c.status:<7} {c.score if c.score is not None else '-':>4}  {c.what}")
    print(json.dumps(str(target)))


if __name__ == "__main__":
    import sys
    main(sys.argv[1:])
