"""Moodle "Download all submissions": a zip named after the course and assignment.

With "Download submissions in folders" on (the default since Moodle 3.1) each submission is a folder
``<Full Name>_<participant id>_assignsubmission_file_/`` holding the files as uploaded (sub-folders
kept). With it off, the files are flat: ``<Full Name>_<participant id>_assignsubmission_file_<file>``.
Moodle turns ``_`` in names into spaces, prefixes ``<Group>-`` for group submissions and writes
``Participant`` instead of the name under blind marking. The participant id is per assignment, so
the student id comes from the name (from the participant id under blind marking). Typed-in text
arrives as ``..._assignsubmission_onlinetext_/onlinetext.html``.
"""

from __future__ import annotations

from pathlib import Path

from traitlets import Unicode

from graders.intake.lms import HandIn, NamedCollector, Skipped, slug

NAME = "Moodle"
LOOKS_FOR = ("Moodle: folders <Full Name>_<id>_assignsubmission_file_/<file>, or flat "
             "<Full Name>_<id>_assignsubmission_file_<file>")
PATTERN = r"^(?P<student_id>[^_/]+)_(?P<lms_id>\d+)_assignsubmission_(?P<plugin>[a-z]+)_(?P<file_id>.*)$"


class MoodleCollector(NamedCollector):
    """Moodle's flat names for nbgrader (``zip_collect --collector=graders.intake.lms.moodle.MoodleCollector``)."""
    named_regexp = Unicode(PATTERN).tag(config=True)


def read(root: Path, names: list[str]) -> tuple[list[HandIn], list[Skipped]] | None:
    collector = MoodleCollector()
    if not any(collector.parse(p.name) for p in root.iterdir()):
        return None
    parsed, skipped = collector.parsed_files(root, "Moodle's <Full Name>_<id>_assignsubmission_file_")
    hand_ins: dict[str, HandIn] = {}
    for path, first, info in parsed:
        name = info["student_id"]
        blind = name.split("-")[-1].strip().lower() == "participant"
        key = f"participant_{info['lms_id']}" if blind else slug(name)
        if info["plugin"] != "file":
            skipped.append(Skipped(str(path), f"Moodle's {info['plugin']} part (typed into Moodle), "
                                   "not an uploaded file", student=key))
            continue
        hand_in = hand_ins.setdefault(key, HandIn(NAME, key=key, name=name, lms_id=info["lms_id"]))
        hand_in.files.append((path, path.name if path.name != first else info["file_id"]))
    return list(hand_ins.values()), skipped
