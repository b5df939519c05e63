"""The reader's book: the solution notebooks, executed, as static HTML pages with a contents page.

``python -m graders book [--out DIR] [--quick]`` runs every ``solutions/*.ipynb`` top to bottom
(full mode unless ``--quick``), and writes one page per notebook plus ``index.html``. Pages are
self-contained and work offline: figures are embedded as ``data:`` images, and no script or style
is loaded from the network (math stays as written). For a reader, the solution markers and the
hidden tests are left out; the visible self-checks stay, with their output.
"""

from __future__ import annotations

import html
import json
import logging
import os
import re
import shutil
import tempfile
import time
from concurrent.futures import ProcessPoolExecutor, as_completed
from dataclasses import dataclass
from pathlib import Path

from graders import nbtools
from graders.grading.cores import cores_shared
from graders.paths import REPO, SOLUTIONS, notebook_names

log = logging.getLogger(__name__)

DEFAULT_OUT = REPO / "book" / "_build"
MARKER_LINE = re.compile(r"^[ \t]*### (BEGIN|END) SOLUTION[^\n]*\n?", re.M)
WIDGET_VIEW = "application/vnd.jupyter.widget-view+json"

# lab's page, minus everything it would load from the network (require.js, MathJax, widgets' CDN).
TEMPLATE = r"""{%- extends 'lab/index.html.j2' -%}
{%- block html_head_js_requirejs -%}{%- endblock html_head_js_requirejs -%}
{%- block html_head_js_mathjax -%}{%- endblock html_head_js_mathjax -%}
{%- block jupyter_widgets -%}{%- endblock jupyter_widgets -%}
"""

STYLE = """
nav.book { font: 14px/1.4 system-ui, sans-serif; padding: 8px 16px; background: #f4f6fa;
           border-bottom: 1px solid #d0d7e2; display: flex; gap: 24px; }
nav.book a { color: #1f5fbf; text-decoration: none; }
"""

INDEX = """<!DOCTYPE html>
<html lang="en"><head><meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>{title}</title>
<style>
body {{ font: 16px/1.5 system-ui, sans-serif; max-width: 860px; margin: 40px auto; padding: 0 20px; color: #1d2330; }}
h1 {{ color: #16325c; }} li {{ margin: 0.6em 0; }} a {{ color: #1f5fbf; }}
.meta {{ color: #5a6477; font-size: 14px; }}
.warn {{ background: #fff4e0; padding: 8px 12px; border-left: 4px solid #e6a23c; }}
</style></head>
<body>
<h1>{title}</h1>
<p>The solution notebooks of the module, executed, with their reasoning, figures and corrections of common
myths. Each chapter is one notebook; the exercises show the reference solution and the visible self-checks.</p>
{warnings}
<h2>Contents</h2>
<ol>
{items}
</ol>
<p class="meta">Built {date} in {mode} mode on {device} with torch {torch}; {seconds:.0f} s.
Rebuild with <code>python -m graders book</code>.</p>
</body></html>
"""


@dataclass
class Chapter:
    name: str
    title: str
    seconds: float
    error: str = ""
    figures: int = 0
    standin: bool = False


#: The line gpucourse.data prints whenever a notebook loads the offline stand-in instead of Fashion-MNIST.
#: Only outputs are searched: the notebooks' code mentions the stand-in too.
STANDIN_ANNOUNCEMENT = "using the OFFLINE STAND-IN"


def used_standin(nb) -> bool:
    """True when a cell of the executed notebook printed the data loader's stand-in announcement."""
    return any(output.get("output_type") == "stream" and STANDIN_ANNOUNCEMENT in "".join(output.get("text", ""))
               for cell in nb.cells if cell.cell_type == "code" for output in cell.get("outputs", []))


BADGE = re.compile(r"\[!\[Open In Colab\]\([^)]*\)\]\((?P<url>[^)]+)\)")
HIDE_INPUT = "book-hide-input"


def reader_copy(nb):
    """The notebook as a reader should see it: no solution markers, no hidden tests, the set-up
    cell's output without its install code, the Colab badge as a plain link (no remote image), and no
    hand-in check (a student's last cells: graders/authoring/handin.py)."""
    nb.cells = [c for c in nb.cells if c.get("id") not in ("handin-intro", "handin")]
    for cell in nb.cells:
        if cell.cell_type == "code":
            cell.source = MARKER_LINE.sub("", nbtools.strip_hidden(cell.source)).rstrip("\n")
            if cell.get("id") == "setup":
                cell.metadata.setdefault("tags", []).append(HIDE_INPUT)
        elif cell.cell_type == "markdown":
            cell.source = BADGE.sub(lambda m: f"[Open this notebook in Colab]({m['url']})", cell.source)
    return nb


def clean_outputs(nb) -> int:
    """Drop widget views (progress bars have no static form); return the number of figures."""
    figures = 0
    for cell in nb.cells:
        if cell.cell_type != "code":
            continue
        kept = []
        for output in cell.get("outputs", []):
            data = output.get("data", {})
            if WIDGET_VIEW in data:
                continue
            figures += int("image/png" in data or "image/svg+xml" in data)
            kept.append(output)
        cell.outputs = kept
    nb.metadata.pop("widgets", None)
    return figures


def execute(name: str, quick: bool, timeout: int, solutions: str) -> tuple:
    """Run one notebook in a fresh kernel (in a worker process); return (nb, seconds, error)."""
    import nbformat

    from graders.kernel_client import notebook_client

    # the kernel's environment: the inline backend makes the figures (no MPLBACKEND), not graded (no NBGRADER_*)
    env = {k: v for k, v in os.environ.items() if k not in ("MPLBACKEND", "NBGRADER_EXECUTION")}
    env["COURSE_QUICK"] = "1" if quick else "0"
    nb = reader_copy(nbtools.read(Path(solutions) / f"{name}.ipynb"))
    start = time.perf_counter()
    error = ""
    with (tempfile.TemporaryDirectory(prefix=f"book-{name}-") as work,
          notebook_client(nb, work, timeout=timeout, kernel_name="python3", allow_errors=False,
                          store_widget_state=False) as client):
        try:
            client.execute(env=env)
        except Exception as exc:  # keep what ran; the page and the exit status say what failed
            error = f"{type(exc).__name__}: {str(exc).strip().splitlines()[-1] if str(exc).strip() else ''}"
    return nbformat.writes(nb), time.perf_counter() - start, error


def render(nb, nav: str) -> str:
    from jinja2 import DictLoader
    from nbconvert import HTMLExporter
    from nbconvert.preprocessors import TagRemovePreprocessor
    from traitlets.config import Config

    config = Config()
    config.TagRemovePreprocessor.remove_input_tags = {HIDE_INPUT}
    config.TagRemovePreprocessor.enabled = True
    exporter = HTMLExporter(config=config, template_name="lab", template_file="book.html.j2",
                            extra_loaders=[DictLoader({"book.html.j2": TEMPLATE})], embed_images=True)
    exporter.register_preprocessor(TagRemovePreprocessor(config=config), enabled=True)
    body, _ = exporter.from_notebook_node(nb)
    body = body.replace("</head>", f"<style>{STYLE}</style>\n</head>", 1)
    return body.replace("<main>", f"<main>\n{nav}", 1)


def title_html(title: str) -> str:
    """A title as HTML: escaped, with markdown's `code` spans kept as code."""
    return re.sub(r"`([^`]+)`", r"<code>\1</code>", html.escape(title))


def nav_bar(names: list[str], index: int, titles: dict[str, str]) -> str:
    links = ['<a href="index.html">Contents</a>']
    if index > 0:
        prev = names[index - 1]
        links.append(f'<a href="{prev}.html">&larr; {title_html(titles[prev])}</a>')
    if index + 1 < len(names):
        nxt = names[index + 1]
        links.append(f'<a href="{nxt}.html">{title_html(titles[nxt])} &rarr;</a>')
    return '<nav class="book">' + "".join(links) + "</nav>"


def build_book(out: Path = DEFAULT_OUT, names: list[str] | None = None, quick: bool = False,
               timeout: int = 600, jobs: int | None = None, solutions: Path = SOLUTIONS,
               progress: bool = True) -> tuple[Path, list[Chapter]]:
    """Execute and render every notebook into ``out``; return the contents page and the chapters."""
    import nbformat
    import torch

    started = time.perf_counter()
    names = names or notebook_names()
    out = Path(out)
    timings = out / "timings.json"
    try:  # longest first, so that the longest notebook does not start last (from the previous build)
        previous = json.loads(timings.read_text())
    except (OSError, ValueError):
        previous = {}  # a first build: later notebooks train longer, start from the end
    order = sorted(names, key=lambda n: (previous.get(n, 0.0), n), reverse=True)
    if out.exists():
        shutil.rmtree(out)
    out.mkdir(parents=True)
    jobs = jobs or max(1, min(len(names), (os.cpu_count() or 1), 4))
    from gpucourse.bootstrap import data_present, ensure_data

    if not data_present():  # once, here: notebooks running side by side must not write it at the same time
        ensure_data()
    if progress:
        log.info("book: running %d notebook(s) in %s mode, %d at a time", len(names), "quick" if quick else "full",
                 jobs)
    with cores_shared(jobs), ProcessPoolExecutor(max_workers=jobs) as pool:
        futures = {pool.submit(execute, name, quick, timeout, str(solutions)): name for name in order}
        results = {}
        for future in as_completed(futures):  # report each chapter as soon as it is done
            name = futures[future]
            text, seconds, error = future.result()
            results[name] = (nbformat.reads(text, as_version=4), seconds, error)
            if progress:
                log.info("  [%d/%d] %s: %.0f s%s", len(results), len(names), name, seconds,
                         f"  FAILED: {error}" if error else "")

    titles = {name: nbtools.title(results[name][0], name) for name in names}
    chapters = []
    for index, name in enumerate(names):
        nb, seconds, error = results[name]
        figures = clean_outputs(nb)
        page = render(nb, nav_bar(names, index, titles))
        (out / f"{name}.html").write_text(page, encoding="utf-8")
        chapters.append(Chapter(name, titles[name], seconds, error, figures, used_standin(nb)))

    items = []
    for ch in chapters:
        figures = f"{ch.figures} figure{'s' if ch.figures != 1 else ''}"
        note = f" <span class='meta'>({figures}, ran in {ch.seconds:.0f} s)</span>"
        if ch.standin:
            note += " <span class='meta'>(on the offline stand-in data)</span>"
        if ch.error:
            note += f" <strong>did not run to the end: {html.escape(ch.error)}</strong>"
        items.append(f'<li><a href="{ch.name}.html">{title_html(ch.title)}</a>{note}</li>')
    warnings = ""
    if any(ch.standin for ch in chapters):
        warnings = ("<p class='warn'>Built without Fashion-MNIST: the chapters marked below loaded the offline "
                    "stand-in data set instead, and their training figures are not comparable with the real data.</p>")
    device = torch.cuda.get_device_name(0) if torch.cuda.is_available() else "CPU"
    index_page = INDEX.format(title="GPU training and mixed precision in PyTorch: the book",
                              warnings=warnings, items="\n".join(items), mode="quick" if quick else "full",
                              date=time.strftime("%Y-%m-%d %H:%M UTC", time.gmtime()), device=html.escape(device),
                              torch=torch.__version__, seconds=time.perf_counter() - started)
    timings.write_text(json.dumps({ch.name: round(ch.seconds, 1) for ch in chapters}, indent=1) + "\n")
    index_path = out / "index.html"
    index_path.write_text(index_page, encoding="utf-8")
    return index_path, chapters
