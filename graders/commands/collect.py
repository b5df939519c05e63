from pathlib import Path

HELP = ("file an LMS download (Canvas, Moodle, Google Classroom, Gradescope, per-student folders; a folder "
        "or the zip) into an nbgrader course's submitted/<student>/<notebook>/")


def add_arguments(p):
    p.add_argument("download", type=Path, help="the LMS download: a folder or the zip itself")
    p.add_argument("--course", type=Path, default=Path("course"),
                   help="nbgrader course folder to file into (default: ./course)")
    p.add_argument("--notebooks", nargs="*", default=None, help="collect only these notebooks")


def run(args) -> int:
    from graders.intake.collect import collect, looks_for
    if not args.download.exists():
        print(f"collect: {args.download} does not exist")
        return 2
    try:
        result = collect(args.download, args.course, names=args.notebooks)
    except ValueError as error:
        print(f"collect: {error}")
        return 2
    if not result.filed:
        print(f"collect: nothing filed from {args.download}. Looked for: {looks_for()}.")
        return 1
    return 0
