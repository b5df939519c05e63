"""A one-node Slurm cluster in a folder, for the tests and the benchmark of ``submit-slurm``.

``slurmctld`` and ``slurmd`` from Debian's ``slurm-wlm`` run in the foreground as children of
this process, with their own ``slurm.conf``, state, spool and logs under one folder and on free
ports, so they cannot meet a cluster already running on the machine. ``AuthType=auth/none``: no
munge daemon to start, which is fine for a cluster only localhost can reach. No slurmdbd, so
``sacct`` does not work here; ``graders.grading.slurm`` reads the tasks' own exit files instead.
"""

from __future__ import annotations

import os
import shutil
import signal
import socket
import subprocess
import tempfile
import time
from contextlib import contextmanager
from pathlib import Path

DAEMONS = ("slurmctld", "slurmd")
CLIENTS = ("sbatch", "squeue", "scontrol", "sinfo", "scancel")


def missing_binaries() -> list[str]:
    return [name for name in DAEMONS + CLIENTS if not shutil.which(name, path=_sbin_path())]


def _sbin_path() -> str:
    return os.environ.get("PATH", "") + os.pathsep + "/usr/sbin:/sbin"


def free_ports(count: int) -> list[int]:
    sockets = [socket.socket() for _ in range(count)]
    try:
        for s in sockets:
            s.bind(("127.0.0.1", 0))
        return [s.getsockname()[1] for s in sockets]
    finally:
        for s in sockets:
            s.close()


def node_cpus(limit: int) -> int:
    """The CPUs slurmd sees on this machine (``slurmd -C``), at most ``limit``."""
    out = subprocess.run([_which("slurmd"), "-C"], capture_output=True, text=True).stdout
    for word in out.split():
        if word.startswith("CPUs="):
            return max(1, min(limit, int(word[5:])))
    return max(1, min(limit, os.cpu_count() or 1))


def write_conf(folder: Path, cpus: int) -> Path:
    ctld_port, node_port = free_ports(2)
    user = "root" if os.geteuid() == 0 else os.environ.get("USER", "root")
    lines = [
        "ClusterName=graders-test",
        "SlurmctldHost=localhost",
        f"SlurmctldPort={ctld_port}",
        f"SlurmdPort={node_port}",
        "AuthType=auth/none",
        "CredType=cred/none",
        f"SlurmUser={user}",
        f"StateSaveLocation={folder / 'state'}",
        f"SlurmdSpoolDir={folder / 'spool'}",
        f"SlurmctldPidFile={folder / 'slurmctld.pid'}",
        f"SlurmdPidFile={folder / 'slurmd.pid'}",
        f"SlurmctldLogFile={folder / 'slurmctld.log'}",
        f"SlurmdLogFile={folder / 'slurmd.log'}",
        "SelectType=select/cons_tres",
        "SelectTypeParameters=CR_Core",
        "ProctrackType=proctrack/linuxproc",
        "TaskPlugin=task/none",
        "JobAcctGatherType=jobacct_gather/none",
        "AccountingStorageType=accounting_storage/none",
        "MpiDefault=none",
        "ReturnToService=2",
        "MinJobAge=3600",  # finished jobs stay visible to scontrol for the report
        f"NodeName=localhost CPUs={cpus} State=UNKNOWN",
        "PartitionName=debug Nodes=ALL Default=YES MaxTime=INFINITE State=UP",
    ]
    for sub in ("state", "spool"):
        (folder / sub).mkdir(parents=True, exist_ok=True)
    conf = folder / "slurm.conf"
    conf.write_text("\n".join(lines) + "\n")
    return conf


def _which(name: str) -> str:
    return shutil.which(name, path=_sbin_path()) or name


class LocalCluster:
    """Start with :meth:`start`, always :meth:`stop` (``local_cluster`` does both)."""

    def __init__(self, folder: Path, cpus: int = 2):
        self.folder = Path(folder)
        self.cpus = node_cpus(cpus)
        self.conf = write_conf(self.folder, self.cpus)
        self.daemons: list[subprocess.Popen] = []

    def env(self) -> dict:
        return {**os.environ, "SLURM_CONF": str(self.conf)}

    def start(self, timeout: float = 60) -> None:
        for name, extra in (("slurmctld", ["-c"]), ("slurmd", ["-N", "localhost"])):
            log = open(self.folder / f"{name}.stdout", "w")
            self.daemons.append(subprocess.Popen([_which(name), "-D", "-f", str(self.conf), *extra],
                                                 stdout=log, stderr=subprocess.STDOUT, env=self.env(),
                                                 start_new_session=True))
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            if any(d.poll() is not None for d in self.daemons):
                break
            state = subprocess.run(["sinfo", "-h", "-o", "%T"], capture_output=True, text=True, env=self.env())
            if state.stdout.strip() == "idle":
                return
            time.sleep(0.5)
        self.stop()
        raise RuntimeError(f"the one-node Slurm cluster did not come up within {timeout:.0f} s:\n{self.logs()}")

    def logs(self, lines: int = 15) -> str:
        parts = []
        for name in ("slurmctld.log", "slurmd.log", "slurmctld.stdout", "slurmd.stdout"):
            path = self.folder / name
            if path.exists():
                parts.append(f"--- {path}\n" + "\n".join(path.read_text(errors="replace").splitlines()[-lines:]))
        return "\n".join(parts)

    def stop(self) -> None:
        """Cancel what still runs, then end both daemons (TERM, then KILL after 10 s)."""
        if self.daemons and self.daemons[0].poll() is None:
            subprocess.run(["scancel", "--full", "--quiet", "--partition", "debug"], env=self.env(),
                           capture_output=True, timeout=30)
            time.sleep(1)
        for daemon in reversed(self.daemons):
            if daemon.poll() is None:
                daemon.send_signal(signal.SIGTERM)
        for daemon in reversed(self.daemons):
            try:
                daemon.wait(timeout=10)
            except subprocess.TimeoutExpired:
                daemon.kill()
                daemon.wait()
        self.daemons = []


@contextmanager
def local_cluster(folder: Path | None = None, cpus: int = 2):
    """A running one-node cluster; ``SLURM_CONF`` points at it inside the block."""
    made = folder is None
    folder = Path(folder or tempfile.mkdtemp(prefix="slurm-"))  # short: slurmd's sockets live here
    cluster = LocalCluster(folder, cpus)
    before = os.environ.get("SLURM_CONF")
    try:
        cluster.start()
        os.environ["SLURM_CONF"] = str(cluster.conf)
        yield cluster
    finally:
        cluster.stop()
        if made:
            shutil.rmtree(folder, ignore_errors=True)
        if before is None:
            os.environ.pop("SLURM_CONF", None)
        else:
            os.environ["SLURM_CONF"] = before
