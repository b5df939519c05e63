"""The in-kernel guard (graders/grading/guard.py) and its cells and log (guard_cells.py, guard_log.py), part by part.

No nbgrader, no Jupyter: ``guard_helpers.grade`` builds the guard cells as the grader does and runs
a small notebook in a child ``python`` that stands in for the kernel (the guard's audit hook cannot be
removed, so it never runs in pytest's process). Each contract has both sides: what a student writes
in good faith gives no finding, the attack it names does.
"""

from __future__ import annotations

import ast
import json
from pathlib import Path

import pytest

from graders.grading import guard_cells, guard_log
from graders.paths import REPO
from tests.helpers.guard_helpers import grade, guard_config, notebook, ran_clean, released


def refused(run, label: str) -> bool:
    return (run.results.get(label) or "").startswith("PermissionError")


# ---------------------------------------------------------------------------------------------
# no false alarms
# ---------------------------------------------------------------------------------------------
HONEST = """
from time import time
import gc
import json
import os
import tempfile
from dataclasses import dataclass

@dataclass
class Summary:
    mean: float
    n: int

class _Box:                      # the student's own helper class, with its own ==
    def __init__(self, v):
        self.v = v
    def __eq__(self, other):
        return isinstance(other, _Box) and self.v == other.v

def _helper(xs):
    _total = 0.0
    for _x in xs:
        _total += _x
    return _total

def compile(text):               # a built-in's name no test reads: the student's own
    return text.strip()

def summarise(xs):
    start = time()
    assert _Box(1) == _Box(1)
    names = sorted(globals())
    assert "_helper" in globals() and "summarise" in names
    with open("scratch.txt", "w") as f:          # the notebook's own folder
        f.write(json.dumps(list(xs)))
    os.rename("scratch.txt", "kept.txt")
    os.makedirs("plots/run1", exist_ok=True)
    with tempfile.NamedTemporaryFile("w", suffix=".txt") as f:   # the private TMPDIR
        f.write("x")
    with open(os.path.join(os.environ["COURSE_DATA"], "cache.json"), "w") as f:   # the shared data cache
        f.write("{}")
    with open(os.devnull, "w") as f:
        f.write("x")
    with open(json.__file__) as f:               # reading the standard library
        f.read(10)
    gc.collect()
    assert time() - start >= 0
    return Summary(mean=_helper(xs) / len(xs), n=len(xs))
"""


@pytest.mark.parametrize("sandboxed", [False, True])
def test_honest_notebook_gives_no_finding(tmp_path, sandboxed):
    nb = notebook(("course", "setup", "import json\nimport math\nimport time"),
                  ("answer", "summarise", HONEST),
                  ("test", "test_summarise", "_s = summarise([1.0, 2.0, 3.0])\nassert _s == Summary(mean=2.0, n=3)\n"
                                             "assert isinstance(_s.mean, float) and len([_s]) == 1"),
                  ("test", "test_again", "assert summarise([4.0]).n == 1\nassert json.loads('[1]') == [1]"),
                  ("answer", "later", "assert compile(' a ') == 'a'\nassert time() > 0  # still theirs"))
    run = grade(tmp_path, nb, release=released(nb, summarise="def summarise(xs):\n    ..."), sandboxed=sandboxed)
    ran_clean(run, "setup", "summarise", "test_summarise", "test_again", "later")
    report = run.report()
    assert (report.tampering, report.notes, report.per_test) == ([], [], {})
    kinds = [(r["kind"], r.get("test")) for r in run.records() if r["kind"] != "cell"]
    assert kinds == [("install", None), ("before", "test_summarise"), ("after", "test_summarise"),
                     ("before", "test_again"), ("after", "test_again")]
    assert (run.folders["cwd"] / "kept.txt").read_text() == "[4.0]"  # the last call's file
    assert (run.folders["data"] / "cache.json").exists()


# ---------------------------------------------------------------------------------------------
# the signed log
# ---------------------------------------------------------------------------------------------
@pytest.fixture(scope="module")
def signed_run(tmp_path_factory):
    """Two tests; the second one's call patches math.floor (one genuine finding)."""
    nb = notebook(("course", "setup", "import math"),
                  ("answer", "solve", "import math\ncalls = []\ndef solve(x):\n    calls.append(x)\n"
                                      "    if len(calls) == 2:\n        math.floor = lambda v: 0\n    return 2 * x"),
                  ("test", "test_a", "assert solve(1) == 2"),
                  ("test", "test_b", "assert solve(2) == 4"))
    run = grade(tmp_path_factory.mktemp("signed"), nb)
    ran_clean(run, "test_a", "test_b")
    return run


def _with_lines(tmp_path, lines) -> Path:
    path = tmp_path / "guard.log"
    path.write_text("".join(line + "\n" for line in lines))
    return path


def test_genuine_log_is_whole(signed_run):
    report = signed_run.report()
    assert report.unrepairable == []
    assert report.per_test == {"test_b": ["math.floor was replaced"]}
    assert report.tampering == ["math.floor was replaced while test_b ran"]


def test_log_read_with_another_key_is_all_forged(signed_run):
    report = guard_log.read_log(signed_run.log, b"x" * 64, signed_run.tests)
    assert any(f"{len(signed_run.records())} line(s)" in t and "not written by the grader" in t
               for t in report.unrepairable)
    assert "the grader's integrity guard did not start" in report.unrepairable


def test_forged_or_edited_line_is_found(signed_run, tmp_path):
    lines = signed_run.log.read_text().splitlines()
    after_b = next(i for i, r in enumerate(signed_run.records()) if r["kind"] == "after" and r["test"] == "test_b")
    mac, _, body = lines[after_b].partition(" ")
    edited = mac + " " + json.dumps(dict(json.loads(body), changes=[]), sort_keys=True)  # the finding wiped out
    report = guard_log.read_log(_with_lines(tmp_path, lines[:after_b] + [edited] + lines[after_b + 1:]),
                             signed_run.key, signed_run.tests)
    assert any("1 line(s)" in t and "not written by the grader" in t for t in report.unrepairable)
    appended = lines + ["0" * 64 + " " + json.dumps({"kind": "cell", "seq": len(lines)})]
    report = guard_log.read_log(_with_lines(tmp_path, appended), signed_run.key, signed_run.tests)
    assert any("not written by the grader" in t for t in report.unrepairable)


@pytest.mark.parametrize("how", ["cut", "reordered"])
def test_cut_or_reordered_log_is_found(signed_run, tmp_path, how):
    lines = signed_run.log.read_text().splitlines()
    lines = lines[:2] + lines[3:] if how == "cut" else lines[:2] + [lines[3], lines[2]] + lines[4:]
    report = guard_log.read_log(_with_lines(tmp_path, lines), signed_run.key, signed_run.tests)
    assert "the grader's integrity log was cut or reordered" in report.unrepairable


def test_missing_checkpoints_are_found(signed_run, tmp_path):
    records = signed_run.records()
    lines = signed_run.log.read_text().splitlines()
    last_after = max(i for i, r in enumerate(records) if r["kind"] == "after")
    report = guard_log.read_log(_with_lines(tmp_path, lines[:last_after]), signed_run.key, signed_run.tests)
    assert report.unrepairable == ["the integrity check after test_b did not run"]  # a clean cut at the end
    report = guard_log.read_log(signed_run.log, signed_run.key, signed_run.tests + ["test_c"])
    assert set(report.unrepairable) == {"the integrity check before test_c did not run",
                                        "the integrity check after test_c did not run"}
    empty = _with_lines(tmp_path, [])
    assert guard_log.read_log(empty, signed_run.key, signed_run.tests).unrepairable == [
        "the grader's integrity guard did not start"]
    assert guard_log.read_log(empty, signed_run.key, signed_run.tests, ran=False).tampering == []


def test_broken_checkpoint_is_unrepairable(tmp_path):
    """A graded name bound to an object the guard cannot wrap: the checkpoint fails, and says so."""
    weird = ("def solve():\n    return 1\n\nclass _Weird:\n    def __call__(self):\n        return 1\n"
             "    @property\n    def __dict__(self):\n        raise RuntimeError('no wrapping')\n\nsolve = _Weird()")
    run = grade(tmp_path, notebook(("answer", "solve", weird), ("test", "test_a", "assert solve() == 1")))
    assert run.results["grader-guard-before-test-a"].startswith("RuntimeError")
    assert any(t.startswith("the integrity check before test_a was broken (RuntimeError: no wrapping")
               for t in run.report().unrepairable)


# ---------------------------------------------------------------------------------------------
# files
# ---------------------------------------------------------------------------------------------
def test_file_access_outside_the_rules_is_refused_and_logged(tmp_path):
    """Without the OS sandbox, guard_os.py's rules refuse Python code the grader's files and writes outside
    the run, and log each finding (``grade`` runs the unsandboxed guard unless told otherwise)."""
    outside = tmp_path / "outside"
    outside.mkdir()
    (outside / "theirs.txt").write_text("someone else's")
    root = tmp_path / "course-root"
    root.mkdir()
    (root / "gradebook.db").write_text("grades")
    solution = REPO / "solutions" / "01_devices.ipynb"
    cells = {
        "write_outside": f"open({str(outside / 'new.txt')!r}, 'w')",
        "escape_upwards": "open('../../../../../outside/up.txt', 'w')",
        "remove_outside": f"import os\nos.remove({str(outside / 'theirs.txt')!r})",
        "rename_out": f"open('mine.txt', 'w').close()\nos.rename('mine.txt', {str(outside / 'moved.txt')!r})",
        "read_solution": f"open({str(solution)!r}).read()",
        "read_gradebook": f"open({str(root / 'gradebook.db')!r}).read()",
        "read_guard_log": "import os\nopen(os.path.join('../../../..', 'guard.log')).read()",
        "link": f"os.symlink({str(solution)!r}, 'link.ipynb')",   # making the link is a write in the own folder
        "read_link": "open('link.ipynb').read()",
        "environ": "open('/proc/self/environ', 'rb').read()",
        "key_gone": "assert 'GRADER_GUARD_KEY' not in os.environ and 'GRADER_GUARD_LOG' not in os.environ",
        "allowed": "import tempfile\nopen('own.txt', 'w').write('ok')\n"
                   f"assert open({str(outside / 'theirs.txt')!r}).read()\n"
                   "with open(os.path.join(tempfile.gettempdir(), 'scratch'), 'w') as f:\n    f.write('ok')",
    }
    nb = notebook(*[("answer", label, source) for label, source in cells.items()])
    run = grade(tmp_path, nb)
    for label in ("write_outside", "escape_upwards", "remove_outside", "rename_out", "read_solution",
                  "read_gradebook", "read_guard_log", "read_link", "environ"):
        assert refused(run, label), (label, run.results.get(label))
    ran_clean(run, "link", "key_gone", "allowed")
    assert not (outside / "new.txt").exists() and not (outside / "up.txt").exists()
    assert (outside / "theirs.txt").exists() and (run.folders["cwd"] / "mine.txt").exists()
    report = run.report()
    found = "\n".join(report.tampering)
    for fragment in (f"writing {outside / 'new.txt'} (open)", f"writing {outside / 'up.txt'} (open)",
                     f"writing {outside / 'theirs.txt'} (os.remove)", f"writing {outside / 'moved.txt'} (os.rename)",
                     f"reading {solution} (open)", f"reading {root / 'gradebook.db'} (open)",
                     f"reading {run.folders['run'] / 'guard.log'} (open)"):
        assert fragment in found, (fragment, found)
    assert any(t.startswith("reading /proc/") and t.endswith("/environ (open)") for t in report.tampering), found
    assert "own.txt" not in found and "scratch" not in found and "theirs.txt (open)" not in found
    assert report.per_test == {} and report.unrepairable == []


def test_in_the_sandbox_the_guard_has_no_file_program_or_signal_rules(tmp_path):
    """The OS sandbox keeps the kernel from the grader's files, programs and processes: the guard of a
    sandboxed kernel refuses none of them (the stand-in kernel has no sandbox, so each succeeds here). What
    stays is the guard's own: the process's environment (the key), memory and descriptors."""
    outside = tmp_path / "outside"
    outside.mkdir()
    solution = REPO / "solutions" / "01_devices.ipynb"
    cells = {
        "write_outside": f"open({str(outside / 'new.txt')!r}, 'w').write('x')",
        "remove_outside": f"import os\nos.remove({str(outside / 'new.txt')!r})",
        "read_solution": f"assert open({str(solution)!r}).read(10)",
        "run": "import subprocess\nsubprocess.run(['true'], check=True)",
        "signal": "import os\nos.kill(os.getppid(), 0)",
        "environ": "open('/proc/self/environ', 'rb').read()",
        "memory": "open('/proc/self/mem', 'rb')",
    }
    run = grade(tmp_path, notebook(*[("answer", label, source) for label, source in cells.items()]), sandboxed=True)
    ran_clean(run, "write_outside", "remove_outside", "read_solution", "run", "signal")
    assert refused(run, "environ") and refused(run, "memory")
    report = run.report()
    assert report.notes == [] and report.unrepairable == []
    assert [t.rsplit("/", 1)[-1] for t in report.tampering] == ["environ (open)", "mem (open)"], report.tampering
    assert all(t.startswith("reading /proc/") for t in report.tampering)


@pytest.mark.parametrize("sandboxed", [True, False])
def test_the_key_is_gone_from_the_environment_the_kernel_started_with(tmp_path, sandboxed):
    """``/proc/self/environ`` shows the environment a process started with, whatever ``os.environ`` says
    since; native code reads it past every audit hook. The guard overwrites its key there."""
    key = "5ec7e7" * 10 + "abcd"
    read = ("import ctypes\n_libc = ctypes.CDLL(None)\n_fd = _libc.open(b'/proc/self/environ', 0)\n"
            "_buf = ctypes.create_string_buffer(1 << 20)\n_n = _libc.read(_fd, _buf, len(_buf))\n"
            "_env = _buf.raw[:_n]\nassert b'GRADER_GUARD_LOG=' in _env  # this is the environment the kernel got\n"
            f"assert {key!r}.encode() not in _env")
    run = grade(tmp_path, notebook(("answer", "read", read), ("test", "test_x", "assert True")), key=key,
                sandboxed=sandboxed)
    ran_clean(run, "read", "test_x")
    assert run.report().unrepairable == []  # and the log is signed with the key all the same


def test_refused_write_during_a_test_counts_for_that_test(tmp_path):
    outside = tmp_path / "outside"
    nb = notebook(("answer", "save", f"def save(x):\n    with open({str(outside / 'leak.txt')!r}, 'w') as f:\n"
                                     "        f.write(str(x))\n    return x"),
                  ("test", "test_save", "try:\n    save(1)\nexcept PermissionError:\n    pass"),
                  ("test", "test_other", "assert 1 + 1 == 2"))
    run = grade(tmp_path, nb)
    ran_clean(run, "test_save", "test_other")
    report = run.report()
    assert report.per_test == {"test_save": [f"writing {outside / 'leak.txt'} (open)"]}
    assert f"writing {outside / 'leak.txt'} (open) during test_save" in report.tampering


# ---------------------------------------------------------------------------------------------
# the snapshot: put back before each test, reported after it
# ---------------------------------------------------------------------------------------------
PATCHES = """
import builtins
import math
import statistics

math.sqrt = lambda x: 3.0
statistics.mean.__code__ = (lambda data: 0).__code__
statistics.NormalDist.pdf = lambda self, x: 1.0
builtins.isinstance = lambda *a: True
"""
CHECKS_ORIGINALS = """
assert math.sqrt(16) == 4.0
assert statistics.mean([1, 3]) == 2
assert abs(statistics.NormalDist(0, 1).pdf(0) - 0.3989) < 1e-3
assert not isinstance(1, str)
"""


def test_patch_before_a_test_is_put_back_and_reported(tmp_path):
    nb = notebook(("course", "setup", "import json\nimport math\nimport statistics"),
                  ("answer", "patch", PATCHES),
                  ("test", "test_x", CHECKS_ORIGINALS),
                  ("test", "test_y", CHECKS_ORIGINALS))
    run = grade(tmp_path, nb)
    ran_clean(run, "patch", "test_x", "test_y")  # the tests saw the originals
    report = run.report()
    for change in ("math.sqrt was replaced", "the code of statistics.mean was replaced",
                   "statistics.NormalDist.pdf was replaced", "builtins.isinstance was replaced"):
        assert f"{change} before test_x (put back)" in report.tampering, (change, report.tampering)
    assert not any("test_y" in t for t in report.tampering)  # put back once, for good
    # the audit hook sees a code object written (Python 3.11 audits no other attribute write: the
    # snapshot above is what finds a replaced function or method)
    assert [t for t in report.tampering if t.startswith("changed ")] == ["changed mean.__code__ at line 6"]
    assert report.per_test == {} and report.unrepairable == []


def test_replaced_json_is_put_back_and_the_log_stays_whole(tmp_path):
    """The guard signs its log with its own copy of json's encoder: a notebook that replaces json.dumps
    is reported and put back, and the log it leaves is whole."""
    nb = notebook(("course", "setup", "import json"),
                  ("answer", "swap", "import json\njson.dumps.__code__ = (lambda *a, **k: 'garbage').__code__"),
                  ("test", "test_x", "assert json.dumps([1]) == '[1]'"))
    run = grade(tmp_path, nb)
    ran_clean(run, "swap", "test_x")
    report = run.report()
    assert "the code of json.dumps was replaced before test_x (put back)" in report.tampering
    assert report.unrepairable == [], report.unrepairable
    assert report.last_cell["test"] == "test_x"


def test_a_signed_line_that_is_no_record_makes_the_log_not_whole(tmp_path):
    """Whatever a signed line holds, the reader calls the log not whole instead of crashing the run."""
    import hashlib
    import hmac

    key = b"k" * 32
    lines = ["garbage", json.dumps({"seq": "0", "kind": 1}), "[1, 2]"]
    log = tmp_path / "guard.log"
    log.write_text("".join(hmac.new(key, b.encode(), hashlib.sha256).hexdigest() + " " + b + "\n" for b in lines))
    report = guard_log.read_log(log, key, ["test_x"])
    assert any("garbled" in t for t in report.unrepairable), report.unrepairable
    assert report.last_cell is None


HOOKS = """
import builtins
import io
import json
import sys

class _Finder:
    @staticmethod
    def find_spec(*args, **kwargs):
        return None

sys.modules["statistics"] = None
sys.meta_path.insert(0, _Finder)
sys.stdout = io.StringIO()
builtins.__import__ = lambda *a, **k: None
__builtins__ = dict(vars(builtins), len=lambda x: 0)
get_ipython().showtraceback = lambda *a, **k: None
json.JSONDecoder.__repr__ = lambda self: "mine"
"""
HOOKS_PUT_BACK = """
import io
import statistics as _statistics
assert sys.modules["statistics"] is _statistics is statistics
assert not any(getattr(f, "__name__", "") == "_Finder" for f in sys.meta_path)
assert not isinstance(sys.stdout, io.StringIO) and len([1, 2]) == 2
assert "showtraceback" not in vars(get_ipython()) and "__repr__" not in vars(json.JSONDecoder)
print("the test's output is seen")
"""


def test_hooks_and_import_system_replaced_before_a_test_are_put_back(tmp_path):
    nb = notebook(("course", "setup", "import json\nimport statistics\nimport sys"),
                  ("answer", "hooks", HOOKS),
                  ("test", "test_x", HOOKS_PUT_BACK))
    run = grade(tmp_path, nb)
    ran_clean(run, "hooks", "test_x")
    assert "the test's output is seen" in run.stdout
    restored = {t.removesuffix(" before test_x (put back)") for t in run.report().tampering}
    assert restored == {"sys.modules['statistics'] was replaced", "sys.stdout was replaced",
                        "the import system (sys.meta_path / sys.path_hooks) was changed",
                        "builtins.__import__ was replaced", "__builtins__ was replaced",
                        "IPython's showtraceback was replaced", "json.decoder.JSONDecoder.__repr__ was added"}


def test_change_while_a_test_runs_counts_for_that_test_only(tmp_path):
    """The second call of solve() patches math.floor: that test is blamed; the next sees it put back."""
    nb = notebook(("course", "setup", "import math"),
                  ("answer", "solve", "import math\ncalls = []\ndef solve(x):\n    calls.append(x)\n"
                                      "    if len(calls) == 2:\n        math.floor = lambda v: 0\n    return 2 * x"),
                  ("test", "test_a", "assert solve(1) == 2"),
                  ("test", "test_b", "assert solve(2) == 4"),
                  ("test", "test_c", "assert math.floor(2.5) == 2"))
    run = grade(tmp_path, nb)
    ran_clean(run, "test_a", "test_b", "test_c")
    report = run.report()
    assert report.per_test == {"test_b": ["math.floor was replaced"]}
    assert report.tampering == ["math.floor was replaced while test_b ran"]


def test_library_wrapper_is_not_a_patch_but_the_students_is(tmp_path):
    """A library that wraps a protected function (functools.wraps, in a library file: torch._dynamo
    does it to torch.manual_seed) is no finding; the same wrapper written in a notebook cell is."""
    lib = tmp_path / "lib"
    lib.mkdir()
    (lib / "fakelib.py").write_text("import functools\nimport math\n_floor = math.floor\n\n\n"
                                    "@functools.wraps(_floor)\ndef floor(x):\n    return _floor(x)\n\n\n"
                                    "math.floor = floor\n")
    own = ("import functools\nimport math\n_ceil = math.ceil\n@functools.wraps(_ceil)\n"
           "def ceil(x):\n    return _ceil(x) + 1\nmath.ceil = ceil")
    nb = notebook(("course", "setup", "import math"),
                  ("answer", "uses_lib", "import fakelib\nassert math.floor is fakelib.floor"),
                  ("answer", "own", own),
                  ("test", "test_x", "assert math.floor(2.5) == 2 and math.ceil(2.5) == 3"))
    config, _ = guard_config(tmp_path, nb)
    run = grade(tmp_path, nb, env={"PYTHONPATH": str(lib)}, library_roots=config["library_roots"] + [str(lib)])
    ran_clean(run, "uses_lib", "own", "test_x")
    assert run.report().tampering == ["math.ceil was replaced before test_x (put back)"]


def test_names_the_tests_read_are_put_back_and_the_students_stay(tmp_path):
    """A test reads ``json`` and ``len`` from the notebook: rebinding them is put back (the module: a
    finding; the built-in: a note). ``time`` no test reads: ``from time import time`` stays the student's."""
    nb = notebook(("course", "setup", "import json\nimport time"),
                  ("answer", "names", "from time import time\njson = 'not json'\nlen = lambda x: 0"),
                  ("test", "test_x", "assert json.loads('[1]') == [1]\nassert len([1, 2]) == 2"),
                  ("answer", "after", "assert callable(time) and not hasattr(time, 'sleep')\n"
                                      "assert json.__name__ == 'json'  # put back for good"))
    run = grade(tmp_path, nb)
    ran_clean(run, "names", "test_x", "after")
    report = run.report()
    assert report.tampering == ["the name 'json' no longer means the json module before test_x (put back)"]
    assert report.notes == ["the built-in 'len' was redefined (put back before test_x)"]


# ---------------------------------------------------------------------------------------------
# graded functions' results, trace functions, programs, output
# ---------------------------------------------------------------------------------------------
def test_lying_result_is_reported_and_honest_classes_are_not(tmp_path):
    answer = ("from dataclasses import dataclass\n\nclass AlwaysEqual:\n    def __eq__(self, other):\n"
              "        return True\n\n@dataclass\nclass Pair:\n    a: int\n    b: int\n\n"
              "def lying():\n    return [AlwaysEqual()]\n\n"
              "def honest():\n    return {'p': Pair(1, 2), 't': (1.0, 'x')}\n\n"
              "def via_course():\n    return Reference()")
    nb = notebook(("course", "setup", "class Reference:\n    def __eq__(self, other):\n        return True"),
                  ("answer", "answers", answer),
                  ("test", "test_lying", "assert lying() == [1]"),
                  ("test", "test_honest", "assert honest()['p'] == Pair(1, 2)"),
                  ("test", "test_course", "assert via_course() == 2"))
    stubs = "def lying():\n    ...\n\ndef honest():\n    ...\n\ndef via_course():\n    ..."
    run = grade(tmp_path, nb, release=released(nb, answers=stubs))
    ran_clean(run, "test_lying", "test_honest", "test_course")
    report = run.report()
    assert report.per_test == {
        "test_lying": ["lying returned an object of class AlwaysEqual that defines its own __eq__"]}


def test_trace_function_and_object_search(tmp_path):
    """gc.get_objects outside a test is a note, a trace function during one counts for it, and is removed."""
    nb = notebook(("answer", "peek", "import gc\nimport sys\n_n = len(gc.get_objects())\n\n"
                                     "def peek():\n    sys.settrace(lambda *a: None)\n    return 1"),
                  ("test", "test_peek", "assert peek() == 1"),
                  ("test", "test_after", "import sys\nassert sys.gettrace() is None"))
    run = grade(tmp_path, nb)
    ran_clean(run, "peek", "test_peek", "test_after")
    report = run.report()
    assert report.notes == ["searched the interpreter's objects (gc.get_objects) at line 3"]
    assert report.per_test == {"test_peek": ["installed a trace function (sys.settrace) at line 6",
                                             "a trace or profile function was active"]}


def test_programs_and_signals_from_student_code_are_refused(tmp_path):
    nb = notebook(("course", "setup", "import subprocess\nsubprocess.run(['true'], check=True)  # the course may"),
                  ("answer", "run", "import subprocess\nsubprocess.run(['true'])"),
                  ("answer", "system", "import os\nos.system('true')"),
                  ("answer", "signal", "import os\nos.kill(os.getppid(), 0)"),
                  ("answer", "own_signal", "import os\nos.kill(os.getpid(), 0)"))
    run = grade(tmp_path, nb)
    ran_clean(run, "setup", "own_signal")
    assert refused(run, "run") and refused(run, "system") and refused(run, "signal")
    report = run.report()
    assert [n.split(" (")[0] for n in report.notes] == ["started a program"] * 2
    assert any(t.startswith("sent a signal to process") and "(os.kill) at line 2" in t for t in report.tampering)


def test_poisoned_test_fails_at_once_and_the_others_run(tmp_path):
    nb = notebook(("answer", "f", "def f():\n    return 1"),
                  ("test", "test_a", "assert f() == 1"),
                  ("test", "test_b", "assert f() == 1"))
    run = grade(tmp_path, nb, poisoned=["test_a"])
    assert run.results["test_a"].startswith("RuntimeError: f stopped the kernel")
    ran_clean(run, "test_b")
    assert run.report().tampering == []


def test_output_is_capped_per_cell(tmp_path):
    nb = notebook(("answer", "flood", "for _ in range(1000):\n    print('x' * 99)"),
                  ("answer", "next", "print('next cell' * 3)"))
    run = grade(tmp_path, nb, max_output_chars=2000)
    ran_clean(run, "flood", "next")
    assert "output cut by the autograder after 2000 characters in this cell" in run.stdout
    assert 2000 <= run.stdout.count("x") < 2200
    assert "next cell" * 3 in run.stdout  # the count starts again in every cell


# ---------------------------------------------------------------------------------------------
# the cell that was running when the kernel died
# ---------------------------------------------------------------------------------------------
def test_last_cell_finds_the_cell_that_stopped_the_kernel(tmp_path):
    dies = "import os\nos._exit(3)"
    nb = notebook(("answer", "ok", "x = 1"), ("answer", "dies", dies), ("answer", "never", "y = 2"),
                  ("test", "test_x", "assert x == 1"))
    run = grade(tmp_path / "top", nb)
    assert run.returncode == 3 and "never" not in run.results
    assert run.report(ran=False).last_cell == {"hash": guard_cells.source_hash(dies), "kind": "cell",
                                               "seq": len(run.records()) - 1, "test": None}
    with open(run.log, "a") as f:  # a line not signed with the key is not the kernel's
        f.write("0" * 64 + " " + json.dumps({"kind": "cell", "hash": "forged", "seq": 99, "test": None}) + "\n")
    assert run.report(ran=False).last_cell["hash"] == guard_cells.source_hash(dies)
    assert guard_log.read_log(tmp_path / "missing.log", run.key, [], ran=False).last_cell is None


def test_last_cell_inside_a_test_and_the_findings_before_it(tmp_path):
    outside = tmp_path / "outside"
    test_b = "assert f(2) == 2"
    nb = notebook(("answer", "f", f"import os\ndef f(x):\n    if x == 2:\n        try:\n"
                                  f"            open({str(outside / 'x')!r}, 'w')\n        except PermissionError:\n"
                                  "            pass\n        os._exit(1)\n    return x"),
                  ("test", "test_a", "assert f(1) == 1"), ("test", "test_b", test_b), ("test", "test_c", "assert 1"))
    run = grade(tmp_path, nb)
    assert run.returncode == 1
    dead = run.report(ran=False)  # a dead kernel: what was found still counts, nothing else is missing
    assert (dead.last_cell["hash"], dead.last_cell["test"]) == (guard_cells.source_hash(test_b), "test_b")
    assert dead.per_test == {"test_b": [f"writing {outside / 'x'} (open)"]} and dead.unrepairable == []
    assert set(run.report().unrepairable) == {"the integrity check after test_b did not run",
                                              "the integrity check before test_c did not run",
                                              "the integrity check after test_c did not run"}


# ---------------------------------------------------------------------------------------------
# the cells and the configuration, without running them
# ---------------------------------------------------------------------------------------------
def test_guard_cells_surround_every_test(tmp_path):
    nb = notebook(("course", "setup", "import math"), ("answer", "f", "def f():\n    return 1"),
                  ("test", "test_a", "assert f() == 1"), ("test", "test_b", "assert f()"),
                  ("test", "test_unknown", "assert True"))
    config, _ = guard_config(tmp_path, nb)
    sources = guard_cells.guard_sources("tok123", config, ["test_a", "test_b"])
    guarded = guard_cells.insert_guards(nb, sources)
    labels = [c.id for c in guarded.cells]
    assert labels == ["grader-guard-top", "setup", "f", "grader-guard-before-test-a", "test_a",
                      "grader-guard-after-test-a", "grader-guard-before-test-b", "test_b", "grader-guard-after-test-b",
                      "test_unknown"]
    assert all(bool(c.metadata.get("grader_guard")) == c.id.startswith("grader-guard") for c in guarded.cells)
    assert sources["before:test_a"].splitlines() == [guard_cells.MARK, "_grader_guard_tok123.before('test_a')"]
    top = sources["top"]
    assert top.startswith(guard_cells.MARK + "\n" + guard_cells.GUARD_SOURCE) and "_grader_guard_tok123 = " in top
    installed, _rules = installed_with(top)
    checkpoints = {guard_cells.source_hash(s) for k, s in sources.items() if k != "top"}
    assert len(checkpoints) == 4 and checkpoints <= set(installed["trusted_sources"])
    assert set(config["trusted_sources"]) <= set(installed["trusted_sources"])


def installed_with(top: str) -> tuple[dict, str | None]:
    """The configuration the top guard cell installs the guard with, and the OS rules it passes (None: none)."""
    call = next(n for n in ast.walk(ast.parse(top)) if isinstance(n, ast.Call)
                and getattr(n.func, "id", "") == "_grader_guard_install")
    config = json.loads(call.args[0].args[0].value)
    return config, (call.args[1].id if isinstance(call.args[1], ast.Name) else call.args[1].value)


@pytest.mark.parametrize("sandboxed", [True, False])
def test_os_rules_are_pasted_only_without_the_sandbox(tmp_path, sandboxed):
    """In the OS sandbox the guard cell holds the guard alone; without it, guard_os.py's rules too. Either way
    the cell deletes every name it defined, so no notebook code can call the guard's factories again."""
    nb = notebook(("answer", "f", "def f():\n    return 1"), ("test", "test_a", "assert f() == 1"))
    config, _ = guard_config(tmp_path, nb, sandboxed=sandboxed)
    top = guard_cells.guard_sources("tok123", config, ["test_a"])["top"]
    installed, rules = installed_with(top)
    assert (guard_cells.GUARD_OS_SOURCE in top, rules) == ((False, None) if sandboxed else
                                                      (True, "_grader_guard_os_rules"))
    assert installed["sandboxed"] is sandboxed
    assert ({"cwd", "write_roots", "read_deny"} <= set(installed)) is not sandboxed
    tree = ast.parse(top)
    defined = {n.name for n in tree.body if isinstance(n, ast.FunctionDef)}
    deleted = {t.id for n in tree.body if isinstance(n, ast.Delete) for t in n.targets}
    assert defined and defined == deleted


def test_guard_config_follows_the_sandbox(tmp_path):
    """By default the configuration says whether kernels run sandboxed here; a sandboxed one has no file rules."""
    from unittest import mock

    from graders.grading import guarding, sandbox
    from graders.intake import student_files as intake
    nb = notebook(("answer", "f", "def f():\n    return 1"), ("test", "test_f", "assert f() == 1"))
    for active in (True, False):
        with mock.patch.object(sandbox, "active", return_value=active):
            config = guarding.guard_config(tmp_path / "run", "s", "nb", nb, nb, tmp_path / "out",
                                           intake.Intake(notebook="nb"), tmp_path / "root", [])
        assert config["sandboxed"] is active
        assert ({"cwd", "write_roots", "read_deny"} & set(config) == set()) is active


def test_guard_config_denies_the_graders_files(tmp_path):
    from unittest import mock

    from graders import machine
    from graders.grading import guarding
    from graders.intake import student_files as intake
    nb = notebook(("course", "setup", "import json"), ("answer", "f", "def f():\n    return json.dumps(1)"),
                  ("test", "test_f", "assert json.loads(f()) == 1"))
    run, out, root, folder = tmp_path / "run", tmp_path / "out", tmp_path / "root", tmp_path / "subs" / "alice"
    with mock.patch.object(machine, "data_dir", return_value=tmp_path / "data"):
        config = guarding.guard_config(run, "alice", "nb", nb, nb, out, intake.Intake(notebook="nb", folder=folder),
                                       root, [], sandboxed=False)
    deny = set(config["read_deny"])
    assert {str(REPO / p) for p in ("solutions", ".git", "graders", "samples")} <= deny
    assert {str(out.resolve()), str(root.resolve()), str(run), str((tmp_path / "subs").resolve())} <= deny
    assert config["cwd"] == str(run / "course" / "autograded" / "alice" / "nb")
    own = {str((run / "k").resolve() / sub) for sub in ("tmp", "home", "mpl")}
    assert own | {str(tmp_path / "data")} <= set(config["write_roots"])
    hashes = set(config["trusted_sources"])
    assert guard_cells.source_hash("import json") in hashes
    assert guard_cells.source_hash("assert json.loads(f()) == 1") in hashes
    assert guard_cells.source_hash("def f():\n    return json.dumps(1)") not in hashes  # the answer is the student's
    assert config["graded"] == ["f"] and config["namespace_modules"] == {"json": "json"}
    assert "json" in config["test_names"] and config["poisoned"] == []


# ---------------------------------------------------------------------------------------------
# the guard's own tools cannot be swapped: builtins, os.path and os, hmac and json are its own copies
# ---------------------------------------------------------------------------------------------
BYPASSES = {
    # the hook judges paths with the notebook's own builtins: an isinstance that says yes to
    # everything makes every path look like a file descriptor, and the patch undoes itself
    "builtins": "import builtins\n_orig = builtins.isinstance\nbuiltins.isinstance = lambda *a: True\n"
                "open({path!r}, 'w').write('x')\nbuiltins.isinstance = _orig",
    # os.path is not in the snapshot, so its replaced code is neither put back nor reported
    "realpath": "import os.path\nos.path.realpath.__code__ = (lambda filename, *, strict=False: '/dev/null').__code__\n"
                "open({path!r}, 'w').write('x')",
    # rebinding what realpath itself calls, and putting it back in the same cell
    "lstat": "import os, posixpath\n_orig = posixpath._joinrealpath\n"
             "posixpath._joinrealpath = lambda path, rest, strict, seen: ('/dev/null', True)\n"
             "open({path!r}, 'w').write('x')\nposixpath._joinrealpath = _orig",
    # a spy on hmac.new would be handed the log's key (and runs inside the hook, where nothing is checked)
    "hmac": "import hmac\n_orig = hmac.new\n"
            "def _spy(key, *a, **k):\n    open({path!r}, 'w').write(repr(key))\n    return _orig(key, *a, **k)\n"
            "hmac.new = _spy",
}


@pytest.mark.parametrize("how", sorted(BYPASSES))
def test_refusals_hold_when_the_guards_helpers_are_replaced(tmp_path, how):
    target = tmp_path / "outside" / "written.txt"
    run = grade(tmp_path, notebook(("answer", "evil", BYPASSES[how].format(path=str(target))),
                                   ("test", "test_x", "assert True")))
    assert not target.exists() or run.report().tampering, f"wrote {target} and nothing was reported"
