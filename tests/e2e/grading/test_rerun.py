"""nbgrader's gradebook is the system of record: reruns add and update, and never delete.

Real nbgrader runs on one fast notebook (01_devices) and the sample students, each test as an
instructor meets it: a late student graded after the others, a regrade of one student or one
notebook, a manual grade given in the formgrader (written through nbgrader's Gradebook API, which
is what the formgrader calls), files the instructor keeps in the folders, and an existing nbgrader
course made with ``nbgrader quickstart`` whose own config loads the project's.
"""

from __future__ import annotations

import csv
import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from graders.paths import COURSE_ID, REPO, SAMPLES, SOLUTIONS

NB = "01_devices"
NBGRADER = str(Path(sys.executable).parent / "nbgrader")


def graders(*args: str, cwd: Path = REPO) -> subprocess.CompletedProcess:
    done = subprocess.run([sys.executable, "-m", "graders", *args], cwd=cwd, capture_output=True, text=True,
                          timeout=1200, env={**os.environ, "PYTHONPATH": str(REPO)})
    return done


def rows(folder: Path) -> dict[tuple[str, str], dict]:
    with open(folder / "grades.csv", newline="") as f:
        return {(r["student_id"], r["notebook"]): r for r in csv.DictReader(f)}


def gradebook_scores(root: Path) -> dict[str, float]:
    from nbgrader.api import Gradebook

    with Gradebook(f"sqlite:///{root / 'gradebook.db'}", course_id=COURSE_ID) as gb:
        return {s.student.id: s.score for s in gb.find_assignment(NB).submissions}


def set_manual(root: Path, student: str, grade_id: str, score: float) -> None:
    """What the formgrader does when the instructor types a score into a cell."""
    from nbgrader.api import Gradebook

    with Gradebook(f"sqlite:///{root / 'gradebook.db'}", course_id=COURSE_ID) as gb:
        grade = gb.find_grade(grade_id, NB, NB, student)
        grade.manual_score = score
        gb.db.commit()


def failing_test(folder: Path, student: str) -> tuple[str, float]:
    with open(folder / "grades_detail.csv", newline="") as f:
        for r in csv.DictReader(f):
            if (r["student_id"], r["notebook"]) == (student, NB) and float(r["score"]) < float(r["max_score"]):
                return r["grade_id"], float(r["max_score"])
    raise AssertionError(f"{student} lost no test in {NB}")


@pytest.fixture(scope="module")
def graded(tmp_path_factory):
    """One student graded, then a late one into the same folder; the instructor's own file in each folder."""
    out = tmp_path_factory.mktemp("rerun") / "graded"
    first = graders("autograde", str(SAMPLES), "--out", str(out), "--notebooks", NB, "--students", "correct")
    assert first.returncode == 0, first.stdout + first.stderr
    (out / "notes.txt").write_text("the instructor's own notes\n")
    (out / "course" / "rubric.md").write_text("the instructor's rubric\n")
    late = graders("autograde", str(SAMPLES), "--out", str(out), "--notebooks", NB, "--students", "mistakes")
    assert late.returncode == 0, late.stdout + late.stderr
    return out


def test_a_late_student_joins_the_class_and_nothing_is_lost(graded):
    table = rows(graded)
    assert set(table) == {("correct", NB), ("mistakes", NB)}
    assert table[("correct", NB)]["score"] == "10" and float(table[("mistakes", NB)]["score"]) < 10
    assert set(gradebook_scores(graded / "course")) == {"correct", "mistakes"}
    assert (graded / "logs" / "correct" / f"{NB}.log").exists()  # the first run's log is still there
    assert (graded / "notes.txt").read_text() == "the instructor's own notes\n"
    assert (graded / "course" / "rubric.md").read_text() == "the instructor's rubric\n"
    assert (graded / "course" / "autograded" / "correct" / NB / f"{NB}.ipynb").exists()


def test_a_manual_grade_from_the_formgrader_survives_a_regrade_and_shows_everywhere(graded, tmp_path):
    root = graded / "course"
    gid, points = failing_test(graded, "mistakes")
    before = float(rows(graded)[("mistakes", NB)]["score"])
    set_manual(root, "mistakes", gid, points)  # the instructor gives the test's points by hand
    again = graders("autograde", str(SAMPLES), "--out", str(graded), "--notebooks", NB, "--students", "mistakes",
                    "--regrade")  # the same hand-in: without --regrade its row would be kept, not regraded
    assert again.returncode == 0, again.stdout + again.stderr
    row = rows(graded)[("mistakes", NB)]
    assert float(row["score"]) == before + points, row
    assert "manual grade in the gradebook" in row["message"] and gid in row["message"]
    assert gradebook_scores(root)["mistakes"] == before + points
    exported = graders("export", str(graded), "--lms", "generic", "--out", str(tmp_path / "lms.csv"))
    assert exported.returncode == 0, exported.stdout + exported.stderr
    with open(tmp_path / "lms.csv", newline="") as f:
        by_id = {r["Student ID"]: r for r in csv.DictReader(f)}
    assert float(by_id["mistakes"][NB]) == before + points, by_id["mistakes"]
    assert float(by_id["correct"][NB]) == 10
    # the correct student, graded two runs ago, is still in every table
    assert rows(graded)[("correct", NB)]["score"] == "10"


def test_a_wrong_regrade_target_is_refused_and_changes_nothing(graded):
    before = (graded / "grades.csv").read_text()
    done = graders("autograde", str(SAMPLES), "--out", str(graded), "--notebooks", NB, "--students", "nobody")
    assert done.returncode == 2 and "nobody" in done.stdout
    assert (graded / "grades.csv").read_text() == before


# ---------------------------------------------------------------------------------------------
# An instructor's existing nbgrader course
# ---------------------------------------------------------------------------------------------
def _nbgrader(course: Path, *args: str) -> None:
    env = {**os.environ, "HOME": str(course.parent / "home")}
    env.pop("PYTHONPATH", None)
    done = subprocess.run([NBGRADER, *args], cwd=course, env=env, capture_output=True, text=True, timeout=900)
    assert done.returncode == 0, f"nbgrader {' '.join(args)}:\n{done.stdout}\n{done.stderr}"


@pytest.fixture(scope="module")
def existing_course(tmp_path_factory):
    """``nbgrader quickstart`` (its ps1 included), the project's settings loaded from its config, 01
    released natively, and one hand-in in ``submitted/`` as ``nbgrader collect`` leaves it."""
    base = tmp_path_factory.mktemp("existing")
    _nbgrader(base, "quickstart", "physics101")
    course = base / "physics101"
    config = course / "nbgrader_config.py"
    config.write_text(config.read_text() + f"\nload_subconfig({str(REPO / 'graders' / 'nbgrader_config.py')!r})\n")
    (course / "source" / NB).mkdir(parents=True)
    shutil.copy(SOLUTIONS / f"{NB}.ipynb", course / "source" / NB / f"{NB}.ipynb")
    _nbgrader(course, "generate_assignment", "ps1", "--create")
    _nbgrader(course, "generate_assignment", NB, "--create")
    hand_in = course / "submitted" / "ada" / NB
    hand_in.mkdir(parents=True)
    shutil.copy(SAMPLES / "mistakes" / f"{NB}.ipynb", hand_in / f"{NB}.ipynb")
    (hand_in / "timestamp.txt").write_text("2026-11-30 21:15:00.000000 UTC\n")
    return course


def test_an_existing_nbgrader_course_is_graded_in_place(existing_course):
    course = existing_course
    config_before = (course / "nbgrader_config.py").read_text()
    submitted_before = (course / "submitted" / "ada" / NB / f"{NB}.ipynb").read_bytes()
    done = graders("autograde", str(course))  # only the course's notebook it released: 01
    assert done.returncode == 0, done.stdout + done.stderr
    table = rows(course)
    assert list(table) == [("ada", NB)] and table[("ada", NB)]["status"] == "graded"
    # the instructor's things are as they were: config, ps1, the hand-in as collected
    assert (course / "nbgrader_config.py").read_text() == config_before
    assert (course / "source" / "ps1").is_dir()
    assert (course / "submitted" / "ada" / NB / f"{NB}.ipynb").read_bytes() == submitted_before
    from nbgrader.api import Gradebook
    with Gradebook(f"sqlite:///{course / 'gradebook.db'}") as gb:
        sub = gb.find_submission(NB, "ada")
        assert sub.score == float(table[("ada", NB)]["score"])
        assert sub.timestamp.strftime("%Y-%m-%d %H:%M") == "2026-11-30 21:15"  # timestamp.txt recorded
        assert {a.name for a in gb.assignments} >= {"ps1", NB}
    # native nbgrader feedback in that course shows none of the hidden tests
    _nbgrader(course, "generate_feedback", NB)
    page = (course / "feedback" / "ada" / NB / f"{NB}.html").read_text()
    assert "HIDDEN TESTS" not in page


# ---------------------------------------------------------------------------------------------
# An instructor with only an LMS download: the README's three commands, download to import file
# ---------------------------------------------------------------------------------------------
def test_a_canvas_zip_to_a_canvas_import_file_with_the_readme_commands(tmp_path):
    from tests.helpers.lms import (
        canvas_three,  # the fixtures of tests/unit/intake/test_collect.py: names as Canvas writes them
    )

    download = canvas_three(tmp_path / "lms", zipped=True)
    course = tmp_path / "course"
    for args in (("collect", str(download.path), "--course", str(course), "--notebooks", NB),
                 ("autograde", str(course)),  # grades what was handed in: 01 only, not 8 "missing" notebooks
                 ("export", str(course), "--lms", "canvas", "--due", "2026-01-05T14:03",
                  "--out", str(tmp_path / "canvas.csv"))):
        done = graders(*args)
        assert done.returncode == 0, f"{args[0]}: {done.stdout}\n{done.stderr}"
    with open(tmp_path / "canvas.csv", newline="") as f:
        table = [r for r in csv.DictReader(f) if r["Student"] != "Points Possible"]
    by_canvas_id = {r["ID"]: r for r in table}
    assert set(by_canvas_id) == {"340934", "334244", "330001"}  # one row per student, by Canvas user id
    scores = {sid: float(r[NB]) for sid, r in by_canvas_id.items()}
    assert scores["340934"] == 10 and scores["334244"] == 0 and 0 < scores["330001"] < 10
    assert list(rows(course)) == [("canvas_330001", NB), ("canvas_334244", NB), ("canvas_340934", NB)]
    assert rows(course)[("canvas_340934", NB)]["status"] == "graded"


def test_a_second_merge_keeps_the_merged_folders_manual_grades_and_rows(graded, tmp_path):
    """Shards merged again (a failed shard regraded) keep what the instructor did in the merged course."""
    merged = tmp_path / "merged"
    first = graders("merge", str(graded), "--out", str(merged), "--notebooks", NB)
    assert first.returncode == 0, first.stdout + first.stderr
    gid, points = failing_test(merged, "mistakes")
    before = float(rows(merged)[("mistakes", NB)]["score"])
    set_manual(merged / "course", "mistakes", gid, points)
    (merged / "notes.txt").write_text("mine\n")
    again = graders("merge", str(graded), "--out", str(merged), "--notebooks", NB)
    assert again.returncode == 0, again.stdout + again.stderr
    assert float(rows(merged)[("mistakes", NB)]["score"]) == before + points
    assert gradebook_scores(merged / "course")["mistakes"] == before + points
    assert (merged / "notes.txt").read_text() == "mine\n"
    missing = graders("merge", str(graded), str(tmp_path / "never-finished"), "--out", str(merged), "--notebooks", NB)
    assert missing.returncode == 2 and "never-finished" in missing.stdout
    assert float(rows(merged)[("mistakes", NB)]["score"]) == before + points
