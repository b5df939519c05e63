"""How close the simulated device's timings come to the work it did, on this machine at its present load.

The tests (tests/unit/gpucourse/test_simdevice.py) check only orders and lower bounds, which hold under any load;
the figures they once bounded are measured and printed here: the naive and the synchronized reading of one kernel,
an event pair around one kernel, and ``gpucourse.timing.time_ms`` against each call's work.

    python benchmarks/simdevice_accuracy.py [--repeats N]
"""

from __future__ import annotations

import argparse
import os
import statistics
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from gpucourse import timing
from gpucourse.simdevice import SimDevice, SimEvent, Workload, naive_and_synchronized, simulated_accelerator


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--repeats", type=int, default=5)
    args = parser.parse_args(argv)
    print(f"load average {os.getloadavg()[0]:.1f} on {os.cpu_count()} cores; medians of {args.repeats} runs")
    naive, synced, events = [], [], []
    with SimDevice("benchmark") as sim:
        for _ in range(args.repeats):
            result = naive_and_synchronized(sim, 200)
            naive.append(result["naive_ms"] / result["true_ms"])
            synced.append(result["synchronized_ms"] - result["true_ms"])
            start, end = SimEvent(enable_timing=True, device=sim), SimEvent(enable_timing=True, device=sim)
            start.record()
            kernel = sim.launch(60)
            end.record()
            end.synchronize()
            events.append(start.elapsed_time(end) - kernel.duration_ms)
    print(f"naive reading of a 200 ms kernel: {100 * statistics.median(naive):.2f} % of the work")
    print(f"synchronized reading: {statistics.median(synced):+.1f} ms over the work")
    print(f"event pair around a 60 ms kernel: {statistics.median(events):+.1f} ms over the kernel")
    errors = []
    for _ in range(args.repeats):
        with simulated_accelerator("cuda") as sim:
            fn = Workload(sim, durations=[20, 110, 50], warmup_ms=300, warmup_calls=2)
            times = timing.time_ms(fn, "cuda", warmup=2, repeats=3)
            errors += [t - r for t, r in zip(times, fn.true_ms(skip=2), strict=True)]
    print(f"time_ms against each call's work: median {statistics.median(errors):+.1f} ms, "
          f"largest {max(errors):+.1f} ms ({len(errors)} calls)")


if __name__ == "__main__":
    main()
