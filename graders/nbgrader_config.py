"""nbgrader configuration for a CPU-only grading box (copied into every course folder it builds).

Each setting answers a fact about nbgrader 0.9 (see the README's instructor section):
"""
# pylint: disable=undefined-variable
import os
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))  # makes limits importable beside us
from grader_limits import CELL_TIMEOUT_S, MAX_OUTPUT_LINES  # noqa: E402  (written next to this file)

c = get_config()  # noqa: F821
c.CourseDirectory.course_id = "gpu-mixed-precision"

# The source notebooks may name any kernel; the grading box has the venv's "python3" kernel.
c.Execute.kernel_name = "python3"
# nbgrader's default is 30 s per cell; our quick-mode cells need less, a slow box may need more.
c.Execute.timeout = CELL_TIMEOUT_S
c.Execute.startup_timeout = 120
c.Execute.interrupt_on_timeout = True

# A test cell that writes anything to stderr scores 0 in nbgrader (torch and tqdm warnings
# included). Failed checks raise, and an exception is an "error" output, not stderr, so
# dropping every stderr stream before scoring never gives points to a wrong answer.
c.IgnorePattern.enabled = True
c.IgnorePattern.pattern = r"[\s\S]"

# A test cell the student deleted is put back and graded instead of staying "needs manual grade".
c.OverwriteCells.add_missing_cells = True

c.LimitOutput.max_lines = MAX_OUTPUT_LINES
c.LimitOutput.max_traceback = 100

c.ClearSolutions.code_stub = {"python": "# YOUR CODE HERE\nraise NotImplementedError()"}
