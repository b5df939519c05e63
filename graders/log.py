"""The one ``graders`` logger: what a command tells its user while it works.

Library modules call ``log = logging.getLogger(__name__)`` (a child of ``graders``) and never ``print``;
``graders.__main__`` calls :func:`setup` once with the verbosity of ``-v``/``-q``. Messages go to stderr as plain
lines (``graders: ...`` only at ``-v``), so a command's results on stdout stay clean to pipe.
"""

from __future__ import annotations

import logging
import sys

LOGGER = logging.getLogger("graders")


def setup(verbosity: int = 0, stream=None) -> None:
    """``verbosity``: -1 (``-q``) warnings only, 0 progress, 1 (``-v``) details with the module's name."""
    level = {-1: logging.WARNING, 0: logging.INFO}.get(verbosity, logging.DEBUG if verbosity > 0 else logging.WARNING)
    handler = logging.StreamHandler(stream or sys.stderr)
    handler.setFormatter(logging.Formatter("%(name)s: %(message)s" if verbosity > 0 else "%(message)s"))
    for old in list(LOGGER.handlers):
        LOGGER.removeHandler(old)
    LOGGER.addHandler(handler)
    LOGGER.setLevel(level)
    LOGGER.propagate = False
