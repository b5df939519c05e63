from pathlib import Path

HELP = "regenerate notebooks/ from solutions/ with nbgrader"


def add_arguments(p):
    p.add_argument("--out", type=Path, default=None, help="write here instead of notebooks/")
    p.add_argument("--notebooks", nargs="*", default=None, help="build only these notebooks")


def run(args) -> int:
    from graders.authoring.build import build
    from graders.paths import NOTEBOOKS
    changed = build(args.out or NOTEBOOKS, names=args.notebooks)
    print(f"built {len(changed)} changed notebook(s)" + "".join(f"\n  {p}" for p in changed))
    return 0
