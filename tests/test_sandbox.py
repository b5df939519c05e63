"""The OS sandbox of grading kernels (graders/grading/sandbox.py) and the warm slot's template
(graders/grading/warm.py, kernel_template.py, kernel_launch.py), seen from inside a kernel as a submission
would see them. The whole-notebook escapes are in tests/test_adversarial.py."""

from __future__ import annotations

import csv
import os
import shutil
import socket
import tempfile
import time
from pathlib import Path
from unittest import mock

import pytest

from graders.grading import kernels, rundir, sandbox, warm
from graders.paths import REPO, SAMPLES

needs_sandbox = pytest.mark.skipif(not sandbox.active(), reason=sandbox.probe().why)


@needs_sandbox
def test_check_finds_every_escape_contained():
    rows = sandbox.check_containment()
    assert {name for name, _, _ in rows} == {"read the grader's files", "read the grader's HOME",
                                             "write outside its folder", "connect out", "see other processes"}
    assert [(name, what) for name, contained, what in rows if not contained] == []


def test_without_the_sandbox_one_line_says_so():
    sandbox.probe.cache_clear()
    try:
        with mock.patch.dict(os.environ, {sandbox.ENV_SWITCH: "0"}):
            protection = sandbox.probe()
            assert not protection.sandboxed and "\n" not in protection.line()
            assert "guard's file rules" in protection.line()
            assert not warm.enabled()
            lines = sandbox.report()
            assert lines[0] == protection.line() and any("warm start: off" in line for line in lines)
    finally:
        sandbox.probe.cache_clear()


def test_a_missing_bwrap_is_named():
    sandbox.probe.cache_clear()
    try:
        with mock.patch.object(sandbox, "bwrap", return_value=None):
            assert "bubblewrap is not installed" in sandbox.probe().line()
    finally:
        sandbox.probe.cache_clear()


# -- a kernel forked by a warm slot's template --------------------------------------------------
INSIDE = r"""
import json, os, socket, subprocess, sys, time
found = {}
found["cap_eff"] = open("/proc/self/status").read().split("CapEff:")[1].split()[0]
found["planted_seen"] = [p for p in ("/tmp/planted", "/dev/shm/planted") if os.path.exists(p)]
for p in ("/tmp/planted", "/dev/shm/planted"):
    open(p, "w").write("left by the kernel before")
found["kernels"] = sorted(os.listdir(os.path.dirname(os.environ["GRADER_KERNEL_DIR"])))
try:
    socket.create_connection(("127.0.0.1", PORT), timeout=2); found["connect"] = "connected"
except OSError as e:
    found["connect"] = type(e).__name__
others = [p for p in os.listdir("/proc") if p.isdigit() and int(p) not in (1, os.getpid())]
readable = []
for pid in others:
    try:
        open(f"/proc/{pid}/mem", "rb").read(1); readable.append(pid)
    except OSError:
        pass
found["template_memory_readable"] = readable
found["torch_preloaded"] = "torch" in sys.modules
found["cwd"] = os.getcwd()
subprocess.Popen(["sh", "-c", "sleep 3; echo late > MARKER"], start_new_session=True)
print("FOUND" + json.dumps(found))
"""


@pytest.fixture()
def slot():
    if not warm.enabled():
        pytest.skip("no warm start here: " + sandbox.probe().why)
    s = warm.Slot()
    try:
        yield s
    finally:
        s.close()


def run_in_warm_kernel(slot: warm.Slot, code: str) -> tuple[dict, Path, Path]:
    """Start a kernel as nbgrader would in ``slot`` (its kernelspec, its run environment), run ``code``."""
    import json

    from jupyter_client import KernelManager
    root = Path(tempfile.mkdtemp(prefix="sandbox-course-"))
    (root / "gradebook.db").write_bytes(b"")
    (root / "source" / "nb").mkdir(parents=True)
    (root / "release" / "nb").mkdir(parents=True)
    rundir._PRISTINE.pop(str(root.resolve()), None)
    run = rundir.make(root, "nb", kernel_parent=slot.kernels)
    kernels.write_spec(run, slot.socket_path)
    slot.ensure()
    env = rundir.environment(run, "k" * 32)
    cwd = run / "course" / "autograded" / "s" / "nb"
    cwd.mkdir(parents=True)
    saved = dict(os.environ)
    outputs = []
    try:
        os.environ.clear()
        os.environ.update(env)
        tempfile.tempdir = None
        km = KernelManager(kernel_name="python3", transport="ipc",
                           ip=str(rundir.kernel_dir(run) / "runtime" / "kernel"))
        km.start_kernel(cwd=str(cwd))
        kc = km.client()
        kc.start_channels()
        kc.wait_for_ready(timeout=120)
        kc.execute_interactive(code, timeout=120, output_hook=lambda m: outputs.append(m))
        kc.stop_channels()
        km.shutdown_kernel(now=False)
    finally:
        os.environ.clear()
        os.environ.update(saved)
        tempfile.tempdir = None
    text = "".join(m["content"].get("text", "") for m in outputs if m["msg_type"] == "stream")
    found = json.loads(text.split("FOUND", 1)[1].splitlines()[0]) if "FOUND" in text else {"output": text}
    return found, run, root


def test_a_warm_kernel_sees_only_its_own_folder_and_leaves_nothing_running(slot):
    with socket.socket() as server:
        server.bind(("127.0.0.1", 0))
        server.listen(1)
        port = server.getsockname()[1]
        found, run, root = run_in_warm_kernel(slot, INSIDE.replace("PORT", str(port)))
    try:
        assert found.get("cap_eff") == "0000000000000000", found
        kernel_dir = Path(found["cwd"]).parents[2]
        assert found["kernels"] == [kernel_dir.name], "another run's kernel folder is visible"
        assert found["planted_seen"] == []
        assert found["connect"] != "connected"
        assert found["template_memory_readable"] == [], "the template's memory can be read"
        assert found["torch_preloaded"]
        assert (kernel_dir / "autograded" / "s" / "nb").is_dir(), "the kernel's own folder went with the sweep"
        time.sleep(4)  # the background process would have written by now
        assert not (kernel_dir / "autograded" / "s" / "nb" / "MARKER").exists(), \
            "a process the kernel started outlived it"
    finally:
        rundir.remove(run)
        shutil.rmtree(root, ignore_errors=True)
    with socket.socket() as server:
        server.bind(("127.0.0.1", 0))
        server.listen(1)
        found, run, root = run_in_warm_kernel(slot, INSIDE.replace("PORT", str(server.getsockname()[1])))
    rundir.remove(run)
    shutil.rmtree(root, ignore_errors=True)
    assert found["planted_seen"] == [], "the next kernel found what the previous one left in /tmp or /dev/shm"


def test_a_kernel_that_kills_its_template_only_ends_its_own_grading(slot):
    found, run, root = run_in_warm_kernel(slot, "import os, signal\n"
                                                "[os.kill(int(p), signal.SIGKILL) for p in os.listdir('/proc') "
                                                "if p.isdigit() and int(p) not in (1, os.getpid())]\n")
    rundir.remove(run)
    shutil.rmtree(root, ignore_errors=True)
    assert slot.usable(), "the slot could not start a new template"
    assert slot.template.poll() is None


# -- the same scores, warm or cold ------------------------------------------------------------------
def _grades(out: Path) -> list[dict]:
    with open(out / "grades_detail.csv", newline="") as f:
        return sorted(csv.DictReader(f), key=lambda r: (r["student_id"], r["notebook"], r["grade_id"]))


@pytest.mark.slow
def test_warm_and_cold_give_the_same_scores(tmp_path):
    from graders.grading.autograde import autograde
    names = ["01_devices", "05_gradscaler"]
    results = {}
    for mode in ("1", "0"):
        with mock.patch.dict(os.environ, {warm.ENV_SWITCH: mode}):
            rows = autograde(SAMPLES, tmp_path / mode, names=names, progress=False)
        results[mode] = ([(r.student_id, r.notebook, r.score, r.status) for r in rows], _grades(tmp_path / mode))
    assert results["1"] == results["0"]
    assert {r[3] for r in results["1"][0]} == {"graded"}


def test_the_template_script_needs_nothing_of_the_graders_package():
    source = (REPO / "graders" / "grading" / "kernel_template.py").read_text()
    launcher = (REPO / "graders" / "grading" / "kernel_launch.py").read_text()
    assert "graders" not in "".join(line for line in source.splitlines() if line.startswith(("import", "from")))
    assert "graders" not in "".join(line for line in launcher.splitlines() if line.startswith(("import", "from")))


def test_the_kernel_may_write_only_its_own_folder_and_the_gradebook_is_not_in_it(tmp_path):
    root = tmp_path / "course"
    for rel in ("gradebook.db", "source/nb/x.txt", "release/nb/nb.ipynb"):
        (root / rel).parent.mkdir(parents=True, exist_ok=True)
        (root / rel).write_text("x")
    (tmp_path / "slot").mkdir()
    for parent in (None, tmp_path / "slot"):
        run = rundir.make(root, "nb", kernel_parent=parent)
        try:
            k = rundir.kernel_dir(run)
            assert (run / "course" / "autograded").resolve() == k / "autograded"
            assert not (run / "course" / "gradebook.db").resolve().is_relative_to(k)
            assert {(run / sub).resolve() for sub in ("home", "tmp", "guard.log")} <= set(k.iterdir())
            with mock.patch.object(sandbox, "active", return_value=True), \
                    mock.patch.object(sandbox, "bwrap", return_value="/usr/bin/bwrap"):
                argv = kernels.argv(run)
            writable = [argv[i + 2] for i, a in enumerate(argv) if a == "--bind"]
            assert writable == [str(k)]
            assert "--unshare-all" in argv and "--die-with-parent" in argv
            assert argv[argv.index("--cap-drop") + 1] == "ALL"
        finally:
            rundir.remove(run)
        assert not run.exists() and not k.exists()
