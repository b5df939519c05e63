from pathlib import Path

HELP = ("per-student HTML feedback (no hidden-test code) and a class summary (table and plot) "
        "from an autograde results folder")


def add_arguments(p):
    p.add_argument("graded", type=Path, help="the --out folder of `python -m graders autograde`")
    p.add_argument("--out", type=Path, default=None,
                   help="where to write feedback/ and summary.* (default: the graded folder)")
    p.add_argument("--notebooks", nargs="*", default=None, help="only these notebooks")
    p.add_argument("--summary-only", action="store_true", help="skip the HTML feedback")


def run(args) -> int:
    from graders.export.feedback import class_summary, student_feedback

    dest = (args.out or args.graded).resolve()
    problems = []
    if not args.summary_only:
        pages, problems = student_feedback(args.graded.resolve(), dest / "feedback", args.notebooks)
        print(f"wrote {len(pages)} feedback pages under {dest / 'feedback'} (hidden tests' code removed)")
        for problem in problems:
            print("  NOT WRITTEN", problem)
    table = class_summary(args.graded.resolve(), dest)
    print((dest / "summary.md").read_text())
    print(f"wrote {dest / 'summary.csv'}, {dest / 'summary.md'}, {dest / 'summary.png'} ({len(table)} exercises)")
    return 1 if problems else 0
