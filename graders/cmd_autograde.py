from pathlib import Path

HELP = "grade SUBMISSIONS/<student_id>/*.ipynb with real nbgrader; write DIR/grades.csv"


def add_arguments(p):
    p.add_argument("submissions", type=Path)
    p.add_argument("--out", type=Path, default=Path("graded"), help="results folder (default: graded)")
    p.add_argument("--notebooks", nargs="*", default=None, help="grade only these notebooks")


def run(args) -> int:
    from .autograde import autograde, print_table
    rows = autograde(args.submissions, args.out, names=args.notebooks)
    print_table(rows)
    print(f"\nwrote {args.out / 'grades.csv'}")
    return 0
