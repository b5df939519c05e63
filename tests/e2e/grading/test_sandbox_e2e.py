"""Grading kernels in the sandbox, for real: warm (a sandboxed template forks each kernel) and cold (plain
nbgrader) give the same scores, and a kernel forked by a warm slot's template sees only its own folder, leaves
nothing running, and ends only its own grading. The sandbox's parts without a kernel:
tests/unit/grading/test_sandbox.py."""

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
from graders.paths import SAMPLES


# -- the same scores, warm or cold ------------------------------------------------------------------
def _grades(out: Path) -> list[dict]:
    # a reason may quote a value the tests drew at random ("... (got 1.31)"): the scores must agree
    with open(out / "grades_detail.csv", newline="") as f:
        rows = [{k: v for k, v in r.items() if k != "reason"} for r in csv.DictReader(f)]
    return sorted(rows, key=lambda r: (r["student_id"], r["notebook"], r["grade_id"]))


def test_warm_and_cold_give_the_same_scores(samples_graded, tmp_path):
    from graders.grading.autograde import autograde
    results = {"1": samples_graded}   # warm (tests/e2e/grading/conftest.py)
    with mock.patch.dict(os.environ, {warm.ENV_SWITCH: "0"}):
        names = sorted({r.notebook for r in samples_graded[1]})
        results["0"] = tmp_path / "0", autograde(SAMPLES, tmp_path / "0", names=names, progress=False)
    results = {mode: ([(r.student_id, r.notebook, r.score, r.status) for r in rows], _grades(out))
               for mode, (out, rows) in results.items()}
    assert results["1"] == results["0"]
    assert {r[3] for r in results["1"][0]} == {"graded"}


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
