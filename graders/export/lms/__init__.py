"""Grades for an LMS gradebook import: one row per student, from nbgrader's gradebook.

nbgrader export plugins (``nbgrader export --exporter=graders.export.lms.CanvasExport``; see
docs/exporting.md). They read the gradebook, so manual grades given in the formgrader are in. One module per
LMS (``canvas``, ``moodle``, ``blackboard``, ``brightspace``) beside the shared base (``base``: the generic file
and what every export does; ``cells``: a person's scores and lateness), as ``graders.intake.lms`` has one reader
per LMS.

- a column per notebook (its score: nbgrader's, minus nbgrader's own late penalty if the course
  configured one; the default is none), then the total where the LMS takes one;
- the identifiers each importer matches on (``graders.export.identity``: ``collect_manifest.csv``, the
  gradebook's student records and ``roster``, the LMS's own roster export). A person the importer
  could not match is named before the file is written and left out of it (Moodle aborts a whole
  import on one unknown user); a roster student with no hand-in gets a row with empty scores; each
  person's roster status is in the file (generic, Moodle) or in ``<file>_lateness.csv`` beside it;
- lateness: the submission time (``collect_manifest.csv``'s ``submitted_at``; nbgrader's timestamp only
  for a student collect never saw) against the due date (``due``, ``due_by_notebook``, else the
  assignment's ``duedate``) as minutes late; where the LMS records no time but marks lateness
  (Canvas's ``LATE``), late yes/no without minutes. It never changes a score;
- a score nobody should import is left **empty** and listed in :attr:`LmsExport.warnings`: a notebook
  under review (nbgrader's ``flagged``), one that still needs a grade, or no submission.

The file formats follow ``/work/shared/reference/lms-formats.md``; ``tests/importers.py`` reads each
file the way its importer does.
"""

from __future__ import annotations

from graders.export.lms.base import LmsExport
from graders.export.lms.blackboard import BlackboardExport
from graders.export.lms.brightspace import BrightspaceExport
from graders.export.lms.canvas import CanvasExport
from graders.export.lms.cells import ExportRefused, parse_due
from graders.export.lms.moodle import MoodleExport

EXPORTERS = {"generic": LmsExport, "canvas": CanvasExport, "moodle": MoodleExport,
             "blackboard": BlackboardExport, "brightspace": BrightspaceExport}

__all__ = ["EXPORTERS", "BlackboardExport", "BrightspaceExport", "CanvasExport", "ExportRefused", "LmsExport",
           "MoodleExport", "parse_due"]
