"""Warm slots: what one ``--jobs`` worker keeps between notebooks, so that a notebook pays for its own cells
and not for starting Python, nbgrader and torch again.

A slot holds two processes, started on its first notebook and kept until the run ends:

- a **template** (``kernel_template.py``) inside the slot's OS sandbox, which has imported torch, torchvision,
  matplotlib, the helper package and ipykernel, and forks a fresh kernel for each notebook in new PID, mount
  and IPC namespaces (nothing of one student's kernel outlives it or reaches the next);
- an **nbgrader worker** (``graders.grading.worker``) outside it, which has imported nbgrader once and runs
  nbgrader's own autograde for each notebook in that notebook's private run folder.

Each notebook is still graded by real nbgrader, in a private course folder (``rundir``), with a kernel that
is a new process and sees only its own folder. The kernel's folder is made inside the slot's ``kernels/``
folder, the only one of the host the sandbox shows writable. Where the sandbox cannot start
(``sandbox.active()`` is False) or ``GRADER_WARM=0``, there are no slots and each notebook runs cold.
"""

from __future__ import annotations

import json
import logging
import os
import shutil
import signal
import socket
import subprocess
import sys
import tempfile
import threading
from pathlib import Path

from graders import course, machine
from graders.grading import execute, interpreter, sandbox
from graders.limits import Limits
from graders.paths import REPO

log = logging.getLogger(__name__)

TEMPLATE = Path(__file__).with_name("kernel_template.py")
#: where the template script is shown inside the sandbox (the graders package itself is not shown)
TEMPLATE_INSIDE = "/run/grader/kernel_template.py"
ENV_SWITCH = "GRADER_WARM"
#: notebooks one nbgrader worker grades before a fresh one takes over
WORKER_NOTEBOOKS = 100

_local = threading.local()


def enabled() -> bool:
    return os.environ.get(ENV_SWITCH, "1") != "0" and sandbox.active()


class Slot:
    """One job slot's template and worker, under the run's ``limits`` (by default the documented defaults);
    used by one thread at a time."""

    def __init__(self, limits: Limits | None = None) -> None:
        self.limits = Limits() if limits is None else limits
        self.folder = Path(tempfile.mkdtemp(prefix="gs-"))
        self.kernels = self.folder / "kernels"   # shown to the sandbox, writable
        self.control = self.folder / "control"   # the host's only: the template's socket
        self.kernels.mkdir()
        self.control.mkdir(mode=0o700)
        self.socket_path = self.control / "template.sock"
        self.template: subprocess.Popen | None = None
        self.worker: subprocess.Popen | None = None
        self.starting: threading.Thread | None = None
        self.broken = False
        self.graded = 0

    # -- the template, in the sandbox --------------------------------------------------------
    def template_command(self, fd: int) -> list[str]:
        args = sandbox.bwrap_args([str(self.kernels)])
        i = args.index("--cap-drop")
        # the template keeps what it needs to give each kernel its own namespaces and mounts; each kernel
        # drops every capability before it runs anything of the notebook
        args[i:i + 2] = ["--cap-add", "CAP_SYS_ADMIN", "--cap-add", "CAP_SETPCAP"]
        return [sandbox.bwrap(), *args, "--ro-bind", str(TEMPLATE), TEMPLATE_INSIDE,
                sys.executable, TEMPLATE_INSIDE, str(fd)]

    def start_template(self, env: dict) -> None:
        server = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
        self.socket_path.unlink(missing_ok=True)  # a template that died left it
        server.bind(str(self.socket_path))
        server.listen(16)
        log = open(self.folder / "template.log", "ab")
        self.template = subprocess.Popen(self.template_command(server.fileno()), env=env, stdin=subprocess.DEVNULL,
                                         stdout=subprocess.PIPE, stderr=log, pass_fds=[server.fileno()],
                                         cwd=str(self.kernels), start_new_session=True)
        server.close()
        log.close()
        line = self.template.stdout.readline().decode()
        if "ready" not in line:
            self.template.wait(timeout=30)
            raise RuntimeError("the kernel template did not start: "
                               + (self.folder / "template.log").read_text(errors="replace")[-800:])

    # -- the nbgrader worker -----------------------------------------------------------------
    def start_worker(self) -> None:
        env = course.venv_env()
        env["PYTHONPATH"] = str(REPO)
        with open(self.folder / "worker.log", "ab") as log:
            self.worker = subprocess.Popen([sys.executable, "-m", "graders.grading.worker"], env=env, text=True,
                                           stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=log,
                                           preexec_fn=execute.limited(self.limits))  # as `nbgrader autograde` ran
        ready = self.worker.stdout.readline()
        if "ready" not in ready:
            raise RuntimeError("the nbgrader worker did not start: "
                               + (self.folder / "worker.log").read_text(errors="replace")[-800:])

    def ensure(self) -> None:
        """Both processes running (started again if one died: a kernel may have killed its template)."""
        if self.starting is not None:
            self.starting.join()
            self.starting = None
        if self.template is None or self.template.poll() is not None:
            self.start_template(template_env())
        if self.worker is None or self.worker.poll() is not None:
            self.start_worker()

    def usable(self) -> bool:
        """Ready to grade (started again if needed); False, said once, if it cannot start: then cold starts."""
        if self.broken:
            return False
        try:
            self.ensure()
            return True
        except (OSError, RuntimeError, subprocess.SubprocessError) as error:
            self.broken = True
            log.warning("warm start unavailable, each notebook starts cold: %s", str(error).splitlines()[0][:300])
            return False

    def start_soon(self) -> None:
        """Start both in the background, while the grader gets the course ready."""
        def start():
            try:
                self.ensure()
            except Exception:  # ensure() starts them again, and says why, when needed
                pass
        self.starting = threading.Thread(target=start, daemon=True)
        self.starting.start()

    def autograde(self, root: Path, name: str, student: str, log_path: Path, env: dict) -> int | None:
        """nbgrader's autograde of one notebook in this slot; its exit code, None past the time limit."""
        self.ensure()
        request = {"root": str(root), "name": name, "student": student, "log": str(log_path), "env": env}
        answer: list = []

        def ask():
            self.worker.stdin.write(json.dumps(request) + "\n")
            self.worker.stdin.flush()
            answer.append(self.worker.stdout.readline())

        asking = threading.Thread(target=ask, daemon=True)
        asking.start()
        asking.join(self.limits.notebook_wall_s)
        if asking.is_alive() or not answer or not answer[0]:
            # the kernel's launcher is in a session of its own (jupyter_client's choice): stopping the template
            # too is what surely ends the kernel and all it started; the next notebook starts both again
            self.stop()
            return None
        self.graded += 1
        if self.graded % WORKER_NOTEBOOKS == 0:
            self.stop_worker()  # a fresh worker now and then: nothing accumulates in a long run
        return json.loads(answer[0])["code"]

    def stop_worker(self) -> None:
        _kill_group(self.worker)
        self.worker = None

    def stop(self) -> None:
        self.stop_worker()
        _kill_group(self.template)  # bwrap: its sandbox and every process in it go
        self.template = None

    def close(self) -> None:
        self.stop()
        shutil.rmtree(self.folder, ignore_errors=True)

    def sweep(self) -> None:
        """Whatever a finished kernel left in the slot's kernel folder goes before the next one starts."""
        for path in self.kernels.iterdir():
            if path.is_dir() and not path.is_symlink():
                shutil.rmtree(path, ignore_errors=True)
            else:
                path.unlink(missing_ok=True)


def _kill_group(process: subprocess.Popen | None) -> None:
    """Kill ``process`` and its process group (it started a session of its own), and reap it."""
    if process is None:
        return
    try:
        os.killpg(process.pid, signal.SIGKILL)
    except (ProcessLookupError, PermissionError):
        pass
    process.wait()


def template_env() -> dict:
    """The template's environment: what every kernel shares (data, fonts, threads), none of a run's own
    (each kernel gets its run's environment when it is forked)."""
    env = course.venv_env()
    keep = ("PATH", "LANG", "LC_ALL", "OMP_NUM_THREADS", "MKL_NUM_THREADS", "CUDA_VISIBLE_DEVICES")
    result = {k: env[k] for k in keep if k in env}
    result.update(interpreter.user_site_env())  # HOME is not the grader's: its user site, if it has one
    result.update(NBGRADER_EXECUTION="autograde", HOME="/tmp", PYTHONDONTWRITEBYTECODE="1",
                  COURSE_DATA=str(machine.data_dir()),
                  MPLCONFIGDIR=str(machine.mpl_dir()))  # read-only in the sandbox: the template copies it
    return result


class slots:
    """``with slots(n):`` n warm slots, started at once in the background; each thread that grades takes one
    of its own (:meth:`for_this_thread`); all are closed when the run ends."""

    def __init__(self, count: int, limits: Limits | None = None) -> None:
        self.limits = Limits() if limits is None else limits
        self.all: list[Slot] = []
        self.free: list[Slot] = []
        self.lock = threading.Lock()
        if enabled():
            machine.caches()  # the sandbox shows them: they must exist before it starts
            for _ in range(count):
                slot = Slot(self.limits)
                slot.start_soon()
                self.all.append(slot)
            self.free = list(self.all)

    def __enter__(self):
        return self

    def for_this_thread(self) -> Slot | None:
        if not self.all:
            return None
        owner, slot = getattr(_local, "slot", (None, None))
        if owner is not self:
            with self.lock:
                slot = self.free.pop() if self.free else None
            if slot is None:  # more threads than slots: one more
                slot = Slot(self.limits)
                with self.lock:
                    self.all.append(slot)
            _local.slot = (self, slot)
        return slot

    def __exit__(self, *exc) -> None:
        for slot in self.all:
            slot.close()
