"""scripts/grade_correct_answers.py without grading anything: which answers it counts as correct (verdicts.toml
applied), how it packs them into submissions, what a submission and the manifest hold, and what the table and the
list of losses say (issue 35's last criterion)."""

from __future__ import annotations

import json

import pytest

from graders import nbtools
from graders.alternatives import for_notebook
from graders.authoring import samples
from scripts import grade_correct_answers as gca

NB = "01_devices"


def answer_cells(name: str) -> list[str]:
    return [nbtools.grade_id(c) for c in nbtools.read(gca.SOLUTIONS / f"{name}.ipynb").cells
            if nbtools.is_solution_cell(c)]


@pytest.fixture
def answers_root(tmp_path):
    """An answers folder as the docstring answers' are laid out, with a verdicts.toml that re-judges two files."""
    cell = answer_cells(NB)[0]
    folder = tmp_path / NB / cell
    folder.mkdir(parents=True)
    for stem in ("correct_kept", "correct_misread", "wrong_plain", "wrong_misread"):
        (folder / f"{stem}.py").write_text(f"# reading: {stem}\nx = '{stem}'\n", encoding="utf-8")
    (tmp_path / "verdicts.toml").write_text(
        f'["{NB}/{cell}/correct_misread.py"]\nkind = "misread"\nreason = "it breaks a sentence"\n\n'
        f'["{NB}/{cell}/wrong_misread.py"]\nkind = "misread"\nreason = "it meets every sentence"\n',
        encoding="utf-8")
    return tmp_path, cell


def test_collect_counts_verdicts_and_every_alternative(answers_root):
    root, cell = answers_root
    found = gca.collect([NB], {"mine": root, "absent": root / "nowhere"})
    keys = [a.key for a in found[NB]]
    assert keys[:len(for_notebook(NB))] == [f"alt:{a.key}" for a in for_notebook(NB)]
    assert sorted(keys[len(for_notebook(NB)):]) == [f"mine:{cell}/correct_kept", f"mine:{cell}/wrong_misread"]
    mine = {a.key: a for a in found[NB]}
    assert mine[f"mine:{cell}/wrong_misread"].code.endswith("x = 'wrong_misread'\n")
    assert mine[f"mine:{cell}/wrong_misread"].cell == cell


def test_collect_can_leave_the_alternatives_out(answers_root):
    root, cell = answers_root
    found = gca.collect([NB], {"mine": root}, alternatives=False)
    assert sorted(a.key for a in found[NB]) == [f"mine:{cell}/correct_kept", f"mine:{cell}/wrong_misread"]


def test_plan_puts_each_answer_in_one_submission_one_per_cell():
    collected = gca.collect([NB, "02_transfers"], {})
    cases = gca.plan(collected)
    assert len({c.student for c in cases}) == len(cases)
    for name, answers in collected.items():
        mine = [c for c in cases if c.notebook == name]
        assert all(c.student.startswith(f"ok-{name[:2]}-") for c in mine)
        assert sorted(a.key for c in mine for a in c.answers) == sorted(a.key for a in answers)
        for case in mine:
            assert len({a.cell for a in case.answers}) == len(case.answers), case.keys
        # as few submissions as the busiest answer cell needs
        assert len(mine) == max(sum(a.cell == cell for a in answers) for cell in {a.cell for a in answers})


def test_singles_split_a_case_one_answer_each():
    case = gca.plan(gca.collect([NB], {}))[0]
    ones = gca.singles(case)
    assert [c.keys for c in ones] == [[k] for k in case.keys]
    assert len({c.student for c in ones} | {case.student}) == len(ones) + 1


def test_submissions_carry_their_answers_and_the_manifest_names_them(tmp_path):
    cases = gca.plan(gca.collect([NB], {}))[:2]
    gca.write_submissions(tmp_path / "subs", cases)
    manifest = json.loads((tmp_path / "subs" / "manifest.json").read_text())
    assert manifest == {f"{c.student}/{NB}": c.keys for c in cases}
    reference = samples.reference_answers(NB)
    for case in cases:
        nb = nbtools.read(tmp_path / "subs" / case.student / f"{NB}.ipynb")
        cells = {nbtools.grade_id(c): c.source for c in nb.cells if nbtools.is_solution_cell(c)}
        carried = {a.cell: a.code for a in case.answers}
        for gid, text in cells.items():
            assert text.strip() == carried.get(gid, reference[gid]).strip(), (case.student, gid)


def test_table_counts_full_marks_per_way_and_losses_name_keys_and_cells():
    collected = gca.collect([NB], {})
    cases = gca.plan(collected)
    points = gca.full_marks(NB)
    first = cases[0]
    lost = gca.Result(points - 1, points, "graded", "", {"test_x": "AssertionError: the hint"})
    results = {("a", c.student, NB): gca.Result(points, points, "graded", "", {}) for c in cases}
    results[("a", first.student, NB)] = lost
    results[("c", first.student, NB)] = gca.Result(points, points, "review", "flagged", {})
    text = gca.table(collected, cases, results, ["a", "c"])
    row = next(line for line in text.splitlines() if line.startswith(f"| {NB} "))
    cells = [c.strip() for c in row.strip("|").split("|")]
    assert cells == [NB, str(len(collected[NB])), str(len(cases)), f"{len(cases) - 1}/{len(cases)}", "-",
                     "0/1 so far"]
    found = gca.losses(cases, results)
    assert [(c.student, way) for c, way, _ in found] == [(first.student, "a"), (first.student, "c")]
    described = gca.describe(*found[0])
    assert all(key in described for key in first.keys)
    assert "test_x: AssertionError: the hint" in described


def test_full_marks_needs_graded_every_point_and_no_lost_cell():
    assert gca.Result(10, 10, "graded", "", {}).full(10)
    assert not gca.Result(10, 10, "review", "", {}).full(10)
    assert not gca.Result(9, 10, "graded", "", {}).full(10)
    assert not gca.Result(10, 10, "graded", "", {"t": "why"}).full(10)
    assert not gca.Result(None, 10, "missing", "no row", None).full(10)


def test_keep_reuses_a_way_graded_of_the_same_answers_only(tmp_path, monkeypatch):
    cases = gca.plan(gca.collect([NB], {}))[:2]
    graded = []

    def fake(cases, submissions, out, jobs, sandbox):
        graded.append([c.student for c in cases])
        return {c.student: gca.Result(1, 1, "graded", "", {}) for c in cases}

    monkeypatch.setattr(gca, "grade_autograde", fake)
    first, _ = gca.grade_way("a", cases, tmp_path, tmp_path, 1, keep=True)
    again, _ = gca.grade_way("a", cases, tmp_path, tmp_path, 1, keep=True)
    assert again == first and len(graded) == 1
    gca.grade_way("a", cases[:1], tmp_path, tmp_path, 1, keep=True)  # other answers: graded anew
    gca.grade_way("a", cases, tmp_path, tmp_path, 1, keep=False)
    assert len(graded) == 3


def test_a_lost_cell_of_plain_nbgrader_is_told_by_its_error():
    import nbformat

    nb = nbtools.read(gca.SOLUTIONS / f"{NB}.ipynb")
    test = next(c for c in nb.cells if nbtools.is_test_cell(c))
    test.outputs = [nbformat.v4.new_output("stream", name="stdout", text="checking\n"),
                    nbformat.v4.new_output("error", ename="AssertionError", evalue="the hint", traceback=[])]
    assert gca._error_of(nb, nbtools.grade_id(test)) == "AssertionError: the hint"
    other = next(c for c in nb.cells if nbtools.is_test_cell(c) and c is not test)
    assert gca._error_of(nb, nbtools.grade_id(other)) == "no error shown"
