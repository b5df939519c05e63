"""Canvas "Download Submissions": ``submissions.zip``, flat, one file per uploaded file.

The rules (``lms-formats.md``, Canvas, from canvas-lms ``lib/content_zipper.rb``):

- ``<sortable name>[_LATE]_<user id>_<attachment id>_<display name>``. The sortable name is ``Last, First``
  with every non-word character removed, lower case: Unicode letters survive (``müllerjosé``, ``王小明``).
- Text and URL entries: ``<name>[_LATE]_<user id>_text.html`` / ``_link.html`` (no attachment id).
- Anonymous grading: ``anon_<5 base58 chars>_<attachment id>_<file>`` or ``LATE_anon_…``: no name, no user id.
- A group graded as a group hands in ONE file named after the group with ONE member's user id: nothing in the
  name tells it from a person's; ``graders.intake.join`` tells with a roster.
- Every zip entry carries the time the zip was built, so the only time is ``LATE``: ``submitted_at`` stays empty.
  Among a student's files the higher attachment id is the later upload (``order``).

The person is the Canvas user id: the student id is ``canvas_<user id>`` (``canvas_anon_<id>`` for anonymous).
"""

from __future__ import annotations

import re
import unicodedata
from pathlib import Path

from traitlets import Unicode

from graders.intake.lms import HandIn, NamedCollector, Skipped, is_system, parsed_files, student_id

NAME = "Canvas"
LOOKS_FOR = ("Canvas: flat files <lastfirst>_[LATE_]<userid>_<fileid>_<name>, anon_<id>_<fileid>_<name> "
             "(submissions.zip)")
# lms-formats.md, Canvas: "File name: <sortable name>[_LATE]_<user id>_<attachment id>_<display name>"
PATTERN = (r"^(?P<student_id>[^_\s]*)(?:_(?P<late>LATE))?_(?P<lms_id>\d+)_(?P<submission_id>\d+)_"
           r"(?P<file_id>.+)$")
# lms-formats.md, Canvas: "Text and URL entries: <name>[_LATE]_<user id>_text.html / _link.html"
ENTRY = re.compile(r"^(?P<name>[^_\s]*)(?:_(?P<late>LATE))?_(?P<lms_id>\d+)_(?P<kind>text|link)\.html$")
# lms-formats.md, Canvas: "Anonymous grading: anon_<5 base58 chars>_<attachment id>_<file>, or LATE_anon_…"
ANON = re.compile(r"^(?P<late>LATE_)?anon_(?P<anon>[1-9A-HJ-NP-Za-km-z]{5})(?:_(?P<submission_id>\d+)_(?P<file>.+)"
                  r"|_(?P<kind>text|link)\.html)$")
TIME_SOURCE = "Canvas LATE flag"


class CanvasCollector(NamedCollector):
    """Canvas's names for nbgrader (``zip_collect --collector=graders.intake.lms.canvas.CanvasCollector``);
    files each student under ``canvas_<user id>``, as ``collect`` does."""
    named_regexp = Unicode(PATTERN).tag(config=True)

    def collect(self, submitted_file: str) -> dict | None:
        info = super().collect(submitted_file)
        groups = self.parse(submitted_file)
        if info and groups:
            info["student_id"] = student_id("canvas", groups["lms_id"])
        return info


def wordy(text: str) -> bool:
    """Whether ``text`` is what Ruby's ``[[:word:]]`` keeps: letters, marks (Devanagari's vowel signs), digits
    (Python's ``\\w`` has no marks, hence this test)."""
    return all(c.isalnum() or unicodedata.category(c)[0] in "MN" for c in text)


def parse(name: str) -> dict | None:
    """What a Canvas entry name says: kind (file, text, link, anon), user or anonymous id, late, file."""
    name = unicodedata.normalize("NFC", name)  # a Mac's unzip gives NFD
    match = re.match(PATTERN, name)
    if match and wordy(match["student_id"]):
        return {"kind": "file", "name": match["student_id"], "late": bool(match["late"]), "id": match["lms_id"],
                "submission_id": match["submission_id"], "file": match["file_id"]}
    match = ENTRY.match(name)
    if match and wordy(match["name"]):
        return {"kind": match["kind"], "name": match["name"], "late": bool(match["late"]), "id": match["lms_id"],
                "submission_id": "", "file": ""}
    match = ANON.match(name)
    if match:
        return {"kind": match["kind"] or "file", "name": "", "late": bool(match["late"]),
                "id": f"anon_{match['anon']}", "submission_id": match["submission_id"] or "",
                "file": match["file"] or "", "anonymous": True}
    return None


def fits(root: Path) -> bool:
    """Canvas's whole rule: most top-level entries named by it (a stray file is reported), and none named by
    Blackboard's more specific rule (``<Assignment>_<number>_attempt_<stamp>_…`` fits Canvas's pattern too)."""
    from graders.intake.lms import blackboard
    top = [p for p in root.iterdir() if not is_system(Path(p.name))]
    named = [p for p in top if parse(p.name)]
    return bool(named) and 2 * len(named) > len(top) and not any(blackboard.parse(p.name) for p in top)


def read(root: Path, names: list[str]) -> tuple[list[HandIn], list[Skipped]] | None:
    if not fits(root):
        return None
    parsed, skipped = parsed_files(root, parse, "Canvas's <lastfirst>_<userid>_<fileid>_<name>")
    hand_ins = []
    for path, first, info in parsed:
        if info["kind"] != "file":
            skipped.append(Skipped(str(path), f"Canvas's {info['kind']} entry (typed into Canvas), not an "
                                   "uploaded file", student_id("canvas", info["id"])))
            continue
        anonymous = info.get("anonymous", False)
        hand_ins.append(HandIn(
            NAME, key=info["id"], name=info["name"], lms_id="" if anonymous else info["id"],
            student_id=student_id("canvas", info["id"]), submission_id=info["submission_id"],
            late=info["late"], time_source=TIME_SOURCE, order=(int(info["submission_id"] or 0),),
            ids={} if anonymous else {"canvas_user_id": info["id"]},
            files=[(path, info["file"] if path.name == first else path.name)],
            notes=[f"anonymous grading: filed under Canvas's anonymous id {info['id']}; Canvas's gradebook "
                   "import needs user ids, so unmask the assignment before exporting"] if anonymous else []))
    return hand_ins, skipped
