"""A mistake's hunk that changes only blank lines or spaces is refused: it tests nothing and hides in the diff."""

from __future__ import annotations

import pytest

from graders.authoring import fixtures
from graders.paths import SOLUTIONS
from tests.helpers.repo_copy import copy_repo, run_build

REFERENCE = "import time\n\n\ndef f(x):\n    y = x + 1\n    return y"


@pytest.mark.parametrize("hunk", [
    "@@\n import time\n-\n-\n def f(x):\n",            # blank lines removed
    "@@\n import time\n+\n def f(x):\n",               # a blank line added
    "@@\n-    y = x + 1\n+    y = x + 1   \n",          # trailing spaces
    "@@\n-    y = x + 1\n+    y = x+1\n",               # spaces inside a line
])
def test_a_whitespace_only_hunk_is_refused(hunk):
    diff = hunk + "@@\n-    return y\n+    return x\n"  # the mistake's real change follows it
    with pytest.raises(fixtures.FixtureError, match="hunk 1 changes only blank lines or spaces"):
        fixtures.apply_diff(REFERENCE, diff, "mistake 'm' of f")


@pytest.mark.parametrize("diff", [
    "@@\n-    return y\n+    return x\n",                                  # a real change
    "@@\n     y = x + 1\n-    return y\n+return y\n",                      # indentation is code in Python
    "@@\n import time\n-\n-\n def f(x):\n-    y = x + 1\n+    y = x - 1\n",  # blank lines beside a real change
])
def test_a_hunk_that_changes_code_is_applied(diff):
    assert fixtures.apply_diff(REFERENCE, diff, "mistake 'm' of f") != REFERENCE


def test_the_build_refuses_a_whitespace_only_hunk_and_names_the_fixture(tmp_path):
    repo = copy_repo(tmp_path)
    path = repo / "sources" / "03_async_timing.py"
    text = path.read_text(encoding="utf-8")
    heading = "# **mistake `no-sync`**, sample, loses `test_time_ms`: measures the time to queue the work\n# ```diff\n"
    assert text.count(heading) == 1
    hunk = "# @@\n#  import time\n# -\n# -\n#  def time_ms(fn, device, warmup=3, repeats=10) -> list:\n"
    path.write_text(text.replace(heading, heading + hunk), encoding="utf-8")  # blank lines removed, nothing else
    done = run_build(repo)
    assert done.returncode == 1, done.stdout + done.stderr
    said = done.stdout
    assert "03_async_timing.py" in said and "mistake 'no-sync'" in said and "changes only blank lines" in said, said
    assert (repo / "solutions" / "03_async_timing.ipynb").read_bytes() == \
        (SOLUTIONS / "03_async_timing.ipynb").read_bytes()
