from pathlib import Path

HELP = ("one row per student for an LMS gradebook import (Canvas, Moodle or generic CSV), from an nbgrader "
        "course's gradebook: a column per notebook, the total, minutes late against --due")


def add_arguments(p):
    p.add_argument("course", type=Path,
                   help="the nbgrader course folder (with gradebook.db), or an autograde --out folder")
    p.add_argument("--lms", choices=["canvas", "moodle", "generic"], default="generic")
    p.add_argument("--due", action="append", default=[], metavar="[NOTEBOOK=]TIME",
                   help="due date, ISO, UTC unless an offset is given (2026-12-15T23:59); "
                        "NOTEBOOK=TIME for one notebook; repeatable")
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


def run(args) -> int:
    from nbgrader.api import Gradebook

    from graders.export.lms import EXPORTERS
    from graders.paths import COURSE_ID

    root = args.course.resolve()
    if not (root / "gradebook.db").exists() and (root / "course" / "gradebook.db").exists():
        root = root / "course"
    if not (root / "gradebook.db").exists():
        print(f"export: no gradebook.db in {args.course}")
        return 2
    try:
        overall, per = split_due(args.due)
    except ValueError as error:
        print(f"export: bad --due: {error}")
        return 2
    name = "lms" if args.lms == "generic" else args.lms
    dest = (args.out or Path(f"grades_{name}.csv")).resolve()
    plugin = EXPORTERS[args.lms](to=str(dest), due=overall, due_by_notebook=per,
                                 manifest=str(root / "collect_manifest.csv"))
    with Gradebook(f"sqlite:///{root / 'gradebook.db'}", course_id=COURSE_ID) as gb:
        plugin.export(gb)
    print(f"wrote {dest}")
    for warning in plugin.warnings:
        print("  WARNING", warning)
    return 0
