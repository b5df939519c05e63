"""The instructor's commands: ``python -m graders COMMAND``; ``--help`` lists them.

Each command is a module of ``graders.commands`` with ``HELP``, ``add_arguments(parser)`` and
``run(args) -> int``; to add one, write the module and add its name to ``COMMANDS``.
"""

from __future__ import annotations

import argparse
import importlib
import sys
import warnings

COMMANDS = ["build", "collect", "autograde", "feedback", "merge", "review", "samples", "selftest", "stress", "judge",
            "links", "book", "export", "submit-slurm"]


def main(argv: list[str] | None = None) -> int:
    warnings.filterwarnings("ignore", message=".*not in session.*")  # nbgrader's SQLAlchemy noise
    parser = argparse.ArgumentParser(prog="python -m graders", description=__doc__.splitlines()[0])
    sub = parser.add_subparsers(dest="command", required=True)
    modules = {}
    for name in COMMANDS:
        module = importlib.import_module(f"graders.commands.{name.replace('-', '_')}")
        modules[name] = module
        module.add_arguments(sub.add_parser(name, help=module.HELP, description=module.HELP))
    args = parser.parse_args(argv)
    return modules[args.command].run(args)


if __name__ == "__main__":
    sys.exit(main())
