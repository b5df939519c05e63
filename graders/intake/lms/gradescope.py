"""Gradescope "Export Submissions": ``assignment_<id>_export/`` with one folder per submission.

``submission_<id>/`` holds the files as uploaded; ``submission_metadata.yml`` maps each folder to
its submitters (``:name:``, ``:email:``, ``:sid:``; several for a group) and ``:created_at:``, the
submission time (lms-formats.md, Gradescope). The person is the SID when the course has them, else the
e-mail address (student id ``gradescope_<sid or email>``); every submitter of a group hand-in gets its files.
``:sid:`` may be an unquoted number or absent; ``:submitters: []`` occurs: its folder is reported.
"""

from __future__ import annotations

from pathlib import Path

from graders.intake.lms import HandIn, Skipped, display, epoch, files_under, rel, split_system, student_id

NAME = "Gradescope"
LOOKS_FOR = "Gradescope: submission_metadata.yml beside submission_<id>/ folders"
METADATA = "submission_metadata.yml"
TIME_SOURCE = "Gradescope created_at"


def _get(mapping: dict, key: str):
    """Gradescope writes Ruby-style keys (``:name``); accept plain ones too."""
    return mapping.get(f":{key}", mapping.get(key)) if isinstance(mapping, dict) else None


def load_metadata(path: Path) -> dict:
    import yaml  # PyYAML: installed with nbgrader's Jupyter stack (jupyter_events needs it)
    data = yaml.safe_load(path.read_text(encoding="utf-8", errors="replace"))
    return data if isinstance(data, dict) else {}


def read(root: Path, names: list[str]) -> tuple[list[HandIn], list[Skipped]] | None:
    if not (root / METADATA).is_file():
        return None
    try:
        metadata = load_metadata(root / METADATA)
    except Exception as error:  # a YAML error names its line; anything else is a broken export too
        return [], [Skipped(str(root / METADATA), f"could not read Gradescope's metadata ({type(error).__name__}: "
                            f"{str(error)[:120]})")]
    paths, skipped = split_system(root, files_under(root))
    owned: dict[str, list[HandIn]] = {}
    empty = set()
    for folder, info in metadata.items():
        people = _get(info, "submitters") or []
        if not people:
            empty.add(str(folder))
        for person in people:
            sid, email, name = (str(_get(person, k) or "").strip() for k in ("sid", "email", "name"))
            if not (sid or email):
                empty.add(str(folder))
                continue
            key = sid or email.casefold()
            owned.setdefault(str(folder), []).append(HandIn(
                NAME, key=key, name=display(name), lms_id=sid or email, email=email,
                student_id=student_id("gradescope", key), submission_id=str(folder).removeprefix("submission_"),
                submitted_at=epoch(_get(info, "created_at")), time_source=TIME_SOURCE,
                ids={k: v for k, v in (("sid", sid), ("email", email)) if v},
                notes=[f"one of {len(people)} submitters of {folder}: each gets its files"] if len(people) > 1 else []))
    for path in paths:
        parts = Path(rel(root, path)).parts
        if parts == (METADATA,):
            skipped.append(Skipped(str(path), "Gradescope's metadata: read for who handed in each folder and when, "
                                   "not a hand-in"))
            continue
        if len(parts) >= 2 and parts[0] in empty and parts[0] not in owned:
            skipped.append(Skipped(str(path), f"{METADATA} names no submitter with a SID or e-mail for {parts[0]}: "
                                   "whose is it?"))
            continue
        if len(parts) < 2 or parts[0] not in owned:
            skipped.append(Skipped(str(path), f"not in a submission folder listed in {METADATA}"))
            continue
        for hand_in in owned[parts[0]]:  # a group's files count for every member
            hand_in.files.append((path, path.name))
    return [h for group in owned.values() for h in group], skipped
