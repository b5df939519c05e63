"""The project's nbgrader settings for a CPU-only grading box, usable from any course's own config.

Two ways to use it from an instructor's ``nbgrader_config.py`` (nothing is written beside this file):

    c = get_config()
    load_subconfig("/path/to/repo/graders/nbgrader_config.py")   # an absolute path; a wrong one is
                                                                   # silently ignored by traitlets
or
    import sys; sys.path.insert(0, "/path/to/repo")
    from graders.nbgrader_config import configure
    configure(get_config())

Each setting answers a fact about nbgrader 0.9 (see docs/grading.md and docs/exporting.md).
"""
import os
import sys

_REPO = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
if _REPO not in sys.path:  # loaded by path (load_subconfig): make the graders package importable
    sys.path.insert(0, _REPO)

from graders.limits import Limits  # noqa: E402


def configure(c, limits: Limits | None = None) -> None:
    """Put the project's settings into the traitlets Config ``c`` (``limits``: default :meth:`Limits.from_env`,
    the variables a grading run gives the nbgrader it starts)."""
    limits = limits or Limits.from_env()
    c.CourseDirectory.course_id = "gpu-mixed-precision"

    # The source notebooks may name any kernel; the grading box has the venv's "python3" kernel.
    c.Execute.kernel_name = "python3"
    # nbgrader's default is 30 s per cell; our quick-mode cells need less, a slow box may need more.
    c.Execute.timeout = limits.cell_timeout_s
    c.Execute.startup_timeout = 120
    c.Execute.interrupt_on_timeout = True

    # A test cell that writes anything to stderr scores 0 in nbgrader (torch and tqdm warnings
    # included). Failed checks raise, and an exception is an "error" output, not stderr, so
    # dropping every stderr stream before scoring never gives points to a wrong answer.
    c.IgnorePattern.enabled = True
    c.IgnorePattern.pattern = r"[\s\S]"

    # A test cell the student deleted is put back and graded instead of staying "needs manual grade".
    c.OverwriteCells.add_missing_cells = True

    c.LimitOutput.max_lines = limits.max_output_lines
    c.LimitOutput.max_traceback = 100

    c.ClearSolutions.code_stub = {"python": "# YOUR CODE HERE\nraise NotImplementedError()"}

    # nbgrader's feedback shows the hidden tests by design (jupyter/nbgrader#917): remove them from
    # the copy that is rendered (the graded notebook and the gradebook keep them).
    from nbgrader.converters import GenerateFeedback

    from graders.export.preprocessors import HideHiddenTests
    defaults = GenerateFeedback.class_traits()["preprocessors"].default()  # GetGrades, CSS header
    c.GenerateFeedback.preprocessors = [HideHiddenTests] + [p for p in defaults if p is not HideHiddenTests]


if "get_config" in globals():  # run as a config file (nbgrader, load_subconfig), not imported
    configure(get_config(), Limits.from_env())  # noqa: F821
