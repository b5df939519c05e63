from pathlib import Path

HELP = "combine the results of shards (--shard i/n runs) into one gradebook and grades.csv"


def add_arguments(p):
    p.add_argument("shards", type=Path, nargs="+", help="the --out folders of the shard runs")
    p.add_argument("--out", type=Path, required=True, help="the combined results folder")
    p.add_argument("--notebooks", nargs="*", default=None)


def run(args) -> int:
    from . import course, review
    from .autograde import print_table
    from .merge import merge_gradebooks, merge_reviews, merge_tables
    from .paths import notebook_names

    names = args.notebooks or notebook_names()
    out = args.out.resolve()
    out.mkdir(parents=True, exist_ok=True)
    course.create(out / "course", names)
    count = merge_gradebooks(out / "course", [Path(s).resolve() / "course" for s in args.shards])
    merge_tables(out, args.shards, names)
    merge_reviews(out, args.shards)
    print_table(review.reapply(out))  # every decision, the shards' and this folder's, applied
    print(f"\nmerged {count} submissions from {len(args.shards)} shards into {out}")
    return 0
