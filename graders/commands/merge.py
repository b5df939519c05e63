from pathlib import Path

HELP = "combine the results of shards (--shard i/n runs) into one gradebook and grades.csv"


def add_arguments(p):
    p.add_argument("shards", type=Path, nargs="+", help="the --out folders of the shard runs")
    p.add_argument("--out", type=Path, required=True, help="the combined results folder")
    p.add_argument("--notebooks", nargs="*", default=None)


def run(args) -> int:
    from graders import course
    from graders.errors import InputError
    from graders.grading import graded_folder, review
    from graders.grading.autograde import table_lines
    from graders.grading.merge import merge_gradebooks, merge_reviews, read_tables, seed_course, write_tables
    from graders.limits import Limits
    from graders.paths import course_root, notebook_names

    names = args.notebooks or notebook_names()
    out = args.out.resolve()
    out.mkdir(parents=True, exist_ok=True)
    missing = [str(s) for s in args.shards if not graded_folder.has_grades(Path(s))]
    if missing:  # a shard that never finished: say which, merge nothing, lose nothing
        raise InputError(f"no grades.csv in {', '.join(missing)} (that shard did not finish): grade it again first")
    # every shard's header read by column name, before anything is written: what cannot be reconciled is refused
    tables = read_tables(out, args.shards)
    shard_courses = [course_root(Path(s).resolve()) for s in args.shards]
    seed_course(course_root(out), shard_courses[0])
    course.ensure(course_root(out), names, limits=Limits.from_env())
    count = merge_gradebooks(course_root(out), shard_courses)
    write_tables(out, tables, names)
    merge_reviews(out, args.shards)
    print("\n".join(table_lines(review.reapply(out))))  # every decision, the shards' and this folder's, applied
    print(f"\nmerged {count} submissions from {len(args.shards)} shards into {out}")
    return 0
