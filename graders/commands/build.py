from pathlib import Path

HELP = ("regenerate solutions/, notebooks/, samples/, gpucourse/timing.py and the notebook tables from sources/ "
        "(--out DIR: only the student notebooks, into DIR)")


def add_arguments(p):
    p.add_argument("--out", type=Path, default=None, help="write the student notebooks here instead of notebooks/")
    p.add_argument("--notebooks", nargs="*", default=None, help="build only these notebooks")


def run(args) -> int:
    from graders.authoring.build import BuildError, build
    from graders.authoring.fixtures import FixtureError
    from graders.paths import NOTEBOOKS

    try:
        changed = build(args.out or NOTEBOOKS, names=args.notebooks)
    except (BuildError, FixtureError, FileNotFoundError) as exc:
        print(f"build: stopped, nothing after this was written: {exc}")
        return 1
    print(f"built: {len(changed)} file(s) changed" + "".join(f"\n  {p}" for p in changed))
    return 0
