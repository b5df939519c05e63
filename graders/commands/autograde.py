from pathlib import Path

HELP = ("grade SUBMISSIONS/<student_id>/*.ipynb (or an nbgrader course's submitted/) with real nbgrader; "
        "write DIR/grades.csv")


def add_arguments(p):
    p.add_argument("submissions", type=Path, nargs="?")
    p.add_argument("--out", type=Path, default=None,
                   help="results folder; grades land in its nbgrader course (DIR/course, or DIR itself when it is an "
                        "nbgrader course). Default: SUBMISSIONS when it is an nbgrader course folder, else graded")
    p.add_argument("--notebooks", nargs="*", default=None, help="grade only these notebooks")
    p.add_argument("--jobs", type=int, default=1,
                   help="notebooks graded at once, of one student or of several (default 1; use the core count)")
    p.add_argument("--shard", default=None, metavar="i/n",
                   help="grade only shard i of n (students split by a hash of their id); combine with merge")
    p.add_argument("--students", nargs="*", default=None, help="grade only these students")
    p.add_argument("--regrade", action="store_true",
                   help="grade again what an earlier run into DIR already graded from the same hand-in (by default "
                        "such a row is kept, and only what is missing, changed or failed is graded)")
    p.add_argument("--quiet", action="store_true", help="no progress lines (as `python -m graders -q autograde`)")
    p.add_argument("--check", action="store_true",
                   help="grade nothing: say what protects this machine (the OS sandbox, tried with each escape a "
                        "submission might attempt; the warm start; the in-kernel guard; the limits) and run the "
                        "pre-flight every run makes (a grading kernel runs the course's set-up and reads the data; "
                        "exit 2 if it cannot)")


def run(args) -> int:
    """``--quiet`` (or ``-q``) has already set the ``graders`` logger's level in ``__main__``: progress follows it."""
    import logging

    from graders import log
    from graders.errors import InputError
    from graders.grading.autograde import autograde, parse_shard, status_counts, table_lines
    from graders.limits import Limits
    from graders.paths import is_course
    if args.check:
        from graders.grading.protection import PREFLIGHT_FAILED, report
        lines = report()
        print("\n".join(lines))
        if any(line.startswith(PREFLIGHT_FAILED) for line in lines):
            return 2  # as a run would be refused
        return 1 if any(line.lstrip().startswith("FAIL") for line in lines) else 0
    if args.submissions is None:
        raise InputError("say which SUBMISSIONS folder to grade (or --check)")
    out = args.out or (args.submissions if is_course(args.submissions) else Path("graded"))
    rows = autograde(args.submissions, out, names=args.notebooks, jobs=args.jobs,
                     shard=parse_shard(args.shard), students=args.students, regrade=args.regrade,
                     progress=log.LOGGER.isEnabledFor(logging.INFO), limits=Limits.from_env())
    print("\n".join(table_lines(rows)))
    print(f"\nwrote {out / 'grades.csv'} ({len(rows)} rows: every student and notebook graded into this folder so far; "
          f"{status_counts(rows) or 'none'})")
    return 0
