"""The reader's book, without building it: the stand-in data banner comes from what the loader printed, and the
loader still prints the announcement the book looks for. The built book: tests/e2e/authoring/test_book_e2e.py."""

from __future__ import annotations

import nbformat

from graders.authoring.book import STANDIN_ANNOUNCEMENT, used_standin


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


