"""The kernels the judge, the book and the student-path tests start talk over Unix sockets in a folder of
their own (``graders/kernel_client.py``): no TCP port for another process to take between its choice and the
kernel's bind, the race that killed a book chapter's kernel in a CI run with three test workers."""

from __future__ import annotations

from pathlib import Path

import nbformat

from graders.kernel_client import notebook_client

PROBE = """\
import json, os, ipykernel.connect
info = ipykernel.connect.get_connection_info(unpack=True)
print(json.dumps({"transport": info["transport"], "ip": info["ip"], "cwd": os.getcwd()}))
"""


def test_the_kernel_listens_on_unix_sockets_in_a_folder_removed_afterwards(tmp_path):
    import json

    nb = nbformat.v4.new_notebook(cells=[nbformat.v4.new_code_cell(PROBE)])
    with notebook_client(nb, tmp_path, timeout=120, kernel_name="python3") as client:
        client.execute()
        seen = json.loads(nb.cells[0].outputs[0]["text"])
        sockets = Path(seen["ip"]).parent
        assert sockets.is_dir() and sockets != tmp_path
    assert seen["transport"] == "ipc"
    assert Path(seen["cwd"]).resolve() == tmp_path.resolve()
    assert not sockets.exists(), "the socket folder is left behind"
