"""Answers taken from gpucourse score 0 under real nbgrader."""

from __future__ import annotations

from graders import nbtools
from graders.paths import SOLUTIONS


# -- one real nbgrader run: taking 03's (and 01's) answers from gpucourse earns nothing -------------------
def test_answers_taken_from_gpucourse_score_0_with_real_nbgrader(tmp_path):
    from graders.authoring.samples import with_mistakes
    from graders.grading.autograde import autograde
    from graders.mistakes import Mistake

    def taken(cell, code):
        return Mistake(f"takes-{cell}", cell, code, (f"test_{cell}",))

    cases = {   # (student, notebook): the answers taken from gpucourse
        ("imports", "03_async_timing"): [taken("synchronize", "from gpucourse.timing import synchronize\n"),
                                         taken("time_ms", "from gpucourse.timing import time_ms\n")],
        ("wrappers", "03_async_timing"): [
            taken("synchronize", "import gpucourse.timing\n\n\ndef synchronize(device) -> None:\n"
                                 "    return gpucourse.timing.synchronize(device)\n"),
            taken("time_ms", "from functools import partial\nfrom gpucourse import timing as _t\n\n"
                             "time_ms = partial(_t.time_ms)\n")],
        ("imports", "01_devices"): [taken("pick_device", "from gpucourse.env import best_device as pick_device\n")],
    }
    for (student, name), group in cases.items():
        nbtools.write(nbtools.tidy(with_mistakes(name, group)), tmp_path / "subs" / student / f"{name}.ipynb")
    rows = autograde(tmp_path / "subs", tmp_path / "graded", names=sorted({n for _, n in cases}), jobs=1,
                     progress=False)
    rows = [r for r in rows if (r.student_id, r.notebook) in cases]   # not "wrappers, 01": a missing notebook
    assert len(rows) == len(cases)
    for row in rows:
        assert row.status == "graded", (row.student_id, row.status, row.message)   # no tamper finding either
        points = nbtools.test_points(nbtools.read(SOLUTIONS / f"{row.notebook}.ipynb"))
        lost = {gid for m in cases[(row.student_id, row.notebook)] for gid in m.loses}
        scores = {gid: row.cells[gid][0] for gid in points}
        assert scores == {gid: 0 if gid in lost else p for gid, p in points.items()}, (row.student_id, scores)
