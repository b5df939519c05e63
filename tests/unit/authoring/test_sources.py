"""The notebooks' one source (sources/NN_name.py and sources/manifest.toml): what it generates is current,
the build refuses what it cannot use, and a new notebook needs one source file and one manifest entry."""

from __future__ import annotations

import json
import textwrap
from pathlib import Path

import pytest

from graders.authoring import build, fixtures, links, source
from graders.paths import REPO, SOLUTIONS, SOURCES, manifest, notebook_names
from tests.helpers.repo_copy import copy_repo, run_build

NAMES = notebook_names()


@pytest.mark.parametrize("name", NAMES)
def test_solutions_are_what_the_sources_make(name):
    committed = (SOLUTIONS / f"{name}.ipynb").read_text(encoding="utf-8")
    assert build.solution_text(name) == committed, f"solutions/{name}.ipynb is stale: run `python -m graders build`"


def test_every_source_is_in_the_manifest_and_back():
    assert sorted(p.stem for p in SOURCES.glob("[0-9][0-9]_*.py")) == sorted(NAMES)
    assert sorted(p.stem for p in SOLUTIONS.glob("*.ipynb")) == sorted(NAMES), "a solution without a source"


def test_readme_and_start_page_tables_are_current():
    assert links.with_readme_table(links.README.read_text(encoding="utf-8")) == links.README.read_text(
        encoding="utf-8"), "README.md's notebook table is stale: run `python -m graders build`"
    assert links.START_PAGE.read_text(encoding="utf-8") == links.start_page(), "colab/README.md is stale"


def test_title_badge_setup_and_next_link_come_from_the_manifest():
    entries = manifest()
    for index, entry in enumerate(entries):
        nb = source.solution(entry["name"])
        first = nb.cells[0].source.splitlines()
        assert first[0] == f"# {entry['name'][:2]} · {entry['title']}"
        assert f"notebooks/{entry['name']}.ipynb" in first[2], "the Colab badge opens this notebook"
        assert nb.cells[[c.id for c in nb.cells].index("setup")].source.startswith("# Set-up (read-only)")
        last = nb.cells[[c.id for c in nb.cells].index("handin-intro") - 1].source  # the hand-in check follows it
        if index + 1 < len(entries):
            following = entries[index + 1]
            assert f"**Next: [{following['name'][:2]} · {following['short']}]({following['name']}.ipynb).**" in last
        else:
            assert "**Next:" not in last
        assert not any(source.FIXTURES_KEY in c.metadata for c in nb.cells), "author-only cells left the source"


# ---- mistakes as small edits ------------------------------------------------------------------------
REFERENCE = "def f(x):\n    y = x + 1\n    return y\n"


def test_a_diff_applies_to_the_lines_it_names():
    assert fixtures.apply_diff(REFERENCE, "@@\n-    y = x + 1\n+    y = x - 1", "m") == REFERENCE.replace("+", "-")
    # context places an insertion; a blank line ends the block
    assert fixtures.apply_diff(REFERENCE, "@@\n     y = x + 1\n+    y = y * 2\n", "m").count("y * 2") == 1


@pytest.mark.parametrize("diff, words", [
    ("@@\n-    y = x + 2\n+    y = 0", "no longer applies"),
    ("@@\n+    print(x)", "no context or removed line"),
    ("@@\n*    y = x + 1", "must start with"),
])
def test_a_diff_that_does_not_apply_is_refused(diff, words):
    with pytest.raises(fixtures.FixtureError, match=words):
        fixtures.apply_diff(REFERENCE, diff, "mistake 'm' of f")


def test_an_ambiguous_diff_is_refused():
    with pytest.raises(fixtures.FixtureError, match="occur 2 times"):
        fixtures.apply_diff("a = 1\nb = 2\na = 1\n", "@@\n-a = 1\n+a = 3", "m")


def test_a_fixtures_cell_reads_as_mistakes_and_alternatives():
    text = textwrap.dedent('''\
        ### Mistakes and correct alternatives for `f`

        **mistake `minus`**, sample, loses `test_f`, `test_g`: subtracts: the sign is wrong
        ```diff
        @@
        -    y = x + 1
        +    y = x - 1
        ```

        **alternative `inline`**: one line
        ```python
        def f(x):
            return x + 1
        ```
        ''')
    (mistake,), (alternative,) = fixtures.parse(text, "f", REFERENCE)
    assert (mistake.key, mistake.cell, mistake.loses, mistake.sample) == ("minus", "f", ("test_f", "test_g"), True)
    assert mistake.why == "subtracts: the sign is wrong" and "x - 1" in mistake.code
    assert (alternative.key, alternative.loses, alternative.code) == ("inline", (), "def f(x):\n    return x + 1\n")
    with pytest.raises(fixtures.FixtureError, match="must say which tests"):
        fixtures.parse(text.replace(", loses `test_f`, `test_g`", ""), "f", REFERENCE)
    with pytest.raises(fixtures.FixtureError, match="```diff block"):
        fixtures.parse(text.replace("```diff", "```python"), "f", REFERENCE)


# ---- the build, as an author meets it: in a copy of the repository ---------------------------------
@pytest.fixture()
def repo_copy(tmp_path):
    return copy_repo(tmp_path)


def edit_source(repo: Path, name: str, old: str, new: str) -> None:
    path = repo / "sources" / f"{name}.py"
    text = path.read_text(encoding="utf-8")
    assert text.count(old) == 1, old
    path.write_text(text.replace(old, new), encoding="utf-8")


def test_a_mistake_that_no_longer_applies_stops_the_build(repo_copy):
    # the reference of 01's pick_device changes; its mistake "no-mps" was written against the old lines
    edit_source(repo_copy, "01_devices", '        return torch.device("mps")\n    return torch.device("cpu")',
                '        return torch.device("mps")\n    return torch.device(type="cpu")')
    done = run_build(repo_copy)
    assert done.returncode == 1, done.stdout + done.stderr
    assert "no longer applies" in done.stdout and "01_devices.py" in done.stdout, done.stdout
    assert (repo_copy / "solutions" / "01_devices.ipynb").read_bytes() == (SOLUTIONS / "01_devices.ipynb").read_bytes()


def test_an_exercise_without_mistakes_stops_the_build(repo_copy):
    path = repo_copy / "sources" / "06_bf16.py"
    text = path.read_text(encoding="utf-8")
    start = text.index('# %% [markdown] fixtures="')
    end = text.index("# %%", start + 10)
    path.write_text(text[:start] + text[end:], encoding="utf-8")
    done = run_build(repo_copy)
    assert done.returncode == 1 and "list no mistakes" in done.stdout, done.stdout + done.stderr


def test_the_sample_students_must_score_as_before_the_sources():
    """The main job's 24 expectations (correct, untouched and sample-mistakes student) equal those recorded
    before the notebooks moved into sources/ (``tests/data/scores_before.json``, "samples")."""
    from graders.qa.sample_check import expectations

    recorded = json.loads((REPO / "tests" / "data" / "scores_before.json").read_text())["samples"]
    now = [{"student": e.student, "notebook": e.notebook, "score": e.score, "lost": sorted(e.lost)}
           for e in expectations(NAMES)]
    assert now == recorded
