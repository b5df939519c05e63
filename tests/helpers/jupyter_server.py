"""A Jupyter server (``jupyter lab``, ``jupyter server``) for a test: headless on localhost, a free port, a token, its
own config, runtime and HOME folders; every wait bounded, the server always stopped (its own process group)."""

from __future__ import annotations

import contextlib
import os
import secrets
import signal
import socket
import subprocess
import sys
import time
import urllib.error
import urllib.request
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

BIN = Path(sys.executable).parent
#: a server on a loaded 2-core machine can take this long to answer its first request
START_S = 120


@dataclass
class Server:
    base: str  # http://127.0.0.1:PORT
    token: str
    log: Path

    def url(self, path: str) -> str:
        """``path`` on the server, with the token a browser logs in with (it then holds a cookie)."""
        return f"{self.base}{path}{'&' if '?' in path else '?'}token={self.token}"

    def request(self, path: str, method: str = "GET", body: bytes | None = None, timeout: float = 60.0):
        """(status, body text); the token in the header, as API clients send it (no XSRF cookie needed)."""
        req = urllib.request.Request(self.base + path, data=body, method=method,
                                     headers={"Authorization": f"token {self.token}"})
        with urllib.request.urlopen(req, timeout=timeout) as response:
            return response.status, response.read().decode("utf-8")


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


@contextlib.contextmanager
def running(app: str, cwd: Path, tmp: Path, *args: str, env: dict | None = None) -> Iterator[Server]:
    """``jupyter APP`` started in ``cwd`` (``tmp`` holds its private folders and log) until the block ends."""
    token, port = secrets.token_hex(16), free_port()
    home = tmp / "home"
    home.mkdir(parents=True, exist_ok=True)
    env = dict(os.environ if env is None else env, HOME=str(home), JUPYTER_RUNTIME_DIR=str(tmp / "runtime"),
               JUPYTERLAB_WORKSPACES_DIR=str(tmp / "ws"), JUPYTER_CONFIG_DIR=str(tmp / "config"),
               PATH=f"{BIN}{os.pathsep}{os.environ.get('PATH', '')}")
    cmd = [str(BIN / "jupyter"), app, "--no-browser", "--ip=127.0.0.1", f"--port={port}", "--port-retries=0",
           f"--ServerApp.token={token}", "--ServerApp.open_browser=False", "--allow-root", *args]
    log_path = tmp / f"{app}.log"
    with open(log_path, "w") as log:
        proc = subprocess.Popen(cmd, cwd=cwd, env=env, stdout=log, stderr=subprocess.STDOUT,
                                stdin=subprocess.DEVNULL, start_new_session=True)
        server = Server(f"http://127.0.0.1:{port}", token, log_path)
        try:
            _wait_until_it_answers(proc, server)
            yield server
        finally:
            _stop(proc)


def _wait_until_it_answers(proc: subprocess.Popen, server: Server) -> None:
    deadline = time.monotonic() + START_S
    while True:
        if proc.poll() is not None:
            raise RuntimeError(f"jupyter exited with {proc.returncode}:\n{server.log.read_text()[-3000:]}")
        with contextlib.suppress(urllib.error.URLError, ConnectionError, TimeoutError, OSError):
            if server.request("/api/status", timeout=5)[0] == 200:
                return
        if time.monotonic() > deadline:
            raise RuntimeError(f"jupyter did not answer within {START_S} s:\n{server.log.read_text()[-3000:]}")
        time.sleep(0.5)


def _stop(proc: subprocess.Popen) -> None:
    if proc.poll() is not None:
        return
    os.killpg(proc.pid, signal.SIGTERM)  # the server's own process group, started above
    try:
        proc.wait(timeout=20)
    except subprocess.TimeoutExpired:
        os.killpg(proc.pid, signal.SIGKILL)
        proc.wait(timeout=10)
