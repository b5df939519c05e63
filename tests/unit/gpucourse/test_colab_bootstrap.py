"""The first code cell of every student notebook, run as on a fresh or a used Colab runtime.

Each scenario runs in a fresh interpreter with a stand-in ``google.colab`` module imported first
(as Colab's kernel does), ``COLAB_RELEASE_TAG`` set, and ``subprocess.run`` replaced by a
recording stand-in for pip: pip calls are recorded and "install" by lifting an import gate,
every other command runs for real. The gate makes chosen packages look missing, or makes
``gpucourse`` look like an older version, until the stand-in pip installs them.
"""

from __future__ import annotations

import pytest

import gpucourse
from graders import authoring, nbtools
from graders.paths import NOTEBOOKS, SOLUTIONS, notebook_names
from tests.helpers.colab import first_code_cells, simulate


@pytest.fixture(scope="module")
def cells() -> list[dict]:
    found = first_code_cells(NOTEBOOKS)
    assert found, "no student notebooks"
    return found


def test_setup_cells_are_current_and_shared():
    """Every solution's set-up cell is today's setup_cell(); the student copy carries the same cell."""
    for name in notebook_names():
        solution = nbtools.read(SOLUTIONS / f"{name}.ipynb")
        index = next(i for i, c in enumerate(solution.cells) if c.cell_type == "code")
        assert solution.cells[index].id == "setup", f"{name}: the first code cell must be the set-up cell"
        fresh = authoring.setup_cell(authoring.setup_extras(solution.cells[index].source))
        assert solution.cells[index].source == fresh.source, f"{name}: run python -m graders build"
        student = NOTEBOOKS / f"{name}.ipynb"
        if student.exists():
            first = next(c for c in nbtools.read(student).cells if c.cell_type == "code")
            assert first.source == solution.cells[index].source, f"{name}: rebuild notebooks/"
            assert nbtools.nbgrader_meta(first).get("locked"), f"{name}: the set-up cell must be read-only"


def test_offline_runtime_gets_a_clear_message(tmp_path, cells):
    results = simulate(tmp_path, cells[:1], missing=["gpucourse"], offline=True, runs=1)
    error = results[0]["error"]
    assert error and error.startswith("SystemExit: Could not install the helper package gpucourse"), error
    assert "This runtime is offline" in error and "run this cell again" in error and "name resolution" in error
    assert "does not exist" not in error
    # the helper is there but a library is missing: the same kind of message, from gpucourse.bootstrap
    results = simulate(tmp_path, cells[:1], missing=["tqdm"], offline=True, runs=1)
    error = results[0]["error"]
    assert error and error.startswith("SystemExit: Could not install tqdm. This runtime is offline"), error
    assert "name resolution" in error


#: What pip prints, online, when the configured repository or version is not there (git's own words).
NOT_FOUND_ERRORS = {
    "missing or private repository": (
        "  Running command git clone --filter=blob:none --quiet https://github.com/someone/gone /tmp/pip-req\n"
        "  fatal: could not read Username for 'https://github.com': No such device or address\n"
        "  error: subprocess-exited-with-error\n"),
    "missing tag": (
        "  Running command git checkout -q v9.9.9\n"
        "  error: pathspec 'v9.9.9' did not match any file(s) known to git\n"
        "  error: subprocess-exited-with-error\n"),
    "missing ref on the remote": (
        "  fatal: couldn't find remote ref refs/tags/v9.9.9\n"
        "ERROR: Command errored out with exit status 128\n"),
}


@pytest.mark.parametrize("case", sorted(NOT_FOUND_ERRORS))
def test_missing_repository_or_version_is_not_called_offline(tmp_path, cells, case):
    results = simulate(tmp_path, cells[:1], missing=["gpucourse"], pip_error=NOT_FOUND_ERRORS[case], runs=1)
    error = results[0]["error"]
    assert error and error.startswith("SystemExit: Could not install the helper package gpucourse"), error
    assert "repository or version does not exist" in error and "start page" in error, error
    assert "offline" not in error and "online" not in error, error


def test_pip_failures_are_classified_like_the_setup_cell_does():
    from gpucourse import bootstrap

    assert bootstrap.pip_failure("fatal: unable to access 'https://github.com/x/y/': Could not resolve host: "
                                 "github.com") == "offline"
    for text in NOT_FOUND_ERRORS.values():
        assert bootstrap.pip_failure(text) == "not found"
    assert bootstrap.pip_failure("ERROR: No matching distribution found for torchvision==9.9") == "not found"
    assert bootstrap.pip_failure("ERROR: disk full") == "other"
    source = authoring.setup_source()
    for marker in bootstrap.OFFLINE + bootstrap.NOT_FOUND:  # the cell carries the same lists, generated
        assert repr(marker) in source, marker


def test_the_helper_package_is_pinned_to_its_release_tag():
    """The set-up cell installs a tag, not the tip of a branch: a notebook gets the gpucourse it was written for."""
    config = authoring.course_config()
    assert config["package_ref"] and config["package_ref"] != config["branch"], config
    assert config["package_ref"] == f"v{gpucourse.__version__}", "tag each release v<version> and pin it here"
    assert authoring.package_source().endswith(f"@{config['package_ref']}")


def test_install_command_never_replaces_torch(monkeypatch):
    from packaging.requirements import Requirement

    from gpucourse import bootstrap

    cmd = bootstrap.install_command(["torchvision", "tqdm"])
    torch_pins = [a for a in cmd if a.startswith("torch==")]
    import importlib.metadata
    assert torch_pins == [f"torch=={importlib.metadata.version('torch')}"], \
        "a missing torchvision is pinned to the installed torch"
    assert bootstrap.install_command(["tqdm"])[-1] == "tqdm"
    monkeypatch.setattr(bootstrap, "has_module", lambda name: name != "numpy")
    assert bootstrap.missing_requirements() == ["numpy"]
    # what the set-up cell asks pip for is a valid requirement naming the package and the configured source
    req = Requirement(f"gpucourse @ {authoring.package_source()}")
    assert req.name == "gpucourse" and req.url.startswith("git+https://github.com/")


def test_version_mismatch_is_reported(capsys):
    from gpucourse import bootstrap

    assert bootstrap.check_version(gpucourse.__version__) is True
    assert bootstrap.check_version("0.0.0-other") is False
    assert "written for gpucourse 0.0.0-other" in capsys.readouterr().out


def test_helper_version_matches_the_package_metadata():
    """pip installs what pyproject.toml says; the set-up cell compares with gpucourse.__version__."""
    import re as _re

    pyproject = (SOLUTIONS.parent / "pyproject.toml").read_text()
    assert _re.search(r'^version\s*=\s*"([^"]+)"', pyproject, _re.M).group(1) == gpucourse.__version__
