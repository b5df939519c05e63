"""``python -m graders links`` on a copy of the repository: it moves everything, then changes nothing."""

from __future__ import annotations

import json
import shutil
import subprocess
import sys

from graders import nbtools
from graders.authoring import links
from graders.paths import REPO


def test_links_command_moves_everything_and_then_changes_nothing(tmp_path):
    copy = tmp_path / "repo"
    for part in ("graders", "gpucourse", "sources", "solutions", "notebooks", "colab", "docs"):
        if (REPO / part).exists():
            shutil.copytree(REPO / part, copy / part, ignore=shutil.ignore_patterns("__pycache__"))
    for part in ("README.md", "pyproject.toml"):
        if (REPO / part).exists():
            shutil.copy(REPO / part, copy / part)

    def links_cmd(*args):
        proc = subprocess.run([sys.executable, "-m", "graders", "links", "--no-build", *args], cwd=copy,
                              capture_output=True, text=True, timeout=120)
        assert proc.returncode == 0, proc.stderr[-2000:]
        return proc.stdout

    links_cmd("--repo", "someone/fork", "--branch", "fall-2027", "--package-ref", "v0.1.0")
    config = json.loads((copy / "colab" / "config.json").read_text())
    assert (config["repo"], config["branch"], config["package_ref"]) == ("someone/fork", "fall-2027", "v0.1.0")
    for path in [*copy.glob("solutions/*.ipynb"), copy / "colab" / "README.md", *copy.glob("README.md")]:
        text = path.read_text(encoding="utf-8")
        for match in links.colab_links(text):
            assert (match["repo"], match["branch"]) == ("someone/fork", "fall-2027"), (path, match[0])
    for path in copy.glob("solutions/*.ipynb"):
        nb = nbtools.read(path)
        setup = next(c for c in nb.cells if c.cell_type == "code")
        assert 'GPUCOURSE_SOURCE = "git+https://github.com/someone/fork@v0.1.0"' in setup.source, path
    before = {p: p.read_bytes() for p in copy.rglob("*") if p.is_file() and "__pycache__" not in p.parts}
    assert "0 file(s) changed" in links_cmd()
    after = {p: p.read_bytes() for p in copy.rglob("*") if p.is_file() and "__pycache__" not in p.parts}
    assert before == after
