"""A notebook client whose kernel talks to it over Unix sockets in a folder of its own.

Why not jupyter_client's default, TCP on 127.0.0.1: it picks each of a kernel's five ports by binding port 0
and letting it go, and the kernel binds them again once it has started, a second or more later under load.
Where several processes start kernels at once (the test workers; a book build beside a grading), another
process can take such a port in between: the kernel dies ("Address already in use", then "Kernel died before
replying to kernel_info"), or a client of another kernel reaches it ("Invalid Signature"). A socket file in a
fresh folder cannot be taken by anyone else. The graded kernels do the same (``grading/rundir.py``).
"""

from __future__ import annotations

import contextlib
import tempfile
from collections.abc import Iterator
from pathlib import Path


@contextlib.contextmanager
def notebook_client(nb, cwd: str | Path, **options) -> Iterator:
    """An ``nbclient.NotebookClient`` for ``nb`` whose kernel runs in ``cwd`` and listens on Unix sockets in a
    temporary folder, removed afterwards. ``options``: NotebookClient's own (timeout, kernel_name, ...)."""
    from nbclient import NotebookClient
    from traitlets.config import Config

    with tempfile.TemporaryDirectory(prefix="ipc-") as sockets:
        config = Config()
        config.KernelManager.transport = "ipc"
        # absolute: a relative name would be found in each side's own working folder, and those differ
        config.KernelManager.ip = str(Path(sockets).resolve() / "kernel")
        yield NotebookClient(nb, config=config, resources={"metadata": {"path": str(cwd)}}, **options)
