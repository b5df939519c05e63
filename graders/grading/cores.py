"""Share the cores between notebooks that run side by side."""

from __future__ import annotations

import os
from contextlib import contextmanager


def threads_per_kernel(jobs: int) -> int | None:
    """Threads for each of ``jobs`` kernels running at once, or None to leave torch's default."""
    if jobs <= 1 or os.environ.get("OMP_NUM_THREADS"):
        return None  # one kernel uses every core; a value the user set is kept
    return max(1, (os.cpu_count() or jobs) // jobs)


@contextmanager
def cores_shared(jobs: int):
    """Within the block, kernels started for ``jobs`` parallel runs get their share of the cores.

    Left alone, every kernel's torch starts one thread per core. Two kernels on two cores then run
    four busy threads, and OpenMP's waiting threads spin while the thread they wait for is
    descheduled. Measured on a 2-core machine, when 08 still trained the MLP: notebook 08 built in 20 s
    with its share, and had not finished after four minutes without it (the whole full-mode book: 74 s;
    since 08 trains the CNN, 124 s, 08 69 s of it, README).
    The share travels as ``OMP_NUM_THREADS``, which child processes inherit; it is undone after.
    """
    threads = threads_per_kernel(jobs)
    if threads is None:
        yield None
        return
    os.environ["OMP_NUM_THREADS"] = str(threads)
    try:
        yield threads
    finally:
        os.environ.pop("OMP_NUM_THREADS", None)
