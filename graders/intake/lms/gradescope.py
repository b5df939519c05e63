"""Gradescope "Export Submissions": ``assignment_<id>_export/`` with one folder per submission.

``submission_<id>/`` holds the files as uploaded; ``submission_metadata.yml`` maps each folder to
its submitters (``:name:``, ``:email:``, ``:sid:``; several for a group) and ``:created_at:``, the
submission time. The student id is the SID when the course has them, else the e-mail address.
"""

from __future__ import annotations

from pathlib import Path

from graders.intake.lms import HandIn, Skipped, epoch, files_under, rel, slug, split_system

NAME = "Gradescope"
LOOKS_FOR = "Gradescope: submission_metadata.yml beside submission_<id>/ folders"
METADATA = "submission_metadata.yml"


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
    for folder, info in metadata.items():
        for person in _get(info, "submitters") or []:
            sid, email, name = (str(_get(person, k) or "") for k in ("sid", "email", "name"))
            key = sid or email or slug(name)
            owned.setdefault(str(folder), []).append(HandIn(
                NAME, key=key, name=name, lms_id=sid or email, email=email,
                submission_id=str(folder).removeprefix("submission_"),
                submitted_at=epoch(_get(info, "created_at"))))
    for path in paths:
        parts = Path(rel(root, path)).parts
        if parts == (METADATA,):
            continue
        if len(parts) < 2 or parts[0] not in owned:
            skipped.append(Skipped(str(path), f"not in a submission folder listed in {METADATA}"))
            continue
        for hand_in in owned[parts[0]]:  # a group's files count for every member
            hand_in.files.append((path, path.name))
    return [h for group in owned.values() for h in group], skipped
