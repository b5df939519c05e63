"""Every solution notebook runs top to bottom in a fresh kernel, in quick mode, without an error."""

from __future__ import annotations

import time

import nbformat
import pytest
from nbclient import NotebookClient

from graders.paths import SOLUTIONS, notebook_names


@pytest.mark.slow
@pytest.mark.parametrize("name", notebook_names())
def test_solution_runs_top_to_bottom(name, tmp_path):
    nb = nbformat.read(SOLUTIONS / f"{name}.ipynb", as_version=4)
    client = NotebookClient(nb, timeout=600, kernel_name="python3", resources={"metadata": {"path": str(tmp_path)}})
    start = time.perf_counter()
    client.execute()
    seconds = time.perf_counter() - start
    errors = [(c.id, o.get("ename"), o.get("evalue")) for c in nb.cells if c.cell_type == "code"
              for o in c.outputs if o.output_type == "error"]
    assert not errors, errors
    passes = [c.id for c in nb.cells if c.cell_type == "code"
              for o in c.outputs if o.output_type == "stream" and "[PASS]" in o.get("text", "")]
    assert passes, "the visible self-checks print [PASS] for the reference solution"
    print(f"{name}: {seconds:.1f} s in quick mode")
