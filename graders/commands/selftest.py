from pathlib import Path

HELP = "grade the solution, a correct student, the untouched copy and every listed mistake; compare"


def add_arguments(p):
    p.add_argument("notebooks", nargs="*", help="notebook names (default: all)")
    p.add_argument("--out", type=Path, default=Path("graded-selftest"))
    p.add_argument("--jobs", type=int, default=1, help="students graded at once")


def run(args) -> int:
    from graders.qa.selftest import selftest
    problems = selftest(args.notebooks or None, args.out, jobs=args.jobs)
    print("\n".join(problems) if problems else "selftest: every score is as expected")
    return 1 if problems else 0
