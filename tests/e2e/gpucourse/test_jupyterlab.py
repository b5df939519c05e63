"""The local path: ``jupyter lab`` on the repository serves the student notebooks, with nbgrader's
lab extension enabled. The server runs headless on localhost, on a free port, with a token; every
wait is bounded and the server is always stopped."""

from __future__ import annotations

import json
import os
import re
import secrets
import signal
import socket
import subprocess
import sys
import time
import urllib.error
import urllib.request
from pathlib import Path

import pytest

from graders.paths import NOTEBOOKS, REPO

BIN = Path(sys.executable).parent
STUDENT_NOTEBOOK = "notebooks/01_devices.ipynb"


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def get(url: str, token: str, timeout: float = 10.0):
    request = urllib.request.Request(url, headers={"Authorization": f"token {token}"})
    with urllib.request.urlopen(request, timeout=timeout) as response:
        return response.status, response.read().decode("utf-8")


@pytest.fixture(scope="module")
def lab(tmp_path_factory):
    jupyter = BIN / "jupyter"
    if not jupyter.exists():
        pytest.skip(f"no jupyter next to {sys.executable}")
    tmp = tmp_path_factory.mktemp("lab")
    token, port = secrets.token_hex(16), free_port()
    env = dict(os.environ, JUPYTER_RUNTIME_DIR=str(tmp / "runtime"), JUPYTERLAB_WORKSPACES_DIR=str(tmp / "ws"),
               JUPYTER_CONFIG_DIR=str(tmp / "config"), PATH=f"{BIN}{os.pathsep}{os.environ.get('PATH', '')}")
    cmd = [str(jupyter), "lab", "--no-browser", "--ip=127.0.0.1", f"--port={port}", "--port-retries=0",
           f"--ServerApp.token={token}", f"--ServerApp.root_dir={REPO}", "--ServerApp.open_browser=False",
           "--allow-root"]
    log = open(tmp / "lab.log", "w")
    proc = subprocess.Popen(cmd, cwd=REPO, env=env, stdout=log, stderr=subprocess.STDOUT,
                            stdin=subprocess.DEVNULL, start_new_session=True)
    base = f"http://127.0.0.1:{port}"
    try:
        deadline = time.monotonic() + 90
        while True:
            if proc.poll() is not None:
                pytest.fail(f"jupyter lab exited with {proc.returncode}:\n{(tmp / 'lab.log').read_text()[-3000:]}")
            try:
                status, _ = get(f"{base}/api/status", token, timeout=5)
                if status == 200:
                    break
            except (urllib.error.URLError, ConnectionError, TimeoutError, OSError):
                pass
            if time.monotonic() > deadline:
                pytest.fail(f"jupyter lab did not answer within 90 s:\n{(tmp / 'lab.log').read_text()[-3000:]}")
            time.sleep(0.5)
        yield base, token
    finally:
        if proc.poll() is None:
            os.killpg(proc.pid, signal.SIGTERM)  # the server's own process group, started above
            try:
                proc.wait(timeout=20)
            except subprocess.TimeoutExpired:
                os.killpg(proc.pid, signal.SIGKILL)
                proc.wait(timeout=10)
        log.close()


def test_token_is_required(lab):
    base, _ = lab
    with pytest.raises(urllib.error.HTTPError) as error:
        urllib.request.urlopen(f"{base}/api/contents/{STUDENT_NOTEBOOK}", timeout=10)
    assert error.value.code in (401, 403)


def test_student_notebook_opens_through_the_rest_api(lab):
    base, token = lab
    assert (NOTEBOOKS / "01_devices.ipynb").exists()
    status, body = get(f"{base}/api/contents/{STUDENT_NOTEBOOK}?content=1", token, timeout=30)
    assert status == 200
    model = json.loads(body)
    assert model["type"] == "notebook" and model["name"] == "01_devices.ipynb"
    cells = model["content"]["cells"]
    first_code = next(c for c in cells if c["cell_type"] == "code")
    assert first_code["metadata"]["nbgrader"]["locked"], "the set-up cell reaches the student read-only"
    assert "from gpucourse.bootstrap import setup" in first_code["source"]
    assert any(c["metadata"].get("nbgrader", {}).get("solution") for c in cells), "no answer cells"
    assert not any("BEGIN HIDDEN TESTS" in c["source"] for c in cells), "hidden tests leaked into the student copy"


def test_nbgrader_lab_extension_is_enabled(lab):
    base, token = lab
    listing = subprocess.run([str(BIN / "jupyter"), "labextension", "list"], capture_output=True, text=True,
                             timeout=60)
    text = re.sub(r"\x1b\[[0-9;]*m", "", listing.stdout + listing.stderr)
    line = next((row for row in text.splitlines() if "@jupyter/nbgrader" in row), None)
    assert line is not None, text
    assert "enabled" in line and "OK" in line, line
    # and the running server hands it to the browser, not disabled
    status, page = get(f"{base}/lab", token, timeout=30)
    assert status == 200
    match = re.search(r'<script id="jupyter-config-data" type="application/json">(.*?)</script>', page, re.S)
    assert match, "no page config in /lab"
    config = json.loads(match.group(1))
    federated = {ext["name"] for ext in config.get("federated_extensions", [])}
    assert "@jupyter/nbgrader" in federated, sorted(federated)
    disabled = config.get("disabledExtensions", [])
    disabled = disabled if isinstance(disabled, list) else [k for k, v in disabled.items() if v]
    assert not any(d.startswith("@jupyter/nbgrader") and ":" not in d for d in disabled), disabled


def test_a_source_opens_as_a_notebook_through_jupytext(lab):
    """Authors edit ``sources/NN_name.py`` in JupyterLab: jupytext's contents manager serves it as a notebook,
    nbgrader metadata and solution markers included (Open With > Notebook)."""
    base, token = lab
    status, body = get(f"{base}/api/contents/sources/03_async_timing.py?type=notebook&content=1", token, timeout=30)
    assert status == 200
    model = json.loads(body)
    assert model["type"] == "notebook", model["type"]
    cells = model["content"]["cells"]
    answer = next(c for c in cells if c["metadata"].get("nbgrader", {}).get("grade_id") == "time_ms")
    assert answer["metadata"]["nbgrader"]["solution"] and "### BEGIN SOLUTION" in answer["source"]
    assert any("### BEGIN HIDDEN TESTS" in c["source"] for c in cells)
    assert any("fixtures" in c["metadata"] for c in cells), "the author-only fixtures cells are there to edit"
