"""The reader's book: built (quick mode) from the solutions into a temporary folder, every chapter
present with its figures embedded, nothing fetched from the network; and a chapter really drawn
by a headless Chromium, whose screenshot must not be blank."""

from __future__ import annotations

import os
import re
import shutil
import subprocess
import tempfile

import pytest

from graders.authoring.book import title_html
from graders.paths import notebook_names

CHROMIUM_CANDIDATES = ("/usr/bin/chromium", "/usr/bin/chromium-browser", "/usr/bin/google-chrome")


DATA_IMG = re.compile(r'<img[^>]+src="data:image/(png|svg\+xml);base64,')


REMOTE = re.compile(r'<(script|link|img|iframe)[^>]+(src|href)="(https?:)?//', re.I)


@pytest.fixture(scope="module")
def book(tmp_path_factory):
    from graders.authoring.book import build_book

    out = tmp_path_factory.mktemp("book")
    os.environ.setdefault("COURSE_DATA", str(tmp_path_factory.mktemp("data")))
    index, chapters = build_book(out, quick=True, timeout=300, progress=False)
    return out, index, chapters


def test_every_chapter_is_there_with_its_figures(book):
    out, index, chapters = book
    names = notebook_names()
    assert [ch.name for ch in chapters] == names
    contents = index.read_text(encoding="utf-8")
    for ch in chapters:
        assert not ch.error, f"{ch.name} did not run to the end: {ch.error}"
        page = (out / f"{ch.name}.html").read_text(encoding="utf-8")
        assert f'href="{ch.name}.html"' in contents and title_html(ch.title) in contents
        images = len(DATA_IMG.findall(page))
        assert images == ch.figures and images >= 1, f"{ch.name}: {images} embedded figures"
        assert "BEGIN HIDDEN TESTS" not in page and "BEGIN SOLUTION" not in page
        assert not REMOTE.findall(page), f"{ch.name}: loads something from the network: {REMOTE.findall(page)[:3]}"
        assert 'href="index.html"' in page, "every chapter links back to the contents"
    assert not REMOTE.findall(contents)
    from gpucourse.data import default_root, is_standin

    flagged = [ch.name for ch in chapters if ch.standin]
    if is_standin(default_root()):
        assert flagged, "the book ran on the stand-in: the chapters that loaded it say so"
    else:
        assert flagged == [] and "stand-in data" not in contents, f"real data, yet flagged: {flagged}"


def chromium() -> str | None:
    for path in CHROMIUM_CANDIDATES:
        if os.access(path, os.X_OK):
            return path
    return shutil.which("chromium")


def test_a_chapter_renders_in_headless_chromium(book, tmp_path):
    browser = chromium()
    if browser is None:
        pytest.skip("Chromium is not installed (Debian: apt-get install -y chromium); .ci/run installs it")
    from PIL import Image

    out, _, chapters = book
    chapter = out / f"{chapters[0].name}.html"
    shot = tmp_path / "chapter.png"
    profile = tempfile.mkdtemp(prefix="chromium-profile-", dir=tmp_path)
    cmd = [browser, "--headless", "--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run",
           "--disable-background-networking", "--disable-component-update", "--disable-sync",
           f"--user-data-dir={profile}", f"--screenshot={shot}", "--window-size=1280,2400",
           "--hide-scrollbars", chapter.as_uri()]
    proc = subprocess.run(cmd, capture_output=True, text=True, timeout=120)
    assert proc.returncode == 0 and shot.exists(), proc.stderr[-2000:]
    image = Image.open(shot).convert("RGB")
    assert image.size == (1280, 2400)
    colours = image.getcolors(maxcolors=1 << 20)
    assert colours is not None
    most = max(count for count, _ in colours)
    total = image.size[0] * image.size[1]
    assert len(colours) >= 50, f"only {len(colours)} colours: the page looks blank"
    assert most / total < 0.95, "one colour covers almost the whole screenshot: the page looks blank"
    dark = sum(count for count, rgb in colours if sum(rgb) < 200)
    assert dark / total > 0.005, "no dark pixels: no text was drawn"
