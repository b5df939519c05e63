from pathlib import Path

HELP = ("build the reader's book: the solutions executed one at a time, as a Jupyter Book (search, contents "
        "sidebar, offline) in DIR/_build/html and zipped as DIR/_build/book-html.zip")


def add_arguments(p):
    p.add_argument("--out", type=Path, default=None,
                   help="folder to build into (default: book; the site in book/_build/html)")
    p.add_argument("--quick", action="store_true",
                   help="run the notebooks in quick mode (COURSE_QUICK=1), as CI does; default: full mode")
    p.add_argument("--notebooks", nargs="*", default=None, help="only these notebooks (default: all)")
    p.add_argument("--jobs", type=int, default=1,
                   help="notebooks run at once (default 1: more makes every page say its speed figures were "
                        "taken under contention)")
    p.add_argument("--timeout", type=int, default=600, help="seconds allowed per cell (default 600)")


def run(args) -> int:
    from graders.authoring.book import DEFAULT_OUT, build_book
    from graders.errors import InputError

    if args.jobs < 1:
        raise InputError(f"--jobs must be 1 or more, not {args.jobs}")
    book = build_book(args.out or DEFAULT_OUT, names=args.notebooks, quick=args.quick, timeout=args.timeout,
                      jobs=args.jobs)
    failed = [ch for ch in book.chapters if ch.error]
    phases = ", ".join(f"{name} {seconds:.0f} s" for name, seconds in book.phases.items())
    print(f"book: {len(book.chapters)} chapter(s), {sum(ch.figures for ch in book.chapters)} figure(s), "
          f"built in {book.seconds:.0f} s ({phases})")
    print(f"book: open {book.index}")
    print(f"book: the site as one file: {book.archive}; to GitHub Pages: ghp-import -n -p -f {book.html}")
    for ch in failed:
        print(f"  {ch.name} did not run to the end: {ch.error}")
    return 1 if failed else 0
