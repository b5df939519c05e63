"""Plain per-student folders (``SUBMISSIONS/<student_id>/...``) and nbgrader's own ``submitted/``.

Every folder at the top is one student, named by the student id; whatever is inside (any depth,
zips included) is that student's. nbgrader's layout ``submitted/<student_id>/<assignment>/<nb>.ipynb``
is the same shape; its ``timestamp.txt`` gives the submission time of the files beside it.
"""

from __future__ import annotations

from pathlib import Path

from graders.intake.lms import HandIn, Skipped, epoch, files_under, is_system, split_system

NAME = "folders"
LOOKS_FOR = "per-student folders: <student_id>/<files> (or nbgrader's submitted/<student_id>/<assignment>/)"


def _timestamp(folder: Path) -> float | None:
    stamp = folder / "timestamp.txt"
    if not stamp.is_file():
        return None
    from nbgrader.utils import parse_utc  # nbgrader's own reading of timestamp.txt (naive UTC)
    try:
        when = parse_utc(stamp.read_text().strip())
    except (ValueError, OverflowError):
        return None
    return epoch(when.isoformat() + "+00:00")


def read(root: Path, names: list[str]) -> tuple[list[HandIn], list[Skipped]] | None:
    if (root / "submitted").is_dir():
        root = root / "submitted"
    students = [d for d in sorted(root.iterdir()) if d.is_dir() and not is_system(Path(d.name))]
    if not any(files_under(d) for d in students):
        return None
    hand_ins, skipped = [], []
    for path in files_under(root):
        if path.parent == root and not is_system(Path(path.name)):
            skipped.append(Skipped(str(path), "a file beside the student folders: whose is it? "
                                   "Put it in that student's folder"))
    for folder in students:
        paths, ignored = split_system(root, files_under(folder))
        skipped += ignored
        for path in paths:
            if path.name == "timestamp.txt":
                skipped.append(Skipped(str(path), "ignored: nbgrader's timestamp.txt (its time is used "
                                       "as the submission time)", student=folder.name))
                continue
            when = _timestamp(path.parent)
            hand_ins.append(HandIn(NAME, key=folder.name, name=folder.name, submitted_at=when, student_id=folder.name,
                                   file_times=when is None,
                                   time_source="file time" if when is None else "nbgrader timestamp.txt",
                                   files=[(path, path.name)]))
    return hand_ins, skipped
