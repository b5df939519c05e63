"""Every Colab link and badge points at a student notebook that exists, in the configured repository
and branch (``colab/config.json``), and ``python -m graders links`` changes them all at once."""

from __future__ import annotations

import pytest

from graders import authoring, nbtools
from graders.authoring import links
from graders.paths import NOTEBOOKS, REPO, SOLUTIONS, notebook_names


def all_link_sources() -> dict[str, str]:
    texts = {}
    for folder in (SOLUTIONS, NOTEBOOKS):
        for path in sorted(folder.glob("*.ipynb")):
            nb = nbtools.read(path)
            texts[str(path.relative_to(REPO))] = "\n".join(c.source for c in nb.cells)
    for path in links.text_files():
        texts[str(path.relative_to(REPO))] = path.read_text(encoding="utf-8")
    return texts


def test_config_is_the_one_place():
    config = authoring.course_config()
    assert config["repo"].count("/") == 1 and config["branch"]
    loaded = authoring.ColabConfig.load()
    assert (loaded.repo, loaded.branch) == (config["repo"], config["branch"])


def test_every_link_points_at_an_existing_notebook_of_the_configured_repo():
    config = authoring.course_config()
    found = 0
    for where, text in all_link_sources().items():
        for match in links.colab_links(text):
            found += 1
            assert (match["repo"], match["branch"]) == (config["repo"], config["branch"]), \
                f"{where}: {match[0]} is not {config['repo']}@{config['branch']}: run python -m graders links"
            assert (REPO / match["path"]).is_file(), f"{where}: {match[0]} opens a notebook that does not exist"
    assert found >= 2 * len(notebook_names())


def test_every_notebook_has_its_own_badge_in_the_title():
    for name in notebook_names():
        for folder in (SOLUTIONS, NOTEBOOKS):
            path = folder / f"{name}.ipynb"
            if not path.exists():
                continue
            title = next(c for c in nbtools.read(path).cells if c.cell_type == "markdown")
            assert authoring.badge(name) in title.source, f"{path.relative_to(REPO)}: title cell lacks its badge"


def test_start_page_is_current_and_lists_every_notebook():
    page = (REPO / "colab" / "README.md").read_text(encoding="utf-8")
    assert page == links.start_page(), "colab/README.md is out of date: run python -m graders links"
    for name in notebook_names():
        assert authoring.badge(name) in page and f"`{name}.ipynb`" in page
    for words in ("T4 GPU", "Save a copy in Drive", "Download .ipynb"):
        assert words in page


def test_readme_points_at_the_start_page():
    readme = REPO / "README.md"
    if not readme.exists():
        pytest.skip("no README.md yet")
    text = readme.read_text(encoding="utf-8")
    assert "colab/README.md" in text, "README.md must link the Colab start page"
    assert links.colab_links(text), "README.md must carry an Open in Colab badge"


def test_rewrite_changes_only_colab_notebook_addresses():
    text = ("see [a](https://colab.research.google.com/github/old/repo/blob/feature/x/notebooks/02_transfers.ipynb) "
            "and https://github.com/old/repo, and https://colab.research.google.com/notebooks/intro.ipynb")
    new = links.rewrite(text, "me/course", "dev")
    assert "https://colab.research.google.com/github/me/course/blob/dev/notebooks/02_transfers.ipynb" in new
    assert "https://github.com/old/repo," in new and "colab.research.google.com/notebooks/intro.ipynb" in new


