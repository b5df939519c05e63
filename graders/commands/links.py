from pathlib import Path

HELP = ("point every Colab link, badge and set-up cell at one repository and branch (colab/config.json), "
        "then rebuild notebooks/")


def add_arguments(p):
    p.add_argument("--repo", help="GitHub repository, OWNER/NAME (default: as configured)")
    p.add_argument("--branch", help="branch the Colab links open (default: as configured)")
    p.add_argument("--package-ref", default=None,
                   help="tag or commit the set-up cell installs the helper package from (default: the branch)")
    p.add_argument("--no-build", action="store_true", help="do not rebuild notebooks/")


def run(args) -> int:
    from graders.authoring import ColabConfig
    from graders.authoring.build import relink

    changed = relink(args.repo, args.branch, args.package_ref, rebuild=not args.no_build)
    config = ColabConfig.load()
    print(f"course at {config.repo} (branch {config.branch}"
          + (f", helper package from {config.package_ref}" if config.package_ref else "") + ")")
    print(f"{len(changed)} file(s) changed" + "".join(f"\n  {Path(p)}" for p in changed))
    return 0
