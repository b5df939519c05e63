"""The reader's book, without building it: the stand-in data banner comes from what the loader printed, and the
loader still prints the announcement the book looks for; what a page leaves out, folds and may not show (local
paths); the machine note; the book's table of contents. The built book: tests/e2e/authoring/test_book_e2e.py."""

from __future__ import annotations

import json
import os
from pathlib import Path

import nbformat

from graders import nbtools
from graders.authoring import book_machine, book_site
from graders.authoring.book_pages import (
    BADGE_IMAGE,
    HIDE_INPUT,
    NOTE_ID,
    REMOVE_INPUT,
    STANDIN_ANNOUNCEMENT,
    add_note,
    is_check,
    local_prefixes,
    reader_copy,
    scrub_paths,
    used_standin,
)
from graders.paths import SOLUTIONS


def test_standin_banner_comes_from_the_loaders_output_not_the_code():
    code = nbformat.v4.new_code_cell('if STANDIN:\n    print("NOTE: trained on the OFFLINE STAND-IN")')
    code.outputs = [nbformat.v4.new_output("stream", name="stdout", text="test accuracy 89.6 %\n")]
    nb = nbformat.v4.new_notebook(cells=[nbformat.v4.new_markdown_cell("the OFFLINE STAND-IN"), code])
    assert not used_standin(nb), "code and prose that mention the stand-in are not a use of it"
    code.outputs.append(nbformat.v4.new_output("stream", name="stdout",
                                               text=f"NOTE: {STANDIN_ANNOUNCEMENT}, not Fashion-MNIST\n"))
    assert used_standin(nb)


def test_the_loader_still_prints_the_announcement_the_book_looks_for(tmp_path, capsys, monkeypatch):
    from gpucourse import data

    monkeypatch.setenv(data.SYSTEM_DIR_ENV, str(tmp_path / "no-system-package"))  # the stand-in stays
    data.write_standin(tmp_path)
    data.fashion_mnist(train=False, root=tmp_path, download=False)
    assert STANDIN_ANNOUNCEMENT in capsys.readouterr().out




def test_a_readers_page_folds_the_checks_drops_the_install_code_and_draws_the_badge_locally():
    nb = reader_copy(nbtools.read(SOLUTIONS / "05_gradscaler.ipynb"))
    checks = [c for c in nb.cells if is_check(c)]
    assert checks and all(HIDE_INPUT in c.metadata["tags"] for c in checks)
    assert all("BEGIN HIDDEN TESTS" not in c.source for c in checks)
    setup = next(c for c in nb.cells if c.get("id") == "setup")
    assert REMOVE_INPUT in setup.metadata["tags"]
    others = [c for c in nb.cells if c.cell_type == "code" and not is_check(c) and c is not setup]
    assert others and not any(c.metadata.get("tags") for c in others), "only checks and the set-up are tagged"
    title = nb.cells[0].source
    assert f"[![Open In Colab]({BADGE_IMAGE})](https://colab.research.google.com/" in title
    assert "colab-badge.svg)" in title and "https://colab.research.google.com/assets" not in title


def test_local_folders_in_outputs_become_their_shown_form():
    home = os.path.expanduser("~")
    cell = nbformat.v4.new_code_cell("ensure_data()")
    cell.outputs = [
        nbformat.v4.new_output("stream", name="stdout", text=f"Data: Fashion-MNIST is cached in {home}/.cache/x\n"),
        nbformat.v4.new_output("execute_result", data={"text/plain": "'/work/course/solutions/a.ipynb'"}),
        nbformat.v4.new_output("error", ename="OSError", evalue="no /work/course/x",
                               traceback=[f"File {home}/y.py, line 1", "plain line"]),
        nbformat.v4.new_output("stream", name="stdout", text="/work/coursework stays: another folder\n"),
    ]
    nb = nbformat.v4.new_notebook(cells=[cell])
    assert scrub_paths(nb, local_prefixes(("/work/course", "<course>"))) == 4
    out = cell.outputs
    assert out[0].text == "Data: Fashion-MNIST is cached in ~/.cache/x\n"
    assert out[1].data["text/plain"] == "'<course>/solutions/a.ipynb'"
    assert out[2].evalue == "no <course>/x" and out[2].traceback == ["File ~/y.py, line 1", "plain line"]
    assert out[3].text.startswith("/work/coursework"), "a folder's name is not the start of another's"


def test_the_innermost_folder_is_replaced_first():
    prefixes = dict(local_prefixes(("/srv/a", "A"), ("/srv/a/b", "B")))
    order = [path for path in prefixes]
    assert order.index("/srv/a/b") < order.index("/srv/a")
    assert "/" not in prefixes and "" not in prefixes


def test_the_data_helper_prints_the_home_folder_as_a_tilde(monkeypatch, tmp_path):
    from gpucourse.bootstrap import shown_path

    monkeypatch.setenv("HOME", str(tmp_path))
    assert shown_path(tmp_path / ".cache" / "gpucourse") == str(Path("~/.cache/gpucourse"))
    assert shown_path("/usr/share/datasets") == "/usr/share/datasets"


def test_the_machine_note_sits_under_the_title_and_says_whether_the_figures_were_taken_under_contention():
    machine = book_machine.Machine(cpu="Test CPU 9000", cores=2, gpu="", torch="2.9.0", python="3.11.7")
    alone = book_machine.page_note(machine, "2026-12-07 10:00 UTC", True, 12.3, 1)
    busy = book_machine.page_note(machine, "2026-12-07 10:00 UTC", False, 12.3, 2)
    assert "CPU Test CPU 9000 (2 cores), no GPU" in alone and "torch 2.9.0" in alone and "quick mode" in alone
    assert "one notebook at a time" in alone and "contention" not in alone
    assert "2 notebooks ran at once" in busy and "contention" in busy and "full mode" in busy
    gpu = book_machine.Machine(cpu="Test CPU", cores=16, gpu="NVIDIA H100", torch="2.9.0", python="3.11.7")
    assert gpu.named().startswith("GPU NVIDIA H100")
    nb = nbformat.v4.new_notebook(cells=[nbformat.v4.new_markdown_cell("# 01 · Title\n\nintro"),
                                         nbformat.v4.new_code_cell("x = 1")])
    add_note(nb, alone)
    assert [c.get("id") for c in nb.cells][1] == NOTE_ID and nb.cells[1].source.startswith("```{admonition}")


def test_the_cpu_is_named_from_cpuinfo(tmp_path):
    info = tmp_path / "cpuinfo"
    info.write_text("processor\t: 0\nmodel name\t: AMD   EPYC 7B13\nflags\t: fpu\n")
    assert book_machine.cpu_model(info) == "AMD EPYC 7B13"
    assert book_machine.cpu_model(tmp_path / "missing")  # a name of some kind, never an error


def test_the_table_of_contents_is_the_front_page_then_the_chapters_in_order():
    names = ["01_devices", "02_transfers", "03_async_timing"]
    toc = json.loads(book_site.toc_yaml(names))
    assert toc["root"] == "index" and [c["file"] for c in toc["chapters"]] == names
    config = json.loads(book_site.config_yaml("someone"))
    assert config["execute"]["execute_notebooks"] == "off", "the book never runs a notebook a second time"
    assert "dollarmath" not in config["parse"]["myst_enable_extensions"], "MathJax would come from a CDN"


def test_the_book_command_refuses_no_notebooks_at_a_time_before_running_anything(capsys, monkeypatch):
    from graders import __main__ as cli
    from graders.authoring import book

    monkeypatch.setattr(book, "build_book", lambda *a, **k: (_ for _ in ()).throw(AssertionError("built")))
    assert cli.main(["book", "--jobs", "0"]) == 2
    assert capsys.readouterr().out.strip() == "book: --jobs must be 1 or more, not 0"
