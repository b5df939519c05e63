from pathlib import Path

HELP = ("one row per student for an LMS gradebook import (Canvas, Moodle, Blackboard, Brightspace or generic CSV), "
        "from an nbgrader course's gradebook: a column per notebook, the identifiers the importer matches on "
        "(from collect_manifest.csv and --roster), lateness against --due")

LMS_CHOICES = ["canvas", "moodle", "blackboard", "brightspace", "generic"]


def add_arguments(p):
    p.add_argument("course", type=Path,
                   help="the nbgrader course folder (with gradebook.db), or an autograde --out folder")
    p.add_argument("--lms", choices=LMS_CHOICES, default="generic")
    p.add_argument("--roster", type=Path, default=None,
                   help="the roster exported from the LMS (Canvas gradebook CSV, Moodle grade export or participants "
                        "list, Blackboard Grade Center download, Brightspace grades export, Gradescope/Classroom "
                        "CSV): fills the identifiers the importer matches on and lists students with no hand-in")
    p.add_argument("--due", action="append", default=[], metavar="[NOTEBOOK=]TIME",
                   help="due date, ISO, UTC unless an offset is given (2026-12-15T23:59); "
                        "NOTEBOOK=TIME for one notebook; repeatable")
    p.add_argument("--column-id", action="append", default=[], metavar="NOTEBOOK=ID",
                   help="Blackboard: the Grade Center column id of a notebook's column (else taken from a Grade "
                        "Center --roster, else the column is written as a new one); repeatable")
    p.add_argument("--out", type=Path, default=None, help="the CSV to write (default: grades_<lms>.csv in the cwd)")


def split_due(values: list[str]) -> tuple[str, dict[str, str]]:
    """``["2026-12-15T23:59", "01_devices=2026-12-01T12:00"]`` -> (global, per notebook)."""
    from graders.export.lms import parse_due
    overall, per = "", {}
    for value in values:
        name, sep, when = value.partition("=")
        if sep:
            per[name] = when
        else:
            overall, when = value, value
        parse_due(when)  # a bad date is an error now, not a silent "not late"
    return overall, per


def split_ids(values: list[str]) -> dict[str, str]:
    """``["01_devices=123456"]`` -> {"01_devices": "123456"}; a malformed one is a ValueError."""
    ids = {}
    for value in values:
        name, sep, column_id = value.partition("=")
        if not (sep and name.strip() and column_id.strip().isdigit()):
            raise ValueError(f"{value!r}: expected NOTEBOOK=ID with a numeric Grade Center column id")
        ids[name.strip()] = column_id.strip()
    return ids


def run(args) -> int:
    from nbgrader.api import Gradebook

    from graders.errors import InputError
    from graders.export.lms import EXPORTERS
    from graders.grading.graded_folder import gradebook_url, has_gradebook
    from graders.paths import COURSE_ID

    root = args.course.resolve()
    if not has_gradebook(root) and has_gradebook(root / "course"):
        root = root / "course"
    if not has_gradebook(root):
        raise InputError(f"no gradebook.db in {args.course}")
    try:
        overall, per = split_due(args.due)
        column_ids = split_ids(args.column_id)
    except ValueError as error:  # the arguments as typed
        raise InputError(f"bad --due or --column-id: {error}") from error
    if column_ids and args.lms != "blackboard":
        raise InputError("--column-id is for --lms blackboard")
    name = "lms" if args.lms == "generic" else args.lms
    dest = (args.out or Path(f"grades_{name}.csv")).resolve()
    options = dict(to=str(dest), due=overall, due_by_notebook=per, manifest=str(root / "collect_manifest.csv"),
                   roster=str(args.roster.resolve()) if args.roster else "")
    if args.lms == "blackboard":
        options["column_ids"] = column_ids
    plugin = EXPORTERS[args.lms](**options)
    plugin.announce = lambda text: print("  WARNING", text)   # said before the file is written
    # a roster that cannot be used (RosterError) or a file the LMS would reject (ExportRefused): said by __main__
    with Gradebook(gradebook_url(root), course_id=COURSE_ID) as gb:
        plugin.export(gb)
    print(f"wrote {dest}")
    return 0
