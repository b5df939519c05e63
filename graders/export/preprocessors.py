"""nbgrader preprocessors of this project (registered by graders/nbgrader_config.py)."""

from __future__ import annotations

from nbgrader.preprocessors import NbGraderPreprocessor


class HideHiddenTests(NbGraderPreprocessor):
    """For ``nbgrader generate_feedback``: the student's copy without hidden-test code.

    Uses :func:`graders.export.feedback.clean_for_student`: hidden blocks become a one-line note, test
    tracebacks are cut to their last line (they quote the failing hidden line), grader cells go, and a
    hidden failure under the visible checks' ``[PASS]`` line says that the hidden tests check more cases, and
    every test cell that lost points its outputs do not explain (a tamper check took them, a review withheld
    or decided them) says why, from the results folder's ``grades_detail.csv``
    (:func:`graders.export.feedback.add_reasons`). Scores are untouched: GetGrades reads them from the gradebook
    by grade_id.
    """

    def preprocess(self, nb, resources):
        from graders.export.feedback import add_reasons, clean_for_student, detail_reasons

        clean = clean_for_student(nb)
        info = resources.get("nbgrader", {})
        reasons = detail_reasons(str(info.get("db_url", "")), str(info.get("student", "")),
                                 str(info.get("notebook", "")))
        nb.cells = add_reasons(clean, reasons).cells
        return nb, resources
