"""Intake: an LMS download or per-student folders, into one clean notebook per student and assignment."""
from pathlib import Path

HELP = ("file an LMS download (Canvas, Moodle, Google Classroom, Gradescope, Blackboard Learn, D2L Brightspace, "
        "per-student folders; a folder or the zip) into an nbgrader course's submitted/<student>/<notebook>/, "
        "keyed by the LMS's own ids")


def add_arguments(p):
    p.add_argument("download", type=Path, help="the LMS download: a folder or the zip itself")
    p.add_argument("--course", type=Path, default=Path("course"),
                   help="nbgrader course folder to file into (default: ./course)")
    p.add_argument("--notebooks", nargs="*", default=None, help="collect only these notebooks")
    p.add_argument("--roster", type=Path, default=None,
                   help="the class list exported from the LMS (Canvas gradebook, Moodle grades or participants, "
                        "Blackboard Grade Center, Brightspace grades, Classroom/Gradescope CSV): joins each hand-in "
                        "to the ids the LMS's import needs, decides whose a Classroom file is, names roster "
                        "students without a hand-in")
    p.add_argument("--times", type=Path, default=None,
                   help="a CSV of submission times you have where the LMS's download has none (Canvas): a column "
                        "naming the person (canvas_user_id, user_id, ID, lms_id or student_id) and submitted_at "
                        "(ISO 8601; no zone = local time); written to the manifest and timestamp.txt")


def run(args) -> int:
    from graders.errors import InputError
    from graders.intake.collect import collect, looks_for
    from graders.limits import Limits

    if not args.download.exists():
        raise InputError(f"{args.download} does not exist")
    # a download inside submitted/, a roster (RosterError) or times file that is none: an InputError, said by __main__
    result = collect(args.download, args.course, names=args.notebooks, roster=args.roster, times=args.times,
                     limits=Limits.from_env(), echo=print)
    if result.refused:
        print(f"collect: refused {len(result.refused)} file(s) of {args.download}: their layout is no LMS's that "
              f"collect knows, and reading them as another LMS's would misfile them. Each is listed in "
              f"{args.course / 'collect_report.csv'}. Looked for: {looks_for()}.")
        return 1
    if not result.filed:
        print(f"collect: nothing filed from {args.download}. Looked for: {looks_for()}.")
        return 1
    return 0
