"""Share the cores between notebooks that run side by side."""

from __future__ import annotations

import os


def share_cores(jobs: int) -> int | None:
    """Give each of ``jobs`` kernels its share of the cores (``OMP_NUM_THREADS``, inherited by them).

    Left alone, every kernel's torch starts one thread per core. Two kernels on two cores then run
    four busy threads, and OpenMP's waiting threads spin while the thread they wait for is
    descheduled: a notebook that takes 20 s alone took over 10 minutes that way. A value the user
    set is kept. Returns the number of threads per kernel, or None when nothing was changed.
    """
    if jobs <= 1 or os.environ.get("OMP_NUM_THREADS"):
        return None
    threads = max(1, (os.cpu_count() or jobs) // jobs)
    os.environ["OMP_NUM_THREADS"] = str(threads)
    return threads
