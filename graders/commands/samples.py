from pathlib import Path

HELP = "regenerate the sample submissions in samples/submissions (--check DIR: verify their grades)"


def add_arguments(p):
    p.add_argument("--out", type=Path, default=None)
    p.add_argument("--check", type=Path, default=None, metavar="DIR",
                   help="instead: compare DIR/grades.csv (the samples graded) with what each sample must score")


def run(args) -> int:
    if args.check is not None:
        from graders.qa.sample_check import check, verdict
        expected, problems = check(args.check)
        print("\n".join(verdict(expected, problems)))
        return 1 if problems else 0
    from graders.authoring.samples import write_samples
    from graders.paths import SAMPLES
    for path in write_samples(args.out or SAMPLES):
        print(path)
    return 0
