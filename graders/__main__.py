"""The instructor's commands: ``python -m graders {build,autograde,samples}``."""

from __future__ import annotations

import argparse
import sys
from pathlib import Path


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m graders", description=__doc__)
    sub = parser.add_subparsers(dest="command", required=True)

    p_build = sub.add_parser("build", help="regenerate notebooks/ from solutions/ with nbgrader")
    p_build.add_argument("--out", type=Path, default=None, help="write here instead of notebooks/")
    p_build.add_argument("--notebooks", nargs="*", default=None, help="build only these notebooks")

    p_grade = sub.add_parser("autograde", help="grade SUBMISSIONS/<student_id>/*.ipynb with nbgrader")
    p_grade.add_argument("submissions", type=Path)
    p_grade.add_argument("--out", type=Path, default=Path("graded"), help="results folder (default: graded)")
    p_grade.add_argument("--notebooks", nargs="*", default=None, help="grade only these notebooks")

    p_samples = sub.add_parser("samples", help="regenerate the sample submissions in samples/")
    p_samples.add_argument("--out", type=Path, default=None)

    p_self = sub.add_parser("selftest", help="grade reference, untouched copy and every mistake; compare")
    p_self.add_argument("notebooks", nargs="*", help="notebook names (default: all)")
    p_self.add_argument("--out", type=Path, default=Path("graded-selftest"))

    args = parser.parse_args(argv)
    if args.command == "build":
        from .build import build
        from .paths import NOTEBOOKS
        changed = build(args.out or NOTEBOOKS, names=args.notebooks)
        print(f"built {len(changed)} changed notebook(s)" + "".join(f"\n  {p}" for p in changed))
        return 0
    if args.command == "autograde":
        from .autograde import autograde, print_table
        rows = autograde(args.submissions, args.out, names=args.notebooks)
        print_table(rows)
        print(f"\nwrote {args.out / 'grades.csv'}")
        return 0
    if args.command == "samples":
        from .samples import write_samples
        from .paths import SAMPLES
        for path in write_samples(args.out or SAMPLES):
            print(path)
        return 0
    if args.command == "selftest":
        from .selftest import selftest
        problems = selftest(args.notebooks or None, args.out)
        print("\n".join(problems) if problems else "selftest: every score is as expected")
        return 1 if problems else 0
    return 2


if __name__ == "__main__":
    sys.exit(main())
