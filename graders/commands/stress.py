HELP = "run each test cell many times on the reference and on every listed mistake: find chance passes and failures"


def add_arguments(p):
    p.add_argument("notebooks", nargs="*", help="notebook names (default: all)")
    p.add_argument("--repeats", type=int, default=30, help="runs of each test cell per case (default 30)")


def run(args) -> int:
    from graders.qa.stress import stress

    problems = stress(args.notebooks or None, args.repeats)
    print("\n".join(problems) if problems else f"stress: every run as expected ({args.repeats} per test)")
    return 1 if problems else 0
