"""A solution notebook as the book's reader sees it: what is left out, what is folded, and what an output may not
show. Before execution (``reader_copy``: so that the hidden tests never run) and after it (``clean_outputs``,
``scrub_paths``, ``add_note``); the book's assembly is graders/authoring/book.py."""

from __future__ import annotations

import os
import pwd
import re
import tempfile
from pathlib import Path

import nbformat

from graders import nbtools

MARKER_LINE = re.compile(r"^[ \t]*### (BEGIN|END) SOLUTION[^\n]*\n?", re.M)
WIDGET_VIEW = "application/vnd.jupyter.widget-view+json"
BADGE = re.compile(r"\[!\[Open In Colab\]\([^)]*\)\]\((?P<url>[^)]+)\)")
#: The badge drawn locally (graders/authoring/book_site.py writes it beside the chapters): the book loads nothing
#: from the network, and Colab's own badge is a remote image.
BADGE_IMAGE = "colab-badge.svg"
#: MyST-NB's cell tags: the set-up cell shows its report without its install code; a check cell shows its
#: [PASS] line with its code folded, one click away.
REMOVE_INPUT, HIDE_INPUT = "remove-input", "hide-input"
NOTE_ID = "book-ran-on"

#: The line gpucourse.data prints whenever a notebook loads the offline stand-in instead of Fashion-MNIST.
#: Only outputs are searched: the notebooks' code mentions the stand-in too.
STANDIN_ANNOUNCEMENT = "using the OFFLINE STAND-IN"


def used_standin(nb) -> bool:
    """True when a cell of the executed notebook printed the data loader's stand-in announcement."""
    return any(output.get("output_type") == "stream" and STANDIN_ANNOUNCEMENT in "".join(output.get("text", ""))
               for cell in nb.cells if cell.cell_type == "code" for output in cell.get("outputs", []))


def is_check(cell) -> bool:
    """An nbgrader test cell: in the book, the visible self-check that prints [PASS]."""
    return bool(cell.get("metadata", {}).get("nbgrader", {}).get("grade"))


def _tag(cell, tag: str) -> None:
    tags = cell.metadata.setdefault("tags", [])
    if tag not in tags:
        tags.append(tag)


def reader_copy(nb):
    """The notebook as a reader should see it: no solution markers, no hidden tests, no hand-in check (a
    student's last cells: graders/authoring/handin.py), the set-up cell's output without its install code, the
    check cells folded, and the Colab badge drawn from the book's own image."""
    nb.cells = [c for c in nb.cells if c.get("id") not in ("handin-intro", "handin")]
    for cell in nb.cells:
        if cell.cell_type == "code":
            cell.source = MARKER_LINE.sub("", nbtools.strip_hidden(cell.source)).rstrip("\n")
            if cell.get("id") == "setup":
                _tag(cell, REMOVE_INPUT)
            elif is_check(cell):
                _tag(cell, HIDE_INPUT)
        elif cell.cell_type == "markdown":
            cell.source = BADGE.sub(lambda m: f"[![Open In Colab]({BADGE_IMAGE})]({m['url']})", cell.source)
    return nb


def clean_outputs(nb) -> int:
    """Drop widget views (progress bars have no static form) and the widgets' state (MyST-NB would load the
    widget manager from a CDN for it); return the number of figures."""
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


def local_prefixes(*extra: tuple[str | Path, str]) -> list[tuple[str, str]]:
    """Local folders an output may name, each with what the book shows instead, longest first (a folder inside
    another is replaced as a whole): the given ones, the system's temporary folder, and the home folder both as
    HOME says and as the account says (a build or test may set HOME elsewhere)."""
    pairs = [(str(path), shown) for path, shown in extra]
    pairs.append((tempfile.gettempdir(), "$TMPDIR"))
    homes = {os.path.expanduser("~")}
    try:
        homes.add(pwd.getpwuid(os.getuid()).pw_dir)
    except KeyError:
        pass
    pairs += [(home, "~") for home in homes]
    real = [(os.path.realpath(p), s) for p, s in pairs]
    unique = {p.rstrip("/"): s for p, s in pairs + real if p.rstrip("/") not in ("", "/")}
    return sorted(unique.items(), key=lambda item: len(item[0]), reverse=True)


def _scrub(text: str, prefixes: list[tuple[str, str]]) -> str:
    for path, shown in prefixes:
        # a whole path component only: /root is not the start of /rooted
        text = re.sub(re.escape(path) + r"(?=/|\b|$)", lambda _m, s=shown: s, text)
    return text


def scrub_paths(nb, prefixes: list[tuple[str, str]]) -> int:
    """Replace every local folder in the outputs (streams, text and HTML results, errors) with its shown form;
    return how many output fields changed."""
    changed = 0
    for cell in nb.cells:
        for output in cell.get("outputs", []) if cell.cell_type == "code" else []:
            fields = [(output, key) for key in ("text", "evalue") if key in output]
            fields += [(output["data"], mime) for mime in ("text/plain", "text/html", "text/markdown")
                       if mime in output.get("data", {})]
            fields += [(output["traceback"], i) for i in range(len(output.get("traceback", [])))]
            for holder, key in fields:
                value = holder[key]
                text = "".join(value) if isinstance(value, list) else value
                new = _scrub(text, prefixes)
                if new != text:
                    holder[key] = new
                    changed += 1
    return changed


def add_note(nb, markdown: str) -> None:
    """Put ``markdown`` right after the title cell (the first cell with a ``# `` heading), as its own cell."""
    at = next((i + 1 for i, cell in enumerate(nb.cells)
               if cell.cell_type == "markdown" and any(line.startswith("# ") for line in cell.source.splitlines())),
              0)
    cell = nbformat.v4.new_markdown_cell(markdown)
    cell["id"] = NOTE_ID
    nb.cells.insert(at, cell)
