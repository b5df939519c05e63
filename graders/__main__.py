"""The instructor's commands: ``python -m graders COMMAND``; ``--help`` lists them.

Each command is a module of ``graders.commands`` with ``HELP``, ``add_arguments(parser)`` and
``run(args) -> int``; to add one, write the module and add its name to ``COMMANDS``. A command prints its
results to stdout; progress goes to the ``graders`` logger (``-v`` more, ``-q`` warnings only), and a
:class:`graders.errors.GraderError` it raises is said here, once, as ``<command>: <message>`` (on stdout, where
the commands have always said them) with the error's exit code.
"""

from __future__ import annotations

import argparse
import importlib
import sys
import warnings

from graders import log
from graders.errors import GraderError

COMMANDS = ["build", "collect", "autograde", "feedback", "merge", "review", "samples", "selftest", "stress", "judge",
            "links", "book", "export", "submit-slurm", "validate"]


def main(argv: list[str] | None = None) -> int:
    warnings.filterwarnings("ignore", message=".*not in session.*")  # nbgrader's SQLAlchemy noise
    parser = argparse.ArgumentParser(prog="python -m graders", description=__doc__.splitlines()[0])
    parser.add_argument("-v", "--verbose", action="count", default=0, help="more detail on what is being done")
    parser.add_argument("-q", "--quiet", dest="global_quiet", action="store_true",
                        help="no progress lines, only warnings and the results")
    sub = parser.add_subparsers(dest="command", required=True)
    modules = {}
    for name in COMMANDS:
        module = importlib.import_module(f"graders.commands.{name.replace('-', '_')}")
        modules[name] = module
        module.add_arguments(sub.add_parser(name, help=module.HELP, description=module.HELP))
    args = parser.parse_args(argv)
    quiet = args.global_quiet or getattr(args, "quiet", False)  # autograde --quiet: the same, for that command
    log.setup(-1 if quiet else args.verbose)
    try:
        return modules[args.command].run(args)
    except GraderError as error:
        print(f"{args.command}: {error}", flush=True)
        return error.exit_code


if __name__ == "__main__":
    sys.exit(main())
