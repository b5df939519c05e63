"""The local path: ``jupyter lab`` on the repository serves the student notebooks, with nbgrader's
lab extension enabled. The server runs headless on localhost, on a free port, with a token; every
wait is bounded and the server is always stopped."""

from __future__ import annotations

import json
import re
import subprocess
import sys
import urllib.error
import urllib.request

import pytest

from graders.paths import NOTEBOOKS, REPO
from tests.helpers import jupyter_server

STUDENT_NOTEBOOK = "notebooks/01_devices.ipynb"


def get(url: str, token: str, timeout: float = 10.0):
    request = urllib.request.Request(url, headers={"Authorization": f"token {token}"})
    with urllib.request.urlopen(request, timeout=timeout) as response:
        return response.status, response.read().decode("utf-8")


@pytest.fixture(scope="module")
def lab(tmp_path_factory):
    if not (jupyter_server.BIN / "jupyter").exists():
        pytest.skip(f"no jupyter next to {sys.executable}")
    tmp = tmp_path_factory.mktemp("lab")
    with jupyter_server.running("lab", REPO, tmp, f"--ServerApp.root_dir={REPO}") as server:
        yield server.base, server.token


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
    listing = subprocess.run([str(jupyter_server.BIN / "jupyter"), "labextension", "list"], capture_output=True,
                             text=True, timeout=60)
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
