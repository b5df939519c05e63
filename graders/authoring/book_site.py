"""The executed chapters as a Jupyter Book (1.x: Sphinx with sphinx-book-theme; docs/book.md says why): its source
folder (config, table of contents, front page, the local Colab badge), the site built from it, and the site as one
zip. Nothing here executes a notebook: the chapters arrive executed (``execute_notebooks: off``)."""

from __future__ import annotations

import json
import shutil
import subprocess
import sys
from pathlib import Path

from graders.errors import GraderError

BOOK_TITLE = "GPU training and mixed precision in PyTorch"
ROOT = "index"  # index.md: the site opens on the front page itself, no redirect page

# An "Open in Colab" badge drawn here: Colab's own is a remote image, and the book loads nothing from the network.
BADGE_SVG = """<svg xmlns="http://www.w3.org/2000/svg" width="117" height="20" role="img" aria-label="Open In Colab">
<title>Open In Colab</title>
<rect width="117" height="20" rx="3" fill="#555"/>
<rect x="22" width="95" height="20" rx="3" fill="#e8710a"/><rect x="22" width="6" height="20" fill="#e8710a"/>
<circle cx="8" cy="10" r="4.5" fill="none" stroke="#f9ab00" stroke-width="2.2"/>
<circle cx="15" cy="10" r="4.5" fill="none" stroke="#e8710a" stroke-width="2.2"/>
<text x="69" y="14" fill="#fff" font-family="Verdana,DejaVu Sans,sans-serif" font-size="11"
 text-anchor="middle">Open in Colab</text>
</svg>
"""


def config_yaml(author: str) -> str:
    """_config.yml. JSON is YAML, and json.dumps quotes every string safely."""
    config = {
        "title": BOOK_TITLE,
        "author": author,
        "copyright": "",
        "only_build_toc_files": True,
        "execute": {"execute_notebooks": "off"},  # executed already, one at a time (graders/authoring/book.py)
        "parse": {"myst_enable_extensions": ["colon_fence", "substitution"]},  # no dollarmath: no CDN MathJax
        "html": {"home_page_in_navbar": True, "use_repository_button": False, "use_issues_button": False,
                 "use_edit_page_button": False, "extra_footer": ""},
        "launch_buttons": {"thebe": False, "binderhub_url": "", "colab_url": ""},  # the badge on the page instead
        "sphinx": {
            "recursive_update": True,  # merge into what jupyter-book sets, not replace it
            "config": {
                "html_show_copyright": False,
                "html_show_sphinx": False,
                "html_last_updated_fmt": None,
                "nb_merge_streams": True,  # a cell's prints as one block, not one per flush
                "html_theme_options": {"show_toc_level": 2, "use_download_button": True,
                                       "show_navbar_depth": 1},
            },
        },
    }
    return json.dumps(config, indent=1) + "\n"


def toc_yaml(chapters: list[str]) -> str:
    """_toc.yml: the front page, then the chapters in the course's order (the sidebar's and previous/next's)."""
    return json.dumps({"format": "jb-book", "root": ROOT,
                       "chapters": [{"file": name} for name in chapters]}, indent=1) + "\n"


def write_source(src: Path, chapters: list[str], front_page: str, author: str) -> None:
    """The book's source folder; the executed chapters (``NAME.ipynb``) are written into it by the caller."""
    src.mkdir(parents=True, exist_ok=True)
    (src / "_config.yml").write_text(config_yaml(author), encoding="utf-8")
    (src / "_toc.yml").write_text(toc_yaml(chapters), encoding="utf-8")
    (src / f"{ROOT}.md").write_text(front_page, encoding="utf-8")
    (src / "colab-badge.svg").write_text(BADGE_SVG, encoding="utf-8")


class BookBuildError(GraderError):
    """Jupyter Book did not make the site (said as ``book: ...``, exit 1, by graders/__main__.py)."""

    exit_code = 1


def build_site(src: Path, out: Path, log: Path) -> Path:
    """Run Jupyter Book on ``src``; return the site's folder (``out/_build/html``). Sphinx's log goes to ``log``;
    its last lines are the error when the build fails."""
    shutil.rmtree(out / "_build" / "html", ignore_errors=True)
    shutil.rmtree(out / "_build" / ".doctrees", ignore_errors=True)
    # jupyter-book's own command, run by this interpreter (its venv), without relying on PATH
    cmd = [sys.executable, "-c", "import sys; from jupyter_book.cli.main import main; sys.exit(main())",
           "build", str(src), "--path-output", str(out), "--all"]
    with open(log, "w", encoding="utf-8") as handle:
        done = subprocess.run(cmd, stdout=handle, stderr=subprocess.STDOUT, text=True)
    html = out / "_build" / "html"
    if done.returncode != 0 or not (html / "index.html").exists():
        tail = "\n".join(log.read_text(encoding="utf-8", errors="replace").splitlines()[-15:])
        raise BookBuildError(f"jupyter-book build failed (exit {done.returncode}); the end of {log}:\n{tail}")
    return html


def archive(html: Path, zip_path: Path) -> Path:
    """The site as one zip (what CI keeps and a reader unpacks): its files under ``html/``."""
    zip_path.unlink(missing_ok=True)
    made = shutil.make_archive(str(zip_path.with_suffix("")), "zip", root_dir=html.parent, base_dir=html.name)
    return Path(made)
