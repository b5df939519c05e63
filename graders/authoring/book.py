"""The reader's book: the solution notebooks, executed, as a Jupyter Book (docs/book.md).

``python -m graders book [--out DIR] [--quick]`` runs every ``solutions/*.ipynb`` top to bottom in a fresh kernel,
one at a time (full mode unless ``--quick``), makes each the page a reader should see (graders/authoring/
book_pages.py: no hidden tests, checks folded, the machine it ran on named, no local path), and builds the site
with Jupyter Book (graders/authoring/book_site.py) into ``DIR/_build/html``, zipped as ``DIR/_build/book-html.zip``.
The site works offline: search, the contents sidebar, in-page contents, previous/next, figures embedded.
"""

from __future__ import annotations

import logging
import os
import shutil
import tempfile
import time
from concurrent.futures import ProcessPoolExecutor, as_completed
from dataclasses import dataclass, field
from pathlib import Path

from graders import nbtools
from graders.authoring import book_machine, book_pages, book_site
from graders.grading.cores import cores_shared
from graders.paths import REPO, SOLUTIONS, notebook_names

log = logging.getLogger(__name__)

DEFAULT_OUT = REPO / "book"


@dataclass
class Chapter:
    name: str
    title: str
    seconds: float
    error: str = ""
    figures: int = 0
    standin: bool = False


@dataclass
class Book:
    """What a build made: the site's folder and front page, its zip, the chapters, and the time it took."""
    html: Path
    archive: Path
    chapters: list[Chapter]
    seconds: float
    phases: dict[str, float] = field(default_factory=dict)

    @property
    def index(self) -> Path:
        return self.html / "index.html"


def execute(name: str, quick: bool, timeout: int, solutions: str) -> tuple:
    """Run one notebook's reader copy in a fresh kernel (in a worker process); return (nb, seconds, error)."""
    import nbformat

    from graders.kernel_client import notebook_client

    # the kernel's environment: the inline backend makes the figures (no MPLBACKEND), not graded (no NBGRADER_*)
    env = {k: v for k, v in os.environ.items() if k not in ("MPLBACKEND", "NBGRADER_EXECUTION")}
    env["COURSE_QUICK"] = "1" if quick else "0"
    nb = book_pages.reader_copy(nbtools.read(Path(solutions) / f"{name}.ipynb"))
    start = time.perf_counter()
    error = ""
    with tempfile.TemporaryDirectory(prefix=f"book-{name}-") as work:
        with notebook_client(nb, work, timeout=timeout, kernel_name="python3", allow_errors=False,
                             store_widget_state=False) as client:
            try:
                client.execute(env=env)
            except Exception as exc:  # keep what ran; the page and the exit status say what failed
                message = str(exc).strip()
                error = f"{type(exc).__name__}: {message.splitlines()[-1] if message else ''}"
        # the notebook's working folder is gone after this: an output that names it says "."
        book_pages.scrub_paths(nb, book_pages.local_prefixes((work, "."), (REPO, "<course>")))
    return nbformat.writes(nb), time.perf_counter() - start, error


def run_all(names: list[str], quick: bool, timeout: int, jobs: int, solutions: Path, progress: bool) -> dict:
    """Execute every notebook, ``jobs`` at a time; return {name: (nb, seconds, error)}."""
    import nbformat

    results = {}
    with cores_shared(jobs), ProcessPoolExecutor(max_workers=jobs) as pool:
        futures = {pool.submit(execute, name, quick, timeout, str(solutions)): name for name in names}
        for future in as_completed(futures):  # report each chapter as soon as it is done
            name = futures[future]
            text, seconds, error = future.result()
            results[name] = (nbformat.reads(text, as_version=4), seconds, error)
            if progress:
                log.info("  [%d/%d] %s: %.0f s%s", len(results), len(names), name, seconds,
                         f"  FAILED: {error}" if error else "")
    return results


def front_page(chapters: list[Chapter], machine: book_machine.Machine, date: str, quick: bool, jobs: int,
               seconds: float) -> str:
    """The book's first page (MyST): what it is, the chapters with what each holds, and how it was made."""
    lines = [f"# {book_site.BOOK_TITLE}", "",
             "The solution notebooks of the module, executed, with their reasoning, figures and corrections of "
             "common myths. Each chapter is one notebook; the exercises show the reference solution, and each "
             "self-check shows its result with its code folded (click to open it). Use the search box or the "
             "contents on the left; every chapter ends with the next one.", ""]
    if any(ch.standin for ch in chapters):
        lines += ["```{warning}", "Built without Fashion-MNIST: the chapters marked below loaded the offline "
                  "stand-in data set instead, and their training figures are not comparable with the real data.",
                  "```", ""]
    lines += ["## Chapters", ""]
    for ch in chapters:
        notes = [f"{ch.figures} figure{'s' if ch.figures != 1 else ''}", f"ran in {ch.seconds:.0f} s"]
        if ch.standin:
            notes.append("on the offline stand-in data")
        line = f"1. [{ch.title}]({ch.name}.ipynb) ({', '.join(notes)})"
        if ch.error:
            line += f" **did not run to the end: {ch.error}**"
        lines.append(line)
    together = ("one notebook at a time" if jobs == 1
                else f"{jobs} notebooks at once (their speed figures were taken under contention)")
    lines += ["", "```{admonition} How this book was made", ":class: note",
              f"Executed {date} in {'quick' if quick else 'full'} mode on {machine.named()}, torch {machine.torch}, "
              f"{together}: {seconds:.0f} s of execution. Each chapter names the machine it ran on at its top. "
              "Rebuild it with `python -m graders book` (docs/book.md).", "```", ""]
    return "\n".join(lines)


def build_book(out: Path = DEFAULT_OUT, names: list[str] | None = None, quick: bool = False,
               timeout: int = 600, jobs: int = 1, solutions: Path = SOLUTIONS,
               progress: bool = True) -> Book:
    """Execute every notebook (``jobs`` at a time: 1 unless asked, so that no page's timings are taken under
    contention) and build the book into ``out/_build``; return what was made."""
    started = time.perf_counter()
    names = names or notebook_names()
    out = Path(out)
    build = out / "_build"
    src = build / "source"
    shutil.rmtree(src, ignore_errors=True)
    from gpucourse.bootstrap import data_present, ensure_data

    if not data_present():  # once, here: notebooks running side by side must not write it at the same time
        ensure_data()
    machine = book_machine.describe()
    date = time.strftime("%Y-%m-%d %H:%M UTC", time.gmtime())
    if progress:
        log.info("book: running %d notebook(s) in %s mode, %d at a time, on %s", len(names),
                 "quick" if quick else "full", jobs, machine.named())
    results = run_all(names, quick, timeout, jobs, solutions, progress)
    executed = time.perf_counter() - started

    import nbformat

    chapters = []
    src.mkdir(parents=True)
    for name in names:
        nb, seconds, error = results[name]
        figures = book_pages.clean_outputs(nb)
        chapter = Chapter(name, nbtools.title(nb, name), seconds, error, figures, book_pages.used_standin(nb))
        book_pages.add_note(nb, book_machine.page_note(machine, date, quick, seconds, jobs))
        nbformat.write(nb, src / f"{name}.ipynb")
        chapters.append(chapter)
    book_site.write_source(src, names, front_page(chapters, machine, date, quick, jobs, executed),
                           author="the course's authors")
    if progress:
        log.info("book: building the site with Jupyter Book")
    sphinx_start = time.perf_counter()
    html = book_site.build_site(src, out, build / "jupyter-book.log")
    archive = book_site.archive(html, build / "book-html.zip")
    total = time.perf_counter() - started
    return Book(html, archive, chapters, total,
                {"execution": executed, "jupyter-book": time.perf_counter() - sphinx_start})
