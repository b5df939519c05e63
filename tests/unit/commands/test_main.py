"""``python -m graders``: the global -v/-q options set up the one logger; a GraderError is said once, as
``<command>: <message>`` on stdout, with its exit code; any other exception is a bug and keeps its traceback."""

from __future__ import annotations

import logging
import types

import pytest

from graders import __main__ as cli
from graders.errors import GraderError, InputError, RefusedError

LOGGER = logging.getLogger("graders")


@pytest.fixture()
def fake_command(monkeypatch):
    """A command ``build`` whose run() does what the test sets in ``behaviour``."""
    behaviour = {}

    def run(args):
        LOGGER.getChild("fake").info("progress line")
        if "raise" in behaviour:
            raise behaviour["raise"]
        print("the result")
        return 0

    module = types.SimpleNamespace(HELP="fake", add_arguments=lambda p: p.add_argument("--quiet", action="store_true"),
                                   run=run)
    real = cli.importlib.import_module
    monkeypatch.setattr(cli, "COMMANDS", ["build"])
    monkeypatch.setattr(cli.importlib, "import_module",
                        lambda name: module if name == "graders.commands.build" else real(name))
    yield behaviour
    for handler in list(LOGGER.handlers):
        LOGGER.removeHandler(handler)
    LOGGER.setLevel(logging.NOTSET)
    LOGGER.propagate = True


@pytest.mark.parametrize("error,code", [(InputError("no such folder"), 2), (RefusedError("would be wrong"), 1),
                                        (GraderError("bad"), 2)])
def test_a_grader_error_is_one_line_and_its_exit_code(fake_command, capsys, error, code):
    fake_command["raise"] = error
    assert cli.main(["build"]) == code
    said = capsys.readouterr()
    assert said.out == f"build: {error}\n" and "Traceback" not in said.err


def test_another_exception_is_a_bug_and_propagates(fake_command):
    fake_command["raise"] = KeyError("a bug")
    with pytest.raises(KeyError):
        cli.main(["build"])


@pytest.mark.parametrize("argv,progress", [(["build"], True), (["-q", "build"], False), (["build", "--quiet"], False),
                                           (["-v", "build"], True)])
def test_results_on_stdout_progress_by_verbosity(fake_command, capsys, argv, progress):
    assert cli.main(argv) == 0
    said = capsys.readouterr()
    assert said.out == "the result\n"
    assert ("progress line" in said.err) == progress
    assert ("graders.fake: progress line" in said.err) == ("-v" in argv)  # -v names the module

