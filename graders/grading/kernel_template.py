"""The template process of a warm slot: it imports torch, torchvision, matplotlib, the helper package and
ipykernel once, then forks one fresh kernel per notebook (``graders.grading.warm``).

It runs inside the slot's OS sandbox (``graders.grading.sandbox``), started by bubblewrap with
CAP_SYS_ADMIN in the sandbox's own user namespace and nothing else, and never runs student code. For each
request on its Unix socket (one JSON line from ``kernel_launch.py``) it forks the kernel, which enters a
new IPC namespace and drops every capability before it runs a line of the notebook. When the kernel ends,
the template kills every other process in the sandbox's PID namespace (whatever the kernel started) and
removes what it left in ``/tmp`` and ``/dev/shm`` before it tells the launcher, so nothing of one student's
run is alive when nbgrader saves the graded notebook, or there when the next kernel starts (a slot runs one
kernel at a time; the grader removes the kernel's own folder). Nothing is shared between two students'
kernels but the template's memory image as it was before either ran, copied on write. The template is not
dumpable, so a kernel cannot read or write its memory (``/proc/PID/mem``, ptrace); a kernel that kills it
only ends its own grading (the grader starts another template).

(A kernel in a PID namespace of its own would make the sweep automatic, but it would see the template's
``/proc``: mounting its own needs privileges an instructor's account does not have in every container. A
fresh tmpfs on ``/tmp`` per kernel would hide what bubblewrap bound below it: a repository, venv or HOME in
``/tmp``, as in a fresh clone made with ``mktemp -d``.)

Standard library only, besides what it preloads; it is a script, not part of the ``graders`` package, which
the sandbox does not show.
"""

import ctypes
import json
import os
import selectors
import signal
import socket
import sys
import time

PRELOAD = ["numpy", "torch", "torch.nn", "torch.nn.functional", "torch.optim", "torch.utils.data", "torch.amp",
           "torch.overrides", "torch.testing", "torchvision", "torchvision.datasets", "torchvision.transforms",
           "matplotlib", "matplotlib.pyplot", "tqdm", "tqdm.auto", "gpucourse", "gpucourse.checks",
           "gpucourse.env", "gpucourse.data", "gpucourse.testing", "ipykernel.kernelapp", "IPython",
           "matplotlib_inline.backend_inline"]

CLONE_NEWIPC = 0x08000000
SCRATCH = ("/tmp", "/dev/shm")
PR_SET_PDEATHSIG, PR_SET_DUMPABLE, PR_CAPBSET_DROP, PR_SET_NO_NEW_PRIVS = 1, 4, 24, 38
PR_CAP_AMBIENT, PR_CAP_AMBIENT_CLEAR_ALL = 47, 4
libc = ctypes.CDLL(None, use_errno=True)


def check(result: int, what: str) -> None:
    if result != 0:
        err = ctypes.get_errno()
        raise OSError(err, f"{what}: {os.strerror(err)}")


def preload() -> None:
    # what ipykernel would set before matplotlib is imported: the inline backend
    os.environ.setdefault("MPLBACKEND", "module://matplotlib_inline.backend_inline")
    # matplotlib wants a writable config folder (else it rebuilds its font list): a copy of the prepared one,
    # in the template's /tmp, which no kernel sees (each has a fresh /tmp)
    source = os.environ.get("MPLCONFIGDIR")
    if source and os.path.isdir(source):
        import shutil
        shutil.copytree(source, "/tmp/matplotlib", ignore=shutil.ignore_patterns("*.lock", "tex.cache"))
        os.environ["MPLCONFIGDIR"] = "/tmp/matplotlib"
    for name in PRELOAD:
        try:
            __import__(name)
        except Exception as exc:  # a missing optional module costs its import later, nothing else
            print(f"template: could not preload {name}: {exc}", file=sys.stderr)


def drop_capabilities() -> None:
    for cap in range(64):
        libc.prctl(PR_CAPBSET_DROP, cap, 0, 0, 0)  # EINVAL past the last capability: ignored

    class Header(ctypes.Structure):
        _fields_ = [("version", ctypes.c_uint32), ("pid", ctypes.c_int)]

    class Data(ctypes.Structure):
        _fields_ = [("effective", ctypes.c_uint32), ("permitted", ctypes.c_uint32),
                    ("inheritable", ctypes.c_uint32)]

    header, data = Header(0x20080522, 0), (Data * 2)()  # _LINUX_CAPABILITY_VERSION_3, all zero
    check(libc.capset(ctypes.byref(header), data), "capset")
    libc.prctl(PR_CAP_AMBIENT, PR_CAP_AMBIENT_CLEAR_ALL, 0, 0, 0)
    check(libc.prctl(PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0), "no_new_privs")


def scratch_entries() -> set[str]:
    """Every path in the sandbox's /tmp and /dev/shm, not below a mount point: what bubblewrap made for its
    binds (the repository, the venv or HOME may live in /tmp). What a kernel adds goes after it."""
    found = set()
    for top in SCRATCH:
        for folder, dirs, files in os.walk(top):
            found.update(os.path.join(folder, name) for name in dirs + files)  # mount points included
            dirs[:] = [d for d in dirs if not os.path.ismount(os.path.join(folder, d))]
    return found


def sweep_scratch(keep: set[str]) -> None:
    """Remove what a finished kernel left in /tmp and /dev/shm (never crossing into a bound folder)."""
    import shutil
    for top in SCRATCH:
        for folder, dirs, files in os.walk(top):
            for name in files:
                path = os.path.join(folder, name)
                if path not in keep:
                    try:
                        os.unlink(path)
                    except OSError:
                        pass
            for name in list(dirs):
                path = os.path.join(folder, name)
                if os.path.ismount(path):  # a folder bound from the host: never emptied here
                    dirs.remove(name)
                elif path not in keep:
                    if os.path.islink(path):
                        os.unlink(path)
                    else:
                        shutil.rmtree(path, ignore_errors=True)
                    dirs.remove(name)


def limit_memory(cap: int) -> None:
    """The limits ``nbgrader autograde`` runs under when cold (graders.grading.execute)."""
    import resource
    if cap > 0:
        resource.setrlimit(resource.RLIMIT_DATA, (cap, cap))
        # CUDA reserves tens of GiB of address space: the address-space cap only where there is no NVIDIA GPU
        if not (os.path.exists("/dev/nvidiactl") or os.path.exists("/proc/driver/nvidia")):
            resource.setrlimit(resource.RLIMIT_AS, (2 * cap, 2 * cap))
    resource.setrlimit(resource.RLIMIT_CORE, (0, 0))


def run_kernel(request: dict) -> None:
    """In the new namespaces: become the notebook's kernel (never returns)."""
    drop_capabilities()
    libc.prctl(PR_SET_DUMPABLE, 1, 0, 0, 0)  # the kernel's own /proc/self, as in any process
    limit_memory(int(request.get("memory_bytes", 0)))
    # JPY_PARENT_PID=1: ipykernel's "no parent to watch" (the template kills the kernel when its launcher goes)
    env = dict(request["env"], JPY_PARENT_PID="1")
    os.environ.clear()
    os.environ.update(env)
    os.chdir(request["cwd"])
    import random
    import tempfile
    tempfile.tempdir = None  # TMPDIR is this kernel's own
    random.seed()
    if "numpy" in sys.modules:
        sys.modules["numpy"].random.seed()
    threads = os.environ.get("OMP_NUM_THREADS")
    if threads and "torch" in sys.modules:
        sys.modules["torch"].set_num_threads(int(threads))
    sys.argv = ["ipykernel_launcher", "-f", request["connection_file"], *request.get("args", [])]
    sys.path[0] = request["cwd"]
    from ipykernel import kernelapp
    try:
        kernelapp.launch_new_instance()
        code = 0
    except SystemExit as exc:
        code = exc.code if isinstance(exc.code, int) else 1
    except BaseException:  # a kernel that cannot start says why on stderr
        import traceback
        traceback.print_exc()
        code = 1
    sys.stdout.flush()
    sys.stderr.flush()
    os._exit(code)


def sweep() -> None:
    """Kill every process of the sandbox but its init (PID 1) and this template: what a finished kernel left."""
    me = os.getpid()
    for _ in range(1000):
        pids = [int(p) for p in os.listdir("/proc") if p.isdigit() and int(p) not in (1, me)]
        if not pids:
            return
        for pid in pids:
            try:
                os.kill(pid, signal.SIGKILL)
            except ProcessLookupError:
                pass
        try:
            while os.waitpid(-1, os.WNOHANG)[0]:
                pass
        except ChildProcessError:
            pass
        time.sleep(0.002)


def start(conn: socket.socket, request: dict, fds: list[int]) -> int:
    pid = os.fork()
    if pid == 0:
        try:
            for target, fd in enumerate(fds[:3]):  # the launcher's stdin, stdout, stderr (nbgrader's log)
                os.dup2(fd, target)
            os.closerange(3, 1 << 16)  # nothing of the template (its socket, other launchers) reaches a kernel
            libc.prctl(PR_SET_PDEATHSIG, signal.SIGKILL, 0, 0, 0)
            check(libc.unshare(CLONE_NEWIPC), "unshare")  # its own System V shared memory and semaphores
            run_kernel(request)
        except BaseException:  # said on nbgrader's log, which the row's message reads
            import traceback
            traceback.print_exc()
        finally:
            os._exit(1)
    for fd in fds:
        os.close(fd)
    return pid


def serve(fd: int, keep: set[str]) -> None:
    """Fork a kernel for each launcher that connects to the listening socket ``fd`` (the grader made it, in a
    folder of its own that no kernel sees)."""
    server = socket.socket(fileno=fd)
    sel = selectors.DefaultSelector()
    sel.register(server, selectors.EVENT_READ, "accept")
    kernels: dict[int, tuple[socket.socket, int]] = {}  # pidfd -> (launcher connection, kernel pid)
    print("template: ready", flush=True)
    while True:
        for key, _ in sel.select():
            if key.data == "accept":
                conn, _ = server.accept()
                sel.register(conn, selectors.EVENT_READ, "launcher")
            elif key.data == "launcher":
                conn = key.fileobj
                found = next(((fd, pid) for fd, (c, pid) in kernels.items() if c is conn), None)
                try:
                    data, fds, _, _ = socket.recv_fds(conn, 1 << 20, 3)
                except OSError:
                    data, fds = b"", []
                if found is None and data:  # the request: one JSON line, with stdin, stdout, stderr
                    pid = start(conn, json.loads(data), fds)
                    pidfd = os.pidfd_open(pid)
                    kernels[pidfd] = (conn, pid)
                    sel.register(pidfd, selectors.EVENT_READ, "kernel")
                    conn.sendall(json.dumps({"pid": pid}).encode() + b"\n")
                elif found is not None and data:  # a signal for the kernel
                    for line in data.decode().splitlines():
                        signum = json.loads(line).get("signal")
                        if signum == signal.SIGINT:
                            os.kill(found[1], signal.SIGINT)
                        elif signum in (signal.SIGTERM, signal.SIGKILL):
                            os.kill(found[1], signal.SIGKILL)
                else:  # the launcher is gone: so is its kernel
                    sel.unregister(conn)
                    conn.close()
                    if found is not None:
                        os.kill(found[1], signal.SIGKILL)
            else:  # a kernel ended: everything it started goes before nbgrader hears of it
                pidfd = key.fileobj
                conn, pid = kernels.pop(pidfd)
                sel.unregister(pidfd)
                os.close(pidfd)
                _, status = os.waitpid(pid, 0)
                sweep()
                sweep_scratch(keep)
                try:
                    conn.sendall(json.dumps({"exit": os.waitstatus_to_exitcode(status)}).encode() + b"\n")
                except OSError:
                    pass


def main() -> None:
    libc.prctl(PR_SET_DUMPABLE, 0, 0, 0, 0)  # no kernel may read or write this process's memory
    keep = scratch_entries()  # before preload's copy of the font list, which the first sweep removes
    preload()
    serve(int(sys.argv[1]), keep)


if __name__ == "__main__":
    main()
