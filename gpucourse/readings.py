"""Sentence choosers: the sentence a notebook prints next to a figure it measured, chosen from that figure.

A speed-up, a bandwidth or a timing depends on the machine: an H200 on PCIe Gen5, a Colab T4 on Gen3 and a
laptop CPU give figures that teach different things. Prose written for one of them is false on the others (an H200
run showed "naive timing misses the work" under a naive figure 9x the synchronized one, and a "PCIe Gen3 peak" line
under a measured 54.9 GB/s). So the notebooks print the figure together with the sentence that reads it, and the
sentence is chosen here, where ``tests/unit/gpucourse/test_readings.py`` feeds each chooser the H200's figures, a
T4-like and a CPU-like one, and its band edges.

A sentence names a cause only when the figures it is given show it (a step is called host-bound only when the caller
measured it so, with :func:`gpucourse.throughput.bound_of`); otherwise it says what was measured, not why.

**The course's one noise band** is :class:`Ratio`: every "faster", "slower", "helped", "cost more" or "agree" in the
course (here and in :mod:`gpucourse.throughput`) is decided by it. Each chooser returns one or two plain sentences (no
trailing newline) and never raises on a positive figure.
"""

from __future__ import annotations

import statistics
from collections.abc import Callable, Sequence
from dataclasses import dataclass

#: PCIe x16 links: (name, theoretical peak in GB/s per direction, GPUs that use it). A measured bandwidth can only
#: exclude links slower than itself: a copy cannot be faster than the link it crosses.
PCIE_LINKS = (
    ("PCIe Gen3 x16", 15.75, "a T4 or a V100"),
    ("PCIe Gen4 x16", 31.5, "an A100 or an L4"),
    ("PCIe Gen5 x16", 63.0, "an H100 or an H200"),
)

#: The narrowest noise band: a ratio within 10 % of 1 is never read as a change, however closely its rounds agree.
#: Rounds taken back to back share the machine's state (its clock speed, the other programs running then), so their
#: agreement can understate how far the same cell run again lands; 10 % is the band notebooks 02 to 07 used before,
#: kept as the floor. Beyond it, the rounds themselves say how noisy this machine is: on the course's 2-core test
#: machine, shared with other jobs, the median of 20 steps of the small MLP, timed 8 times 5 s apart, ranged from 20
#: to 324 ms (2026-12-07), and 07 once read 3.88x under load where the same cell read 0.97x on a quiet machine.
NOISE_FLOOR = 0.10
#: How many times a cell repeats a timing whose ratio it reads (interleaved: see :func:`in_rounds`).
ROUNDS = 3


@dataclass(frozen=True)
class Ratio:
    """A ratio measured ``len(rounds)`` times (a speed-up: baseline time / new time, or new rate / baseline rate; or
    any "x times" of two timings), and the course's one rule for reading it.

    The figure is the median of the rounds. Its noise band is ``[1 / f, f]``, where f is the factor between the
    highest and the lowest round, and at least ``1 + NOISE_FLOOR`` (1.10): a ratio counts as a change only when it is
    further from 1 than its own repeats are from each other, as factors. (Factors, not differences, so that "A against
    B" and "B against A" get the same verdict, at 1.2x as at 4x.) A single figure has no spread: only the floor
    applies, and the sentence then shows no spread either.

    ``figure``, where given, is the figure instead of the rounds' median: :meth:`between` gives the ratio of the two
    measurements' medians, the one a table of those medians shows beside the sentence.
    """

    rounds: tuple[float, ...]
    figure: float | None = None

    def __post_init__(self):
        if not self.rounds or not all(r > 0 for r in self.rounds) or not (self.figure is None or self.figure > 0):
            raise ValueError(f"a ratio needs one or more positive rounds, not {self.rounds!r}")

    @classmethod
    def of(cls, measured: float | Sequence[float] | Ratio) -> Ratio:
        """A Ratio from one figure, the figures of several rounds, or a Ratio."""
        if isinstance(measured, Ratio):
            return measured
        if isinstance(measured, (int, float)):
            return cls((float(measured),))
        return cls(tuple(float(r) for r in measured))

    @classmethod
    def between(cls, baseline: float | Sequence[float], new: float | Sequence[float]) -> Ratio:
        """``baseline / new`` round by round, its figure the ratio of the medians (pass times as (baseline, new) and
        rates as (new, baseline), so that above 1 is always "new is faster")."""
        base = [baseline] if isinstance(baseline, (int, float)) else list(baseline)
        other = [new] if isinstance(new, (int, float)) else list(new)
        rounds = tuple(b / n for b, n in zip(base, other, strict=True))
        return cls(rounds, None if len(rounds) == 1 else median(base) / median(other))

    @property
    def value(self) -> float:
        return statistics.median(self.rounds) if self.figure is None else self.figure

    @property
    def band(self) -> tuple[float, float]:
        factor = max(1 + NOISE_FLOOR, max(self.rounds) / min(self.rounds))
        return 1 / factor, factor

    @property
    def above(self) -> bool:
        """Above its noise band: "faster", "more"."""
        return self.value > self.band[1]

    @property
    def below(self) -> bool:
        """Below its noise band: "slower", "less"."""
        return self.value < self.band[0]

    @property
    def unsettled(self) -> bool:
        """Inside its band, and its rounds more than 10 % apart: neither "faster" nor "about the same" (rounds from
        0.5x to 1.45x do not show that nothing changed), so the sentence asks for the cell to be run again. Only
        rounds that agree within the floor, around a figure within it, read as "about the same"."""
        return not (self.above or self.below) and self.band[1] > 1 + NOISE_FLOOR

    def spread(self, inside: bool = False) -> str:
        """The rounds' range, to print beside the figure: " (timed 3 times: 0.91x to 1.04x)", or with ``inside``
        "; timed 3 times: ..." for a parenthesis already open; nothing for a single figure."""
        if len(self.rounds) == 1:
            return ""
        text = f"timed {len(self.rounds)} times: {min(self.rounds):.2f}x to {max(self.rounds):.2f}x"
        return f"; {text}" if inside else f" ({text})"


def in_rounds(measures: dict[str, Callable[[], float]], rounds: int = ROUNDS) -> dict[str, list[float]]:
    """Call each measurement ``rounds`` times, interleaved (a, b, a, b, ...), so that a change in the machine's load
    during the cell falls on all of them alike: ``{name: [one figure per round]}``, for :class:`Ratio`."""
    figures: dict[str, list[float]] = {name: [] for name in measures}
    for _ in range(rounds):
        for name, measure in measures.items():
            figures[name].append(measure())
    return figures


def median(figures: float | Sequence[float]) -> float:
    """The figure a cell prints for a measurement taken once or in rounds."""
    return float(figures) if isinstance(figures, (int, float)) else statistics.median(figures)


def _ms(ms: float) -> str:
    """A duration a reader takes in at a glance: seconds from one second on, else milliseconds."""
    if ms >= 1e3:
        return f"{ms / 1e3:.1f} s"
    return f"{ms:.1f} ms" if ms >= 10 else f"{ms:.3f} ms"


def read_timing_trap(naive_ms: float, synced_ms: float) -> str:
    """Read a naive host timing against a synchronized timing of the same work (one call each, so only the noise
    band's floor applies)."""
    ratio = Ratio.of(naive_ms / synced_ms)
    share = f"{ratio.value:.1%} of the synchronized {_ms(synced_ms)}"
    if ratio.value < 0.5:
        return (f"The naive clock read {_ms(naive_ms)}, {share}: it stopped while the work was still queued, so it "
                "missed most of it.")
    if ratio.below:
        return (f"The naive clock read {_ms(naive_ms)}, {share}: it stopped while part of the work was still "
                f"queued, so it missed about {1 - ratio.value:.0%} of it.")
    if not ratio.above:
        return (f"The two agree ({_ms(naive_ms)} against {_ms(synced_ms)}): the naive clock included the work, "
                "because something inside waited for it (an implicit synchronization such as .item()) or the "
                "device finished it before returning (a CPU does).")
    if ratio.value <= 1.5:
        # Not far above the band: one call each cannot tell a one-off cost from an unlucky moment.
        return (f"The naive figure ({_ms(naive_ms)}) is {ratio.value:.2f}x the synchronized one ({_ms(synced_ms)}): "
                "it included the work and more, either a one-off cost of a first call or noise, which one call each "
                "cannot tell apart. Warm up, and time several calls.")
    # Far more than the synchronized figure: the naive call paid costs the synchronized one no longer had to.
    return (f"The naive figure ({_ms(naive_ms)}) is {ratio.value:.1f}x the synchronized one ({_ms(synced_ms)}): it "
            "included one-off costs of a first call (loading a kernel's code, setting up a library, allocating "
            "memory), which a warm-up call pays. Warm up before timing anything.")


def read_bandwidth(gbps: float, kind: str) -> str:
    """Read a host-to-device bandwidth: ``kind`` is "pinned", "pageable" or "host" (a copy with no GPU)."""
    if kind == "host":
        return (f"{gbps:.1f} GB/s is a copy within this computer's memory: no PCIe link is crossed, so it says "
                "nothing about a GPU's link (a T4's PCIe Gen3 x16 carries at most 15.75 GB/s per direction).")
    if kind not in ("pinned", "pageable"):
        raise ValueError(f"kind must be 'pinned', 'pageable' or 'host', not {kind!r}")
    slower = [link for link in PCIE_LINKS if link[1] < gbps]
    if not slower:
        name, peak, gpus = PCIE_LINKS[0]
        link = (f"It fits a {name} link ({gbps / peak:.0%} of its {peak} GB/s peak; {gpus} has one), and any "
                "faster link too")
    elif len(slower) == len(PCIE_LINKS):
        name, peak, _ = PCIE_LINKS[-1]
        link = (f"It is above even {name}'s {peak} GB/s peak: this GPU is attached by something faster than PCIe "
                "(such as NVLink-C2C on a Grace Hopper machine)")
    else:
        name, peak, _ = slower[-1]
        faster_name, faster_peak, gpus = PCIE_LINKS[len(slower)]
        link = (f"It is above {name}'s {peak} GB/s peak, so this GPU's link is at least {faster_name} "
                f"({faster_peak} GB/s peak; {gpus} has one)")
    if kind == "pinned":
        return f"Pinned copies measure the link: {gbps:.1f} GB/s. {link}."
    pageable = (f"Pageable copies, {gbps:.1f} GB/s, are staged through a pinned buffer by the CPU first, so they "
                "measure the host as much as the link; the pinned figure is the link's.")
    # A slow pageable figure says nothing about the link; only one above a link's peak rules that link out.
    return pageable + (f" {link}." if slower else "")


def read_speedup(speedup: float | Sequence[float] | Ratio, what: str) -> str:
    """Read ``speedup`` (baseline time / new time, so above 1 is faster; one figure or one per round) of ``what``
    (e.g. "autocast"), with its spread."""
    r = Ratio.of(speedup)
    if r.above:
        return f"{what} was {r.value:.2f}x as fast here{r.spread()}: it helped."
    if r.unsettled:
        return (f"{what} measured {r.value:.2f}x here{r.spread()}, but its rounds disagree too much for that to count "
                "as faster or slower: run the cell again.")
    if not r.below:
        return (f"{what} ran at about the same speed here ({r.value:.2f}x{r.spread(inside=True)}): no difference "
                "this measurement can tell from its noise.")
    return f"{what} was {r.value:.2f}x here{r.spread()}: it did not help, it made this slower."


def read_matmul_speedup(speedup: float | Sequence[float] | Ratio, dtype_name: str, device_type: str) -> str:
    """Read a 16-bit matmul's throughput against float32's on ``device_type`` ("cuda" or "cpu")."""
    verdict = read_speedup(speedup, f"A {dtype_name} matmul")
    if Ratio.of(speedup).unsettled:
        return verdict
    if Ratio.of(speedup).above:
        if device_type == "cuda":
            return verdict + " This GPU runs 16-bit matrix multiplies on tensor cores."
        return verdict + (f" This CPU multiplies {dtype_name} matrices faster than float32 ones ({dtype_name} "
                          "instructions, or just half the bytes to move).")
    if device_type == "cpu":
        return verdict + f" This CPU has no fast {dtype_name} instructions to use, so it gains nothing from 16 bits."
    return verdict + " This GPU has no fast 16-bit units (tensor cores) for it, or the matrix is too small to keep " \
                     "them busy."


def read_autocast_step(step_speedup: float | Sequence[float] | Ratio, matmul_speedup: float | Ratio | None,
                       config: str, device_type: str = "cuda", bound: str | None = None) -> str:
    """Read autocast's speed-up of a whole training step of ``config`` on ``device_type`` ("cuda" or "cpu"), next to
    the 16-bit matmul speed-up of the same device (None where it was not measured) and what limits the step, as
    :func:`gpucourse.throughput.bound_of` measured it ("host", "compute", "partly", "unclear" where its rounds
    disagreed; None where it was not measured)."""
    verdict = read_speedup(step_speedup, f"Autocast on the training step ({config})")
    matmul = None if matmul_speedup is None else Ratio.of(matmul_speedup)
    rerun = " Run the cell again before believing it."
    if Ratio.of(step_speedup).unsettled:
        return verdict
    if Ratio.of(step_speedup).above:
        if matmul is not None and not matmul.above:
            # Contradicts the matmul figure: say so rather than explain it away with tensor cores.
            return verdict + (" Yet 16-bit matmuls alone were not measurably faster on this device "
                              f"({matmul.value:.2f}x{matmul.spread(inside=True)}), so "
                              "the gain came from elsewhere in the step, or from noise: another program busy on this "
                              "machine changes such timings." + rerun)
        if bound == "host":
            # Contradicts the step's own diagnosis: faster arithmetic cannot shorten a host-bound step.
            return verdict + (" Yet this step measured host-bound, where faster arithmetic cannot shorten it: the "
                              "gain came from elsewhere in the step, or from noise." + rerun)
        if bound in ("compute", "partly"):
            return verdict + " Enough of this step is arithmetic for faster 16-bit matrix multiplies to show."
        limit = "not clear from its timings" if bound == "unclear" else "not measured"
        if matmul is None:
            return verdict + (" No 16-bit matmul was timed alone here, and what limits this step was "
                              f"{limit}: why is open.")
        return verdict + (f" 16-bit matmuls alone were faster on this device too ({matmul.value:.2f}x), the likely "
                          f"reason; what limits this step was {limit}, so this cell cannot confirm it.")
    if matmul is None or matmul.unsettled:
        return verdict + (" The 16-bit matmul was not timed alone on this device" if matmul is None else
                          f" The 16-bit matmul timed alone gave no clear figure either ({matmul.value:.2f}x"
                          f"{matmul.spread(inside=True)})") + ", so this cell cannot say why."
    if not matmul.above:
        return verdict + (f" 16-bit matmuls alone were not faster on this device either ({matmul.value:.2f}x), so "
                          "autocast only adds the work of casting" + ("; its gains belong to GPUs with tensor cores."
                                                                      if device_type == "cuda" else "."))
    faster = f" Yet 16-bit matmuls alone ran {matmul.value:.1f}x as fast on this device"
    if bound == "host":
        return verdict + (faster + ": this step measured host-bound, so most of its time is a fixed cost per step "
                          "(Python, PyTorch's dispatch, on a GPU the kernel launches), not arithmetic, and autocast "
                          "adds casts to it. More work per step (a bigger batch, wider layers) is where autocast "
                          "pays.")
    # Compute-bound or not measured: the matmuls' gain was eaten by the rest of the step, or the figure is noise.
    measured = {"compute": "it spends its time in arithmetic (measured above)",
                "partly": "its arithmetic counts (measured above)",
                "unclear": "what limits this step was not clear from its timings"}.get(
                    bound, "what limits this step was not measured")
    return verdict + (faster + f", and {measured}: the rest of the step (the casts, the optimizer, elementwise work, "
                      "which a CPU can do slowly in 16 bits) outweighed them, or the timings are noisy (another "
                      "program busy on this machine changes them)." + rerun)


def read_compile(first_ms: float, compiled_ms: float | Sequence[float], eager_ms: float | Sequence[float],
                 backend: str = "inductor") -> str:
    """Read a compiled model's first call and steady call against the eager model's steady call; ``backend`` is the
    one it was compiled with. The steady figures are one each, or one per round (paired, as :func:`in_rounds`
    gives them)."""
    compiled, eager = median(compiled_ms), median(eager_ms)
    first = (f"The first compiled call took {_ms(first_ms)}, {first_ms / compiled:,.0f}x a steady compiled call: "
             "that is the compilation.")
    speedup = Ratio.between(eager_ms, compiled_ms)
    figure = f"{speedup.value:.2f}x{speedup.spread(inside=True)}"
    if backend != "inductor":
        # Backends such as "eager" generate no code: a steady-state difference is overhead or noise, not fusion.
        return first + (f" The {backend!r} backend generates no code, so compiled calls run the same kernels as "
                        f"eager plus Dynamo's guard checks (here {figure}): no speed-up is to be expected.")
    if speedup.unsettled:
        return first + (f" In the steady state compiled measured {figure} against eager, but its rounds disagree too "
                        "much for that to count as faster or slower: run the cell again.")
    if speedup.above:
        calls = (first_ms - compiled) / (eager - compiled)
        return first + (f" In the steady state compiled runs {speedup.value:.2f}x as fast as eager ({_ms(compiled)} "
                        f"against {_ms(eager)}{speedup.spread(inside=True)}), so the compilation pays for itself "
                        f"after about {calls:,.0f} calls.")
    if not speedup.below:
        return first + (f" In the steady state compiled and eager run at about the same speed ({figure}): "
                        "the compilation buys nothing here.")
    return first + (f" In the steady state compiled is slower than eager ({_ms(compiled)} against {_ms(eager)}, "
                    f"{figure}): a model this small leaves little to fuse, and each compiled call adds its own "
                    "overhead (checking the guards, Dynamo's wrapper). The compilation never pays back here.")


def read_workers(epoch_s: dict[int, float | Sequence[float]]) -> str:
    """Read the epoch times of a DataLoader over tensors already in memory, by ``num_workers`` (0 must be there):
    each one epoch, or several (paired by position, as :func:`in_rounds` gives them), all taken once the workers were
    running (persistent workers, after a first epoch), so that their start-up is not in them."""
    base = median(epoch_s[0])
    ratios = {w: Ratio.between(epoch_s[0], s) for w, s in sorted(epoch_s.items()) if w}
    faster = [w for w, r in ratios.items() if r.above]
    slower = [w for w, r in ratios.items() if r.below]
    parts = []
    if slower:
        figures = " and ".join(f"{median(epoch_s[w]):.2f} s" for w in slower)
        parts.append(f"{_workers(slower)} cost more than they saved ({figures} against {base:.2f} s with none): "
                     "handing each batch from a worker process to this one costs more than making it here (starting "
                     "the workers is not in these figures: they were already running)")
    if faster:
        best = min(faster, key=lambda w: median(epoch_s[w]))
        parts.append(f"{_workers(faster)} saved time ({median(epoch_s[best]):.2f} s against {base:.2f} s with none): "
                     "on enough cores, workers take over the per-sample Python work")
    if not parts and any(r.unsettled for r in ratios.values()):
        return ("For tensors in memory, the epochs varied too much here to tell whether workers helped: run the cell "
                "again.")
    if not parts:
        return ("For tensors in memory, workers changed nothing that this measurement can tell from noise: there "
                "is little per-sample work for them to take over.")
    return "For tensors in memory, here " + "; ".join(parts) + "."


def _workers(counts: list[int]) -> str:
    names = " and ".join(str(c) for c in counts)
    return f"{names} worker{'s' if counts != [1] else ''}"


def read_skips(skipped_steps: list[int], injected: set[int], scales_before: list[float]) -> str:
    """Read a GradScaler run: which skipped steps (0-based) were injected overflows and which were real ones;
    ``scales_before[i]`` is the scale step ``i`` ran with."""
    real = [s for s in skipped_steps if s not in injected]
    found = len(skipped_steps) - len(real)
    text = f"Of the {len(skipped_steps)} skipped steps, {found} were at the {len(injected)} steps with an injected inf"
    if not real:
        return text + ", and none where the gradients overflowed on their own."
    scales = sorted({scales_before[s] for s in real})
    exponents = ", ".join(f"2**{int(s).bit_length() - 1}" for s in scales)
    return text + (f", and {len(real)} where a real gradient times the scale passed float16's 65504 (at scale "
                   f"{exponents}): the scale had grown past what these gradients allow, and the scaler backed off.")
