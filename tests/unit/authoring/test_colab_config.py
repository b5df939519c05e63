"""The course's Colab configuration is one frozen object, passed to what makes badges, set-up cells and the start
page: a configuration given is the one used, whatever ``colab/config.json`` says, and nothing is rebound."""

from __future__ import annotations

import dataclasses
import json

import pytest

from graders import authoring
from graders.authoring import ColabConfig, links, source

FORK = ColabConfig("someone/fork", "fall-2027", "v9.9.9")


def test_load_reads_colab_config_json(tmp_path):
    path = tmp_path / "config.json"
    path.write_text(json.dumps({"repo": "a/b", "branch": "main", "package_ref": ""}))
    assert ColabConfig.load(path) == ColabConfig("a/b", "main", None)
    assert ColabConfig.load(path).package_label == "main"  # no ref of its own: the branch
    with pytest.raises(dataclasses.FrozenInstanceError):
        FORK.repo = "x/y"


def test_what_is_built_follows_the_configuration_given():
    current = ColabConfig.load()
    assert current.repo != FORK.repo
    nb = source.solution("01_devices", FORK)
    url = "colab.research.google.com/github/someone/fork/blob/fall-2027/notebooks/01_devices.ipynb"
    assert url in nb.cells[0].source
    setup = next(c for c in nb.cells if c.id == "setup")
    assert 'GPUCOURSE_SOURCE = "git+https://github.com/someone/fork@v9.9.9"' in setup.source
    page = links.start_page(config=FORK)
    assert "from `someone/fork`, branch `fall-2027`" in page and "(`v9.9.9`)" in page
    assert current.repo not in page
    # and nothing was rebound: without a configuration, the file's is used
    assert authoring.badge("01_devices") == authoring.badge("01_devices", config=current)
    assert current.repo in source.solution("01_devices").cells[0].source
