"""nbgrader preprocessors of this project (registered by graders/nbgrader_config.py)."""

from __future__ import annotations

from nbgrader.preprocessors import NbGraderPreprocessor


class HideHiddenTests(NbGraderPreprocessor):
    """For ``nbgrader generate_feedback``: the student's copy without hidden-test code.

    Uses :func:`graders.export.feedback.clean_for_student`: hidden blocks become a one-line note, test
    tracebacks are cut to their last line (they quote the failing hidden line), grader cells go, and a
    hidden failure under the visible checks' ``[PASS]`` line says that the hidden tests check more cases.
    Scores are untouched: GetGrades reads them from the gradebook by grade_id.
    """

    def preprocess(self, nb, resources):
        from graders.export.feedback import clean_for_student

        clean = clean_for_student(nb)
        nb.cells = clean.cells
        return nb, resources
