"""The first code cell of every student notebook on a simulated Colab runtime (tests/helpers/colab.py), the
scenarios that install: a fresh runtime, another gpucourse version, a source of another version, nothing missing
while offline; each runs the stand-in pip in a fresh interpreter. The others:
tests/unit/gpucourse/test_colab_bootstrap.py."""

from __future__ import annotations

import pytest

import gpucourse
from graders import authoring
from graders.paths import NOTEBOOKS
from tests.helpers.colab import first_code_cells, simulate


def requirements(call: list[str]) -> list[str]:
    return [a for a in call[call.index("install") + 1:] if not a.startswith("-")]


@pytest.fixture(scope="module")
def cells() -> list[dict]:
    found = first_code_cells(NOTEBOOKS)
    assert found, "no student notebooks"
    return found


def test_fresh_runtime_installs_only_what_is_missing_and_is_idempotent(tmp_path, cells):
    results = simulate(tmp_path, cells, missing=["gpucourse", "tqdm"], runs=2)
    config = authoring.course_config()
    for first, second in zip(results[::2], results[1::2], strict=True):
        name = first["name"]
        assert first["error"] is None and second["error"] is None, (name, first["error"], second["error"])
        installed = [r for call in first["calls"] for r in requirements(call)]
        package = "gpucourse @ git+https://github.com/" + config["repo"] + "@"
        assert any(r.startswith(package) for r in installed), installed
        assert "tqdm" in installed, installed
        assert not any(r.split("=")[0].strip().startswith("torch") for r in installed), f"{name}: torch installed"
        assert set(installed) <= {"tqdm", f"gpucourse @ {first['source']}"}, f"{name}: installed more than missing"
        ref = config["package_ref"] or config["branch"]
        assert first["source"] == f"git+https://github.com/{config['repo']}@{ref}"
        # pinned: the notebook names the helper's version, and that version is the one loaded
        assert first["expected_version"] == gpucourse.__version__ == first["loaded_version"], name
        assert second["calls"] == [], f"{name}: a second run must install nothing, got {second['calls']}"
        for run in (first, second):
            assert run["has_torch"] and run["device"] == "cpu" and run["quick"] is False
            assert "Device: cpu" in run["stdout"] and "torch" in run["stdout"]
            assert "T4 GPU" in run["stdout"], "on Colab without a GPU the report must advise a T4 runtime"
            assert "Data: Fashion-MNIST is cached" in run["stdout"]


def test_other_gpucourse_version_is_replaced_alone(tmp_path, cells):
    results = simulate(tmp_path, cells[:2], old=True, runs=2)
    for first, second in zip(results[::2], results[1::2], strict=True):
        assert first["error"] is None, first["error"]
        assert len(first["calls"]) == 1, first["calls"]
        call = first["calls"][0]
        assert requirements(call) == [f"gpucourse @ {first['source']}"]
        assert "--force-reinstall" in call and "--no-deps" in call, "reinstall that one package, nothing else"
        assert first["loaded_version"] == first["expected_version"] == gpucourse.__version__
        assert second["calls"] == []


def test_source_with_another_version_is_tried_once_then_reported(tmp_path, cells):
    """An old copy of a notebook, after the course moved on: one install, a clear warning, no loop."""
    results = simulate(tmp_path, cells[:1], old=True, branch_moved_on=True, runs=2)
    first, second = results
    assert len(first["calls"]) == 1 and second["calls"] == [], "install once per session, not at every run"
    for run in results:
        assert run["error"] is None, run["error"]
        assert run["loaded_version"] == "0.0.1"
        assert f"this notebook was written for gpucourse {gpucourse.__version__}" in run["stdout"]


def test_nothing_missing_installs_nothing_even_offline(tmp_path, cells):
    """Offline on purpose: with everything present no network is needed (no timing asserted: CI may be busy)."""
    distinct = list({c["source"]: c for c in cells}.values())
    for cell in distinct:
        results = simulate(tmp_path, [cell] + cells, offline=True, runs=1)
        for run in results:
            assert run["error"] is None and run["calls"] == [], (run["name"], run["calls"], run["error"])
            assert run["has_torch"] and "Device: cpu" in run["stdout"]
