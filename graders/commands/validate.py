"""``python -m graders validate FILE...``: the students' hand-in check (``gpucourse.handin``) outside a notebook."""
from pathlib import Path

HELP = ("check notebooks as a student hands them in (nbgrader's Validate): structure against the release, then a copy "
        "run from the top in a fresh kernel (quick mode, the visible checks); one block per file, exit 0 when every "
        "file is ready, 1 when one is not, 2 for a file that is not a notebook of this course")


def add_arguments(p):
    p.add_argument("files", nargs="+", type=Path, help="the notebooks (.ipynb) to check")
    p.add_argument("--cell-timeout", type=int, default=120, help="seconds a cell may run (default 120)")


def run(args) -> int:
    from gpucourse.handin import check_file

    codes = []
    for index, path in enumerate(args.files):
        if index:
            print(flush=True)
        codes.append(check_file(path, cell_timeout=args.cell_timeout, echo=lambda line: print(line, flush=True)))
    return 2 if 2 in codes else max(codes)
