"""The reader's book, built once for this file (quick mode, into a temporary folder) with Jupyter Book, then read
as a reader reads it: every chapter with its figures, title, machine note and folded checks; no local path; the
site as one zip; and in a real browser (headless Chromium): search, the sidebar, every link, screenshots.

``BOOK_ARTIFACT_DIR=DIR`` copies the built site's zip there (.ci/run keeps it as artifacts/book-html.zip);
``BOOK_SCREENSHOTS_DIR=docs/img`` writes the screenshots docs/book.md shows."""

from __future__ import annotations

import html as htmllib
import os
import re
import shutil
import zipfile
from pathlib import Path
from urllib.parse import unquote, urljoin, urlsplit

import pytest

from graders import nbtools
from graders.authoring import book_machine, book_pages
from graders.paths import REPO, SOLUTIONS, notebook_names
from tests.helpers import browser, html_links

#: two notebooks at once, as this test always ran them: CI's time (the pages then say their speed figures were
#: taken under contention; `python -m graders book` runs one at a time)
JOBS = 2
SEARCH_TERM = "underflow"  # chapter 05's subject (06 mentions it too)
REMOTE = re.compile(r'<(script|link|img|iframe)[^>]+(src|href)="(https?:)?//', re.I)
IMG = re.compile(r'<img[^>]+src="(_images/[^"]+)"')
BADGE = "colab-badge"  # the book's own Colab badge: an image, not a figure


@pytest.fixture(scope="module")
def book(tmp_path_factory):
    from graders.authoring.book import build_book

    os.environ.setdefault("COURSE_DATA", str(tmp_path_factory.mktemp("data")))
    built = build_book(tmp_path_factory.mktemp("book"), quick=True, timeout=300, jobs=JOBS, progress=False)
    keep = os.environ.get("BOOK_ARTIFACT_DIR")
    if keep:  # CI keeps the site it built (.ci/run)
        Path(keep).mkdir(parents=True, exist_ok=True)
        shutil.copy2(built.archive, Path(keep) / built.archive.name)
    return built


def page(book, name: str) -> str:
    return (book.html / f"{name}.html").read_text(encoding="utf-8")


def plain(title: str) -> str:
    """A notebook title as the page shows it as text: markdown's code spans without their backticks."""
    return title.replace("`", "")


def test_every_chapter_is_there_with_its_figures(book):
    names = notebook_names()
    assert [ch.name for ch in book.chapters] == names
    front = book.index.read_text(encoding="utf-8")
    for ch in book.chapters:
        assert not ch.error, f"{ch.name} did not run to the end: {ch.error}"
        text = page(book, ch.name)
        images = [src for src in IMG.findall(text) if BADGE not in src]
        assert len(images) == ch.figures and images, f"{ch.name}: {len(images)} figures, {ch.figures} made"
        assert all((book.html / src).is_file() for src in images)
        assert "BEGIN HIDDEN TESTS" not in text and "BEGIN SOLUTION" not in text
        assert not REMOTE.findall(text), f"{ch.name} loads something from the network: {REMOTE.findall(text)[:3]}"
        assert f'href="{ch.name}.html"' in front, "the front page lists every chapter"
    assert not REMOTE.findall(front)
    from gpucourse.data import default_root, is_standin

    flagged = [ch.name for ch in book.chapters if ch.standin]
    if is_standin(default_root()):
        assert flagged and "stand-in data" in front, "the book ran on the stand-in: the chapters say so"
    else:
        assert flagged == [] and "stand-in data" not in front, f"real data, yet flagged: {flagged}"


def test_page_titles_are_the_notebooks_titles(book):
    for ch in book.chapters:
        title = re.search(r"<title>(.*?)</title>", page(book, ch.name), re.S)[1]
        assert htmllib.unescape(title).startswith(plain(ch.title)), title


def test_each_page_names_the_machine_it_ran_on(book):
    machine = book_machine.describe()
    for ch in book.chapters:
        text = htmllib.unescape(re.sub(r"<[^>]+>", "", page(book, ch.name)))
        assert "Where this page ran" in text
        assert machine.named() in text and f"torch {machine.torch}" in text, f"{ch.name}: machine not named"
        assert f"{JOBS} notebooks ran at once" in text, f"{ch.name}: the contention is not said"


def test_check_cells_are_folded_to_their_pass_line(book):
    """Each visible check: its code inside a closed <details>, its [PASS] line shown; the set-up's install code
    is not on the page at all."""
    for ch in book.chapters:
        checks = [c for c in nbtools.read(SOLUTIONS / f"{ch.name}.ipynb").cells
                  if book_pages.is_check(c)]
        text = page(book, ch.name)
        cells = re.split(r'<div class="cell ', text)[1:]
        folded = [c for c in cells if c.startswith("tag_hide-input")]
        assert len(folded) == len(checks) and checks, f"{ch.name}: {len(folded)} folded of {len(checks)} checks"
        for cell in folded:
            assert re.search(r"<details[^>]*>\s*<summary", cell), f"{ch.name}: a check's code is not folded"
            assert "[PASS]" in cell, f"{ch.name}: a check without its [PASS] line"
        assert "GPUCOURSE_SOURCE" not in text, "the set-up cell's install code is shown"


def test_every_next_leads_to_the_following_chapter(book):
    """A reader can follow the chapters' own "Next:" lines, and the theme's next button, from 01 to the end."""
    names = notebook_names()
    for here, following in zip(names, names[1:], strict=False):
        text = page(book, here)
        written = re.search(r"Next:\s*(?:</strong>\s*)?<a[^>]*href=\"([^\"]+)\"", text)
        assert written and written[1] == f"{following}.html", f"{here}: its Next line goes to {written and written[1]}"
        button = re.search(r'<a class="right-next"\s+href="([^"]+)"', text)
        assert button and button[1] == f"{following}.html", f"{here}: the next button goes elsewhere"
    assert '<a class="right-next"' not in page(book, names[-1])


def test_no_local_path_in_any_page(book):
    local = [path for path, _ in book_pages.local_prefixes((REPO, ""))]
    for file in sorted(book.html.glob("*.html")) + sorted((book.html / "_sources").glob("*.ipynb")):
        text = file.read_text(encoding="utf-8")
        found = [path for path in local if re.search(re.escape(path) + r"(?=/|\b)", text)]
        assert not found, f"{file.name} shows a local path: {found}"


def test_the_site_is_one_zip(book):
    with zipfile.ZipFile(book.archive) as archive:
        names = set(archive.namelist())
    expected = {f"html/{name}.html" for name in notebook_names()} | {"html/index.html", "html/search.html",
                                                                     "html/searchindex.js"}
    assert expected <= names, sorted(expected - names)
    assert all(n.startswith("html/") for n in names)


# ---- in a real browser ------------------------------------------------------------------------------------------


@pytest.fixture(scope="module")
def chromium():
    found = browser.chromium()
    if found is None:
        pytest.skip("Chromium is not installed (Debian: apt-get install -y chromium); .ci/run installs it")
    return found


def test_search_finds_a_chapter_05_term_and_opens_it(book, chromium, tmp_path):
    """Sphinx's search page, run by the browser from file:// (no server): its results list, then the chapter."""
    search = (book.html / "search.html").as_uri() + f"?q={SEARCH_TERM}"
    found = re.search(r'<ul class="search">(.*?)</ul>', browser.dom(chromium, search, tmp_path), re.S)
    assert found, f"searching {SEARCH_TERM!r} listed no results"
    results = [href for tag, href in html_links.links(found[1]) if tag == "a"]
    chapter = next((href for href in results if href.split("?")[0] == "05_gradscaler.html"), None)
    assert chapter, f"searching {SEARCH_TERM!r} did not find chapter 05: {results}"
    opened = browser.dom(chromium, urljoin(search, chapter), tmp_path)
    title = re.search(r"<title>(.*?)</title>", opened, re.S)[1]
    assert htmllib.unescape(title).startswith(plain(book.chapters[4].title)), title
    assert SEARCH_TERM in opened


def test_the_sidebar_lists_the_eight_chapters_in_order(book, chromium, tmp_path):
    for name in ("index", notebook_names()[-1]):
        listed = html_links.sidebar(browser.dom(chromium, (book.html / f"{name}.html").as_uri(), tmp_path))
        # the page's own entry links to itself as "#"
        chapters = [href.split("#")[0] or f"{name}.html" for href in listed]
        chapters = [href for href in chapters if href != "index.html"]
        assert chapters == [f"{n}.html" for n in notebook_names()], f"{name}: {chapters}"


def authors_links() -> set[str]:
    """The external addresses the notebooks' authors wrote (the Colab badge, the docs they cite): the only ones
    the book may link to."""
    found = set()
    for name in notebook_names():
        for cell in nbtools.read(SOLUTIONS / f"{name}.ipynb").cells:
            if cell.cell_type == "markdown":
                found |= set(re.findall(r"\]\((https?://[^)\s]+)\)", cell.source))
    return found


def test_every_link_on_every_page_resolves_inside_the_book(book, chromium, tmp_path):
    """Each page as the browser has it after its scripts ran: every link and every file it loads is a file of the
    site (and a #fragment an anchor of its page), or an external address the notebooks' authors wrote."""
    allowed = authors_links()
    root = book.html.resolve()
    problems, external = [], set()
    for file in sorted(book.html.glob("*.html")):
        url = file.as_uri()
        for tag, href in html_links.links(browser.dom(chromium, url, tmp_path)):
            target = urlsplit(urljoin(url, href))
            if target.scheme in ("data", "javascript", "mailto") or href in ("", "#"):
                continue
            if target.scheme in ("http", "https"):
                external.add(href)
                if href not in allowed:
                    problems.append(f"{file.name}: <{tag}> to {href}, not a link the notebooks wrote")
                continue
            path = Path(unquote(target.path)).resolve()
            if not path.is_relative_to(root) or not path.is_file():
                problems.append(f"{file.name}: <{tag}> to {href}, no such file in the book")
            elif target.fragment and path.suffix == ".html" and \
                    target.fragment not in html_links.ids(path.read_text(encoding="utf-8")):
                problems.append(f"{file.name}: <{tag}> to {href}, no such anchor")
            elif path.suffix == ".ipynb" and path.parent == root:
                problems.append(f"{file.name}: <{tag}> to {href}, a notebook, not its chapter")
    assert not problems, "\n".join(problems[:20])
    assert any("colab.research.google.com" in href for href in external), "no Colab badge links out"


def test_screenshots_of_the_front_page_a_search_and_a_chapter(book, chromium, tmp_path):
    from PIL import Image

    shots = {"book-index.png": (book.index.as_uri(), (1280, 1000)),
             "book-search.png": ((book.html / "search.html").as_uri() + f"?q={SEARCH_TERM}", (1280, 700)),
             "book-chapter.png": ((book.html / "05_gradscaler.html").as_uri(), (1280, 1400))}
    keep = os.environ.get("BOOK_SCREENSHOTS_DIR")
    for name, (url, size) in shots.items():
        shot = browser.screenshot(chromium, url, tmp_path / name, size)
        image = Image.open(shot).convert("RGB")
        colours = image.getcolors(maxcolors=1 << 20)
        total = size[0] * size[1]
        assert image.size == size and colours is not None and len(colours) >= 50, f"{name} looks blank"
        assert max(count for count, _ in colours) / total < 0.95, f"{name}: one colour covers almost all of it"
        assert sum(count for count, rgb in colours if sum(rgb) < 200) / total > 0.002, f"{name}: no text drawn"
        if keep:
            Path(keep).mkdir(parents=True, exist_ok=True)
            shutil.copy2(shot, Path(keep) / name)
