from pathlib import Path

HELP = "regenerate the sample submissions in samples/submissions"


def add_arguments(p):
    p.add_argument("--out", type=Path, default=None)


def run(args) -> int:
    from .paths import SAMPLES
    from .samples import write_samples
    for path in write_samples(args.out or SAMPLES):
        print(path)
    return 0
