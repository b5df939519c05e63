"""Canvas "Download Submissions": ``submissions.zip``, flat, one file per uploaded file.

Each file is named ``<lastfirst>_<userid>_<fileid>_<original name>`` and, when Canvas marks the
submission late, ``<lastfirst>_LATE_<userid>_<fileid>_<original name>``: ``lastfirst`` is the
student's sortable name squeezed to lower case (``smithbob``), ``userid`` the Canvas user id,
``fileid`` the id of the uploaded file. A second upload of a file with the same name is renamed by
Canvas to ``<name>-1.ipynb``; the original name keeps that suffix and still matches.
"""

from __future__ import annotations

from pathlib import Path

from traitlets import Unicode

from graders.intake.lms import HandIn, NamedCollector, Skipped, slug

NAME = "Canvas"
LOOKS_FOR = "Canvas: flat files <lastfirst>_[LATE_]<userid>_<fileid>_<name> (submissions.zip)"
PATTERN = r"^(?P<student_id>[^_/]+?)(?:_(?P<late>LATE))?_(?P<lms_id>\d+)_(?P<submission_id>\d+)_(?P<file_id>.+)$"


class CanvasCollector(NamedCollector):
    """Canvas's names for nbgrader (``zip_collect --collector=graders.intake.lms.canvas.CanvasCollector``)."""
    named_regexp = Unicode(PATTERN).tag(config=True)


def read(root: Path, names: list[str]) -> tuple[list[HandIn], list[Skipped]] | None:
    collector = CanvasCollector()
    top = [p for p in sorted(root.iterdir()) if not p.name.startswith(".") and p.name != "__MACOSX"]
    if not any(collector.parse(p.name) for p in top):
        return None
    parsed, skipped = collector.parsed_files(root, "Canvas's <lastfirst>_<userid>_<fileid>_<name>")
    hand_ins = []
    for path, first, info in parsed:
        given = info["file_id"] if path.name == first else path.name
        hand_ins.append(HandIn(NAME, key=info["lms_id"], name=info["student_id"], lms_id=info["lms_id"],
                               student_id=slug(info["student_id"]),
                               submission_id=info["submission_id"], late=bool(info["late"]),
                               files=[(path, given)]))
    return hand_ins, skipped
