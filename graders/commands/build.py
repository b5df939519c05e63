from pathlib import Path

HELP = ("regenerate solutions/, notebooks/, samples/, gpucourse/timing.py and the notebook tables from sources/ "
        "(--out DIR: only the student notebooks, into DIR)")


def add_arguments(p):
    p.add_argument("--out", type=Path, default=None, help="write the student notebooks here instead of notebooks/")
    p.add_argument("--notebooks", nargs="*", default=None, help="build only these notebooks")


def run(args) -> int:
    from graders.authoring.build import build
    from graders.paths import NOTEBOOKS

    changed = build(args.out or NOTEBOOKS, names=args.notebooks)  # a BuildError: __main__ says it, exit 1
    print(f"built: {len(changed)} file(s) changed" + "".join(f"\n  {p}" for p in changed))
    return 0
