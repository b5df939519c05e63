"""Processes a GPU run starts, a few at a time, each stopped at its stage's deadline.

Each job runs in a session of its own, its output into a log file, so that stopping it stops what it started
too (a notebook's kernel, autograde's nbgrader workers) and what it printed is kept.
"""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import time
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

#: Seconds between SIGTERM and SIGKILL for a job past its deadline.
GRACE_S = 5


@dataclass
class Job:
    name: str
    cmd: list[str]
    log: Path
    env: dict | None = None
    cwd: Path | None = None
    echo: bool = False  # print its output as it comes (progress of a long job)
    outcome: str = "not started"  # "finished", "stopped: out of time", "skipped: out of time", "stopped with the run"
    returncode: int | None = None
    seconds: float = 0.0
    _proc: subprocess.Popen | None = None
    _started: float = 0.0
    _echoed: int = 0

    def start(self) -> None:
        self.log.parent.mkdir(parents=True, exist_ok=True)
        with open(self.log, "wb") as out:
            self._proc = subprocess.Popen(self.cmd, stdout=out, stderr=subprocess.STDOUT, env=self.env,
                                          cwd=self.cwd, start_new_session=True)
        self._started = time.monotonic()
        self.outcome = "running"
        print(f"    {self.name}: started", flush=True)  # progress: a notebook or the grading runs for a minute or more

    def poll(self) -> bool:
        """Whether it has ended (its outcome set)."""
        self._echo()
        if self._proc.poll() is None:
            return False
        self.returncode, self.outcome = self._proc.returncode, "finished"
        self.seconds = time.monotonic() - self._started
        self._echo()
        return True

    def stop(self) -> None:
        for sig in (signal.SIGTERM, signal.SIGKILL):
            try:
                os.killpg(self._proc.pid, sig)
            except ProcessLookupError:
                break
            try:
                self._proc.wait(GRACE_S)
                break
            except subprocess.TimeoutExpired:
                continue
        self.seconds = time.monotonic() - self._started
        self.outcome = "stopped: out of time"
        self._echo()

    def text(self) -> str:
        return self.log.read_text(encoding="utf-8", errors="replace") if self.log.exists() else ""

    def _echo(self) -> None:
        if not self.echo or not self.log.exists():
            return
        with open(self.log, "rb") as f:
            f.seek(self._echoed)
            chunk = f.read()
        whole = chunk[: chunk.rfind(b"\n") + 1]
        self._echoed += len(whole)
        for line in whole.decode(errors="replace").splitlines():
            print(f"    {line}", file=sys.stderr, flush=True)


def run_jobs(jobs: list[Job], at_once: int, deadline: float, on_end: Callable[[Job], None] = lambda job: None,
             tick_s: float = 0.5) -> None:
    """Run ``jobs``, ``at_once`` at a time, in order; at ``deadline`` (``time.monotonic()``) stop those running and
    skip those not started. ``on_end`` is called as each one ends."""
    pending, running = list(jobs), []
    try:
        while pending or running:
            if time.monotonic() >= deadline:
                for job in running:
                    job.stop()
                    on_end(job)
                for job in pending:
                    job.outcome = "skipped: out of time"
                    on_end(job)
                return
            while pending and len(running) < at_once:
                job = pending.pop(0)
                job.start()
                running.append(job)
            for job in list(running):
                if job.poll():
                    running.remove(job)
                    on_end(job)
            time.sleep(tick_s)
    except BaseException:  # the run itself is being stopped (SIGTERM, Ctrl-C): nothing it started may outlive it
        for job in running:
            job.stop()
            job.outcome = "stopped with the run"
            on_end(job)
        raise
