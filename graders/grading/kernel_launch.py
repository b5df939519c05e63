"""The kernel nbgrader starts in a warm slot:
``python -I -S kernel_launch.py TEMPLATE_SOCKET CONNECTION_FILE [KERNEL_ARGS...]``.

It asks the slot's template process (``kernel_template.py``) for a fresh kernel with this process's working
folder, environment, stdin, stdout and stderr, then stands for that kernel: nbgrader's interrupt (SIGINT)
and termination reach it through the template, and this process exits with the kernel's exit status. If this
process is killed, the template sees its socket close and kills the kernel. Standard library only, no
``site``: it starts in a few milliseconds.
"""

import json
import os
import signal
import socket
import sys


def main() -> int:
    template, connection_file = sys.argv[1], sys.argv[2]
    memory = int(float(os.environ.get("GRADER_MEMORY_GIB") or 0) * 2**30)
    request = {"connection_file": os.path.abspath(connection_file), "cwd": os.getcwd(), "env": dict(os.environ),
               "memory_bytes": memory, "kernel_dir": os.environ["GRADER_KERNEL_DIR"], "args": sys.argv[3:]}
    conn = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
    conn.connect(template)
    socket.send_fds(conn, [json.dumps(request).encode()], [0, 1, 2])

    def forward(signum, _frame):
        try:
            conn.sendall(json.dumps({"signal": signum}).encode() + b"\n")
        except OSError:
            pass

    signal.signal(signal.SIGINT, forward)
    signal.signal(signal.SIGTERM, forward)
    buffer = b""
    while True:
        try:
            chunk = conn.recv(4096)
        except InterruptedError:
            continue
        if not chunk:
            return 1  # the template is gone, and the kernel with it
        buffer += chunk
        while b"\n" in buffer:
            line, buffer = buffer.split(b"\n", 1)
            message = json.loads(line)
            if "exit" in message:
                code = message["exit"]
                return code if code >= 0 else 128 - code


if __name__ == "__main__":
    sys.exit(main())
