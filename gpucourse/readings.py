"""Sentence choosers: the sentence a notebook prints next to a figure it measured, chosen from that figure.

A speed-up, a bandwidth or a timing depends on the machine: an H200 on PCIe Gen5, a Colab T4 on Gen3 and a
laptop CPU give figures that teach different things. Prose written for one of them is false on the others (an H200
run showed "naive timing misses the work" under a naive figure 9x the synchronized one, and a "PCIe Gen3 peak" line
under a measured 54.9 GB/s). So the notebooks print the figure together with the sentence that reads it, and the
sentence is chosen here, where ``tests/unit/gpucourse/test_readings.py`` feeds each chooser the H200's figures, a
T4-like and a CPU-like one.

Each chooser returns one or two plain sentences (no trailing newline) and never raises on a positive figure.
"""

from __future__ import annotations

#: PCIe x16 links: (name, theoretical peak in GB/s per direction, GPUs that use it). A measured bandwidth can only
#: exclude links slower than itself: a copy cannot be faster than the link it crosses.
PCIE_LINKS = (
    ("PCIe Gen3 x16", 15.75, "a T4 or a V100"),
    ("PCIe Gen4 x16", 31.5, "an A100 or an L4"),
    ("PCIe Gen5 x16", 63.0, "an H100 or an H200"),
)

#: Speed ratios within this band of 1 are read as "about the same": two timings of the same work on a shared
#: machine routinely differ by several percent from run to run.
SAME_SPEED = (0.9, 1.1)


def _ms(ms: float) -> str:
    """A duration a reader takes in at a glance: seconds from one second on, else milliseconds."""
    if ms >= 1e3:
        return f"{ms / 1e3:.1f} s"
    return f"{ms:.1f} ms" if ms >= 10 else f"{ms:.3f} ms"


def read_timing_trap(naive_ms: float, synced_ms: float) -> str:
    """Read a naive host timing against a synchronized timing of the same work."""
    ratio = naive_ms / synced_ms
    if ratio < 0.5:
        return (f"The naive clock read {_ms(naive_ms)}, {ratio:.1%} of the synchronized {_ms(synced_ms)}: it stopped "
                "while the work was still queued, so it missed most of it.")
    if ratio <= 1.5:
        return (f"The two agree ({_ms(naive_ms)} against {_ms(synced_ms)}): the naive clock included the work, "
                "because something inside waited for it (an implicit synchronization such as .item()) or the "
                "device finished it before returning (a CPU does).")
    # More than the synchronized figure: the naive call paid costs the synchronized one no longer had to.
    return (f"The naive figure ({_ms(naive_ms)}) is {ratio:.1f}x the synchronized one ({_ms(synced_ms)}): it "
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


def read_speedup(speedup: float, what: str) -> str:
    """Read ``speedup`` (baseline time / new time, so above 1 is faster) of ``what`` (e.g. "autocast")."""
    low, high = SAME_SPEED
    if speedup >= high:
        return f"{what} was {speedup:.2f}x as fast here: it helped."
    if speedup > low:
        return f"{what} ran at about the same speed here ({speedup:.2f}x): no real gain."
    return f"{what} was {speedup:.2f}x here: it did not help, it made this slower."


def read_matmul_speedup(speedup: float, dtype_name: str, device_type: str) -> str:
    """Read a 16-bit matmul's throughput against float32's on ``device_type`` ("cuda" or "cpu")."""
    verdict = read_speedup(speedup, f"A {dtype_name} matmul")
    if speedup >= SAME_SPEED[1]:
        if device_type == "cuda":
            return verdict + " This GPU runs 16-bit matrix multiplies on tensor cores."
        return verdict + (f" This CPU multiplies {dtype_name} matrices faster than float32 ones ({dtype_name} "
                          "instructions, or just half the bytes to move).")
    if device_type == "cpu":
        return verdict + f" This CPU has no fast {dtype_name} instructions to use, so it gains nothing from 16 bits."
    return verdict + " This GPU has no fast 16-bit units (tensor cores) for it, or the matrix is too small to keep " \
                     "them busy."


def read_autocast_step(step_speedup: float, matmul_speedup: float | None, config: str,
                       device_type: str = "cuda") -> str:
    """Read autocast's speed-up of a whole training step of ``config`` on ``device_type`` ("cuda" or "cpu"), next to
    the 16-bit matmul speed-up of the same device (None where it was not measured)."""
    verdict = read_speedup(step_speedup, f"Autocast on the training step ({config})")
    if step_speedup >= SAME_SPEED[1]:
        if matmul_speedup is not None and matmul_speedup < SAME_SPEED[1]:
            # Contradicts the matmul figure: say so rather than explain it away with tensor cores.
            return verdict + (f" Yet 16-bit matmuls alone were not faster on this device ({matmul_speedup:.2f}x), so "
                              "the gain came from elsewhere in the step, or from noise: another program busy on this "
                              "machine changes such timings. Run the cell again before believing it.")
        return verdict + " Enough of this step is arithmetic for faster 16-bit matrix multiplies to show."
    if matmul_speedup is not None and matmul_speedup >= SAME_SPEED[1] and device_type != "cuda":
        # A CPU runs each operation before returning: there is no queue for the host to fall behind, so "host-bound"
        # would explain nothing. What is left is the rest of the step, or noise.
        return verdict + (f" Yet 16-bit matmuls alone ran {matmul_speedup:.1f}x as fast on this CPU: the rest of the "
                          "step (the casts, the optimizer, elementwise work this CPU does slowly in 16 bits) "
                          "outweighed them, or the timings are noisy (another program busy on this machine changes "
                          "them). Run the cell again before believing it.")
    if matmul_speedup is not None and matmul_speedup >= 2:
        return verdict + (f" Yet 16-bit matmuls run {matmul_speedup:.1f}x as fast on this device: this step has too "
                          "little arithmetic for that to matter. Its time goes to launching many small kernels from "
                          "Python (it is host-bound), and autocast adds cast kernels to launch. More work per step "
                          "(a bigger batch, wider layers) is where autocast pays.")
    return verdict + (" 16-bit arithmetic is not faster on this device, so autocast only adds the work of casting; "
                      "its gains belong to GPUs with tensor cores.")


def read_compile(first_ms: float, compiled_ms: float, eager_ms: float, backend: str = "inductor") -> str:
    """Read a compiled model's first call and steady call against the eager model's steady call; ``backend`` is the
    one it was compiled with."""
    first = (f"The first compiled call took {_ms(first_ms)}, {first_ms / compiled_ms:,.0f}x a steady compiled call: "
             "that is the compilation.")
    speedup = eager_ms / compiled_ms
    if backend != "inductor":
        # Backends such as "eager" generate no code: a steady-state difference is overhead or noise, not fusion.
        return first + (f" The {backend!r} backend generates no code, so compiled calls run the same kernels as "
                        f"eager plus Dynamo's guard checks ({speedup:.2f}x here): no speed-up is to be expected.")
    if speedup >= SAME_SPEED[1]:
        calls = (first_ms - compiled_ms) / (eager_ms - compiled_ms)
        return first + (f" In the steady state compiled runs {speedup:.2f}x as fast as eager ({_ms(compiled_ms)} "
                        f"against {_ms(eager_ms)}), so the compilation pays for itself after about {calls:,.0f} calls.")
    if speedup > SAME_SPEED[0]:
        return first + (f" In the steady state compiled and eager run at about the same speed ({speedup:.2f}x): "
                        "the compilation buys nothing here.")
    return first + (f" In the steady state compiled is slower than eager ({speedup:.2f}x: {_ms(compiled_ms)} against "
                    f"{_ms(eager_ms)}): a model this small leaves little to fuse, and each compiled call adds its own "
                    "overhead (checking the guards, Dynamo's wrapper). The compilation never pays back here.")


def read_workers(epoch_s: dict[int, float]) -> str:
    """Read the epoch times of a DataLoader over tensors already in memory, by ``num_workers`` (0 must be there)."""
    base = epoch_s[0]
    low, high = SAME_SPEED
    faster = [w for w, s in sorted(epoch_s.items()) if w and s <= base * low]
    slower = [w for w, s in sorted(epoch_s.items()) if w and s >= base * high]
    parts = []
    if slower:
        parts.append(f"{_workers(slower)} cost more than they saved (start-up and copies between processes)")
    if faster:
        best = min(faster, key=epoch_s.get)
        parts.append(f"{_workers(faster)} saved time ({epoch_s[best]:.2f} s against {base:.2f} s with none): on "
                     "enough cores, workers take over the per-sample Python work")
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
