from pathlib import Path

HELP = "build a static HTML book of the executed solutions (figures embedded, contents page, offline)"


def add_arguments(p):
    p.add_argument("--out", type=Path, default=None, help="folder to write the book into (default: book/_build)")
    p.add_argument("--quick", action="store_true",
                   help="run the notebooks in quick mode (COURSE_QUICK=1), as CI does; default: full mode")
    p.add_argument("--notebooks", nargs="*", default=None, help="only these notebooks (default: all)")
    p.add_argument("--jobs", type=int, default=None, help="notebooks run at once (default: CPUs, at most 4)")
    p.add_argument("--timeout", type=int, default=600, help="seconds allowed per cell (default 600)")


def run(args) -> int:
    import time

    from graders.authoring.book import DEFAULT_OUT, build_book

    start = time.perf_counter()
    index, chapters = build_book(args.out or DEFAULT_OUT, names=args.notebooks, quick=args.quick,
                                 timeout=args.timeout, jobs=args.jobs)
    failed = [ch for ch in chapters if ch.error]
    print(f"book: {len(chapters)} chapter(s), {sum(ch.figures for ch in chapters)} figure(s), "
          f"{time.perf_counter() - start:.0f} s -> {index}")
    for ch in failed:
        print(f"  {ch.name} did not run to the end: {ch.error}")
    return 1 if failed else 0
