"""A ninth notebook is one source and one manifest entry: built and graded in a copy of the repository."""

from __future__ import annotations

import json

import pytest

from graders import nbtools
from tests.helpers.repo_copy import copy_repo, run_build


# ---- the build, as an author meets it: in a copy of the repository ---------------------------------
@pytest.fixture()
def repo_copy(tmp_path):
    return copy_repo(tmp_path)


NINTH = '''\
# %% [markdown] id="intro"
# A ninth notebook, for the test: one exercise.
#
# **Time:** about 5 minutes.

# %% nbgrader={"grade": false, "grade_id": "setup", "locked": true, "schema_version": 3, "solution": false}
from gpucourse.bootstrap import setup
DEVICE, QUICK = setup()
import torch
from gpucourse.checks import needs

# %% [markdown] id="ex"
# ## Exercise: `double(x)` returns `2 * x`.

# %% nbgrader={"grade": false, "grade_id": "double", "locked": false, "schema_version": 3, "solution": true}
def double(x):
    """Return 2 * x."""
    ### BEGIN SOLUTION
    return 2 * x
    ### END SOLUTION

# %% nbgrader=TEST_METADATA
assert double(3) == 6
### BEGIN HIDDEN TESTS
assert double(-2.5) == -5.0
### END HIDDEN TESTS

# %% [markdown] fixtures="double"
# **mistake `plus`**, sample, loses `test_double`: adds instead
# ```diff
# @@
# -    return 2 * x
# +    return 2 + x
# ```

# %% [markdown] id="summary"
# ## Summary
#
# Doubling.
'''.replace("TEST_METADATA", json.dumps({"grade": True, "grade_id": "test_double", "locked": True, "points": 1,
                                         "schema_version": 3, "solution": False}))


def test_a_ninth_notebook_is_one_source_and_one_manifest_entry(repo_copy):
    (repo_copy / "sources" / "09_extra.py").write_text(NINTH, encoding="utf-8")
    with open(repo_copy / "sources" / "manifest.toml", "a", encoding="utf-8") as f:
        f.write('\n[[notebook]]\nname = "09_extra"\ntitle = "Extra: a ninth"\nshort = "Extra"\nteaches = "doubling"\n')
    done = run_build(repo_copy)
    assert done.returncode == 0, done.stdout + done.stderr
    solution = nbtools.read(repo_copy / "solutions" / "09_extra.ipynb")
    assert solution.cells[0].source.startswith("# 09 · Extra: a ninth")
    student = nbtools.read(repo_copy / "notebooks" / "09_extra.ipynb")
    assert not any("HIDDEN" in c.source or "return 2 * x" in c.source for c in student.cells)
    for who in ("correct", "untouched", "mistakes"):
        assert (repo_copy / "samples" / "submissions" / who / "09_extra.ipynb").exists()
    mistaken = nbtools.read(repo_copy / "samples" / "submissions" / "mistakes" / "09_extra.ipynb")
    assert any("return 2 + x" in c.source for c in mistaken.cells)
    assert "[Extra](notebooks/09_extra.ipynb) | doubling |" in (repo_copy / "README.md").read_text(encoding="utf-8")
    assert "`09_extra.ipynb` | Extra: a ninth |" in (repo_copy / "colab" / "README.md").read_text(encoding="utf-8")
    last = nbtools.read(repo_copy / "solutions" / "08_throughput.ipynb").cells
    summary = next(c for c in reversed(last) if c.cell_type == "markdown" and "**Next" in c.source)
    assert "**Next: [09 · Extra](09_extra.ipynb).**" in summary.source  # the hand-in check's cells come after it
    again = run_build(repo_copy)
    assert again.returncode == 0 and "0 file(s) changed" in again.stdout, again.stdout
