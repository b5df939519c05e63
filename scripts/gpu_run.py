#!/usr/bin/env python
"""Run the course on a real CUDA GPU and publish what it measured: ``docs/gpu-results.md``.

    python scripts/gpu_run.py                 # everything, on a machine with a CUDA GPU
    python scripts/gpu_run.py --skip-grading  # notebooks, CUDA tests and measurements only

On a CUDA machine, in order:

1. every ``solutions/*.ipynb`` runs top to bottom in full mode (``COURSE_QUICK=0``) in a fresh
   kernel; its wall time is kept, and every line it prints of the form ``RESULT key = value``
   (see RESULT CONVENTION below) is collected;
2. a few direct measurements that do not depend on the notebooks: host-to-device bandwidth from
   pageable and pinned memory, naive versus synchronized versus CUDA-event timing of a matmul,
   matmul throughput in float32 / TF32 / float16 / bfloat16, and one MLP training step eager,
   under autocast and compiled;
3. ``pytest -m cuda`` (tests/unit/gpucourse/test_cuda.py and any other test marked ``cuda``);
4. grading, as an instructor who grades on a GPU would: ``graders.qa.selftest`` grades the reference
   solutions, a correct student, the untouched student copies and every mistake fixture with real
   nbgrader, and checks that every score equals the one the CPU grader gives (the expectations are
   the CPU run's scores; with ``--cpu-grades`` a CPU run's ``grades.csv`` is compared row by row too);
5. ``docs/gpu-results.md``: GPU, driver, torch and CUDA versions, date; per-notebook wall time; the
   collected and measured figures; test and grading results.

Without a CUDA GPU it says so and exits with status 2, having changed nothing.

RESULT CONVENTION. A notebook publishes a measured figure by printing one line::

    print(f"RESULT h2d_pinned_gbps = {gbps:.1f} GB/s")

``RESULT``, a key (letters, digits, ``_ . -``), ``=``, then the value as text (number first, unit
after it). The key is reported under the notebook that printed it; a later line with the same
key wins. The keys this page knows by name are listed in ``EXPECTED`` below (others are reported
too, in a table of their own).
"""

from __future__ import annotations

import argparse
import csv
import datetime as dt
import functools
import json
import os
import platform
import re
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

REPO = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(REPO))

RESULT_LINE = re.compile(r"^RESULT\s+([A-Za-z0-9_.\-]+)\s*=\s*(.+?)\s*$", re.M)

#: The figures the results page asks the notebooks for: (notebook, key, what it is).
EXPECTED = [
    ("02_transfers", "h2d_pageable_gbps", "host-to-device bandwidth from pageable memory"),
    ("02_transfers", "h2d_pinned_gbps", "host-to-device bandwidth from pinned memory"),
    ("03_async_timing", "matmul_naive_ms", "matmul timed naively (no synchronize)"),
    ("03_async_timing", "matmul_synced_ms", "the same matmul, synchronized"),
    ("03_async_timing", "matmul_events_ms", "the same matmul, CUDA events"),
    ("04_autocast", "matmul_tflops_fp32", "matmul throughput, float32"),
    ("04_autocast", "matmul_tflops_tf32", "matmul throughput, TF32"),
    ("04_autocast", "matmul_tflops_fp16", "matmul throughput, float16"),
    ("04_autocast", "autocast_speedup", "training step speed-up from autocast"),
    ("07_compile", "compile_first_ms", "first call of the compiled model (compilation included)"),
    ("07_compile", "compile_steady_ms", "steady-state call, compiled"),
    ("07_compile", "eager_ms", "steady-state call, eager"),
    ("07_compile", "compile_speedup", "compile speed-up (eager / compiled)"),
    ("08_throughput", "eps_cpu", "examples per second: CPU"),
    ("08_throughput", "eps_gpu_fp32", "examples per second: GPU float32"),
    ("08_throughput", "eps_gpu_amp", "examples per second: GPU mixed precision"),
    ("08_throughput", "eps_gpu_compiled", "examples per second: GPU compiled"),
    ("08_throughput", "final_test_accuracy", "final run: test accuracy"),
    ("08_throughput", "final_eps", "final run: examples per second"),
]


# ---------------------------------------------------------------------------------------------
# Facts about the machine
# ---------------------------------------------------------------------------------------------
def nvidia_smi(query: str) -> str:
    try:
        out = subprocess.run(["nvidia-smi", f"--query-gpu={query}", "--format=csv,noheader"],
                             capture_output=True, text=True, timeout=30)
        return out.stdout.strip().splitlines()[0] if out.returncode == 0 and out.stdout.strip() else "unknown"
    except (OSError, subprocess.TimeoutExpired):
        return "unknown (no nvidia-smi)"


def machine() -> dict:
    import torch

    props = torch.cuda.get_device_properties(0)
    major, minor = torch.cuda.get_device_capability(0)
    return {
        "gpu": props.name, "capability": f"{major}.{minor}", "gpu_memory_gib": round(props.total_memory / 2**30, 1),
        "gpus": torch.cuda.device_count(), "driver": nvidia_smi("driver_version"),
        "pcie": nvidia_smi("pcie.link.gen.current,pcie.link.width.current"),
        "torch": torch.__version__, "cuda": torch.version.cuda, "cudnn": torch.backends.cudnn.version(),
        "python": platform.python_version(), "cpus": os.cpu_count(), "host": platform.platform(),
        "date": dt.datetime.now(dt.UTC).strftime("%Y-%m-%d %H:%M UTC"),
    }


# ---------------------------------------------------------------------------------------------
# 1. The notebooks, full mode
# ---------------------------------------------------------------------------------------------
def run_notebook(path: Path, executed: Path, timeout: int) -> dict:
    import nbformat
    from nbclient import NotebookClient

    nb = nbformat.read(str(path), as_version=4)
    env_before = dict(os.environ)
    os.environ.update({"COURSE_QUICK": "0"})
    for name in ("NBGRADER_EXECUTION", "CI", "MPLBACKEND"):
        os.environ.pop(name, None)
    start = time.perf_counter()
    error = ""
    try:
        with tempfile.TemporaryDirectory(prefix=f"gpu-run-{path.stem}-") as work:
            NotebookClient(nb, timeout=timeout, kernel_name="python3",
                           resources={"metadata": {"path": work}}).execute()
    except Exception as exc:  # the notebook failed: keep what ran, report it
        error = f"{type(exc).__name__}: {(str(exc).strip().splitlines() or [''])[-1][:300]}"
    finally:
        os.environ.clear()
        os.environ.update(env_before)
    seconds = time.perf_counter() - start
    executed.mkdir(parents=True, exist_ok=True)
    nbformat.write(nb, str(executed / path.name))
    text = "\n".join(out.get("text", "") for cell in nb.cells if cell.cell_type == "code"
                     for out in cell.get("outputs", []) if out.get("output_type") == "stream")
    results = {key: value for key, value in RESULT_LINE.findall(text)}
    device = re.search(r"^Device: (\S+)", text, re.M)
    return {"name": path.stem, "seconds": seconds, "error": error, "results": results,
            "device": device.group(1) if device else "?", "standin": "OFFLINE STAND-IN" in text}


# ---------------------------------------------------------------------------------------------
# 2. Direct measurements
# ---------------------------------------------------------------------------------------------
def events_ms(fn, repeats: int = 10, warmup: int = 3) -> float:
    import torch

    for _ in range(warmup):
        fn()
    times = []
    for _ in range(repeats):
        start, end = torch.cuda.Event(enable_timing=True), torch.cuda.Event(enable_timing=True)
        start.record()
        fn()
        end.record()
        end.synchronize()
        times.append(start.elapsed_time(end))
    return statistics.median(times)


def train_step(fwd, opt, scaler, x, y, amp_dtype, autocast: bool) -> None:
    """One step of the course's training loop, under autocast to ``amp_dtype`` or in float32."""
    import torch

    opt.zero_grad(set_to_none=True)
    with torch.autocast("cuda", dtype=amp_dtype, enabled=autocast):
        loss = torch.nn.functional.cross_entropy(fwd(x), y)
    scaler.scale(loss).backward()
    scaler.step(opt)
    scaler.update()


def measure() -> dict:
    import torch

    m: dict = {}
    # host-to-device bandwidth, 256 MiB, pageable versus pinned
    nbytes = 256 << 20
    dst = torch.empty(nbytes, dtype=torch.uint8, device="cuda")
    for kind, pin in (("pageable", False), ("pinned", True)):
        src = torch.ones(nbytes, dtype=torch.uint8, pin_memory=pin)
        copy = functools.partial(dst.copy_, src, non_blocking=True)
        m[f"h2d_{kind}_gbps"] = nbytes / (events_ms(copy, 5, 2) * 1e-3) / 1e9
    # naive versus synchronized versus events: one 8192 x 8192 float32 matmul
    n = 8192
    a, b = torch.randn(n, n, device="cuda"), torch.randn(n, n, device="cuda")
    torch.backends.cuda.matmul.allow_tf32 = False
    for _ in range(3):
        a @ b
    torch.cuda.synchronize()
    t0 = time.perf_counter()
    a @ b
    m["matmul_naive_ms"] = (time.perf_counter() - t0) * 1e3
    torch.cuda.synchronize()
    synced = []
    for _ in range(10):
        torch.cuda.synchronize()
        t0 = time.perf_counter()
        a @ b
        torch.cuda.synchronize()
        synced.append((time.perf_counter() - t0) * 1e3)
    m["matmul_synced_ms"] = statistics.median(synced)
    m["matmul_events_ms"] = events_ms(lambda: a @ b)
    flop = 2 * n**3
    m["matmul_tflops_fp32"] = flop / (m["matmul_events_ms"] * 1e-3) / 1e12
    torch.backends.cuda.matmul.allow_tf32 = True
    m["matmul_tflops_tf32"] = flop / (events_ms(lambda: a @ b) * 1e-3) / 1e12
    torch.backends.cuda.matmul.allow_tf32 = False
    for name, dtype in (("fp16", torch.float16), ("bf16", torch.bfloat16)):
        ah, bh = a.to(dtype), b.to(dtype)
        m[f"matmul_tflops_{name}"] = flop / (events_ms(functools.partial(torch.matmul, ah, bh)) * 1e-3) / 1e12
    # one training step of the course's MLP (and a wider one), eager, autocast, compiled
    from gpucourse.model import make_mlp

    amp_dtype = torch.bfloat16 if torch.cuda.get_device_capability(0) >= (8, 0) else torch.float16
    m["amp_dtype"] = str(amp_dtype).replace("torch.", "")
    for label, hidden in (("mlp256", 256), ("mlp4096", 4096)):
        x = torch.randn(4096, 1, 28, 28, device="cuda")
        y = torch.randint(0, 10, (4096,), device="cuda")
        for mode in ("fp32", "amp", "compiled_amp"):
            torch._dynamo.reset()
            model = make_mlp(hidden=hidden).cuda()
            opt = torch.optim.AdamW(model.parameters(), lr=1e-3)
            scaler = torch.amp.GradScaler("cuda", enabled=amp_dtype == torch.float16 and mode != "fp32")
            fwd = torch.compile(model) if mode == "compiled_amp" else model
            step = functools.partial(train_step, fwd, opt, scaler, x, y, amp_dtype, mode != "fp32")

            t0 = time.perf_counter()
            step()
            torch.cuda.synchronize()
            if mode == "compiled_amp":
                m[f"{label}_compile_first_ms"] = (time.perf_counter() - t0) * 1e3
            ms = events_ms(step, repeats=20, warmup=5)
            m[f"{label}_{mode}_eps"] = 4096 / (ms * 1e-3)
        m[f"{label}_autocast_speedup"] = m[f"{label}_amp_eps"] / m[f"{label}_fp32_eps"]
        m[f"{label}_compile_speedup"] = m[f"{label}_compiled_amp_eps"] / m[f"{label}_amp_eps"]
    torch._dynamo.reset()
    torch.cuda.empty_cache()
    return m


# ---------------------------------------------------------------------------------------------
# 3. and 4. Tests and grading
# ---------------------------------------------------------------------------------------------
def run_cuda_tests() -> dict:
    start = time.perf_counter()
    proc = subprocess.run([sys.executable, "-m", "pytest", "-m", "cuda", "-q", "-rs", "-p", "no:cacheprovider"],
                          cwd=REPO, capture_output=True, text=True, timeout=1800)
    lines = (proc.stdout + proc.stderr).strip().splitlines()
    return {"returncode": proc.returncode, "summary": lines[-1] if lines else "", "tail": "\n".join(lines[-30:]),
            "seconds": time.perf_counter() - start}


def grading_devices(out: Path) -> dict[str, int]:
    """Which device the grading kernels reported in their set-up cell (``Device: ...``)."""
    seen: dict[str, int] = {}
    for path in out.rglob("autograded/*/*/*.ipynb"):
        text = path.read_text(encoding="utf-8", errors="replace")
        match = re.search(r"Device: (\w+)", text)
        key = match.group(1) if match else "?"
        seen[key] = seen.get(key, 0) + 1
    return seen


def compare_csv(cpu_csv: Path, gpu_csv: Path) -> list[str]:
    def load(path):
        with open(path, newline="") as f:
            return {(r["student_id"], r["notebook"]): (r["score"], r["status"]) for r in csv.DictReader(f)}

    cpu, gpu = load(cpu_csv), load(gpu_csv)
    problems = [f"{k[0]}/{k[1]}: CPU {cpu.get(k)} GPU {gpu.get(k)}" for k in sorted(set(cpu) | set(gpu))
                if cpu.get(k) != gpu.get(k)]
    return problems


def run_grading(names: list[str], work: Path, cpu_grades: Path | None) -> dict:
    from graders.qa.selftest import selftest

    start = time.perf_counter()
    out = work / "selftest"
    problems = selftest(names, out)
    result = {"problems": problems, "seconds": time.perf_counter() - start, "devices": grading_devices(out)}
    gpu_csv = out / "graded" / "grades.csv"
    rows = list(csv.DictReader(open(gpu_csv, newline=""))) if gpu_csv.exists() else []
    result["rows"] = len(rows)
    if cpu_grades is not None:
        cpu_csv = cpu_grades / "graded" / "grades.csv" if cpu_grades.is_dir() else cpu_grades
        result["csv_problems"] = compare_csv(cpu_csv, gpu_csv)
    return result


# ---------------------------------------------------------------------------------------------
# 5. The page
# ---------------------------------------------------------------------------------------------
def fmt(value) -> str:
    if isinstance(value, float):
        return f"{value:,.0f}" if abs(value) >= 1000 else f"{value:.3g}" if abs(value) < 10 else f"{value:.1f}"
    return str(value)


def page(info: dict, notebooks: list[dict], direct: dict, tests: dict | None, grading: dict | None) -> str:
    lines = ["# The course on a real GPU", "",
             f"Measured by `python scripts/gpu_run.py` on {info['date']}. Figures are from this one machine;",
             "a Colab T4 is several times slower, and your own run is the figure to trust.", "",
             "| | |", "|---|---|"]
    for label, key in (("GPU", "gpu"), ("compute capability", "capability"), ("GPU memory (GiB)", "gpu_memory_gib"),
                       ("NVIDIA driver", "driver"), ("PCIe link (gen, width)", "pcie"), ("torch", "torch"),
                       ("CUDA (torch build)", "cuda"), ("cuDNN", "cudnn"), ("Python", "python"),
                       ("CPU cores", "cpus"), ("date", "date")):
        lines.append(f"| {label} | {info[key]} |")
    lines += ["", "## Notebooks, full mode (`COURSE_QUICK=0`)", "",
              "| notebook | wall time (s) | device | status |", "|---|---:|---|---|"]
    for nb in notebooks:
        status = "ran to the end" if not nb["error"] else f"FAILED: {nb['error']}"
        lines.append(f"| `{nb['name']}` | {nb['seconds']:.0f} | {nb['device']} | {status} |")
    if any(nb["standin"] for nb in notebooks):
        lines += ["", "No network on this machine: the training runs used the offline stand-in data set, so their "
                  "accuracies are not Fashion-MNIST's (throughput figures are unaffected)."]

    by_nb = {nb["name"]: nb["results"] for nb in notebooks}
    lines += ["", "## Figures the notebooks printed (`RESULT key = value`)", "",
              "| notebook | figure | key | value |", "|---|---|---|---|"]
    known = set()
    for name, key, what in EXPECTED:
        known.add((name, key))
        value = by_nb.get(name, {}).get(key, "(not reported)")
        lines.append(f"| `{name}` | {what} | `{key}` | {value} |")
    extra = [(name, key, value) for name, res in by_nb.items() for key, value in res.items()
             if (name, key) not in known]
    for name, key, value in extra:
        lines.append(f"| `{name}` | | `{key}` | {value} |")

    d = direct
    lines += ["", "## Direct measurements (this script, independent of the notebooks)", "",
              "### Host-to-device bandwidth (256 MiB, CUDA events)", "",
              "| source memory | GB/s |", "|---|---:|",
              f"| pageable | {fmt(d['h2d_pageable_gbps'])} |", f"| pinned | {fmt(d['h2d_pinned_gbps'])} |", "",
              f"Pinned / pageable: {d['h2d_pinned_gbps'] / d['h2d_pageable_gbps']:.2f}x.", "",
              "### Timing one 8192 x 8192 float32 matmul", "",
              "| method | ms |", "|---|---:|",
              f"| `time.perf_counter()` without synchronize (naive) | {d['matmul_naive_ms']:.3f} |",
              f"| synchronized at both ends (median of 10) | {d['matmul_synced_ms']:.3f} |",
              f"| CUDA events (median of 10) | {d['matmul_events_ms']:.3f} |", "",
              "### Matmul throughput (8192 x 8192, TFLOPS)", "", "| dtype | TFLOPS |", "|---|---:|"]
    for name in ("fp32", "tf32", "fp16", "bf16"):
        lines.append(f"| {name} | {fmt(d['matmul_tflops_' + name])} |")
    lines += ["", f"### One training step, batch 4096 (autocast dtype: {d['amp_dtype']})", "",
              "| model | float32 (ex/s) | autocast (ex/s) | compiled + autocast (ex/s) | autocast speed-up "
              "| compile speed-up | first compiled step (ms) |", "|---|---:|---:|---:|---:|---:|---:|"]
    for label, title in (("mlp256", "course MLP, hidden 256"), ("mlp4096", "wider MLP, hidden 4096")):
        lines.append(f"| {title} | {fmt(d[label + '_fp32_eps'])} | {fmt(d[label + '_amp_eps'])} | "
                     f"{fmt(d[label + '_compiled_amp_eps'])} | {d[label + '_autocast_speedup']:.2f}x | "
                     f"{d[label + '_compile_speedup']:.2f}x | {d[label + '_compile_first_ms']:.0f} |")

    lines += ["", "## Tests marked `cuda`", ""]
    if tests is None:
        lines.append("Not run (`--skip-tests`).")
    else:
        lines += [f"`pytest -m cuda`: {tests['summary']} ({tests['seconds']:.0f} s).", ""]
        if tests["returncode"] != 0:
            lines += ["```", tests["tail"], "```"]
    lines += ["", "## Grading on this GPU machine with real nbgrader", ""]
    if grading is None:
        lines.append("Not run (`--skip-grading`).")
    else:
        devices = ", ".join(f"{k}: {v}" for k, v in sorted(grading["devices"].items())) or "none found"
        verdict = ("every score equals the CPU grader's" if not grading["problems"]
                   else f"{len(grading['problems'])} score(s) differ from the CPU grader's")
        lines += [f"Reference solutions, correct students, untouched student copies and every mistake fixture "
                  f"({grading['rows']} graded notebooks, {grading['seconds']:.0f} s): **{verdict}**.",
                  f"Device the grading kernels reported: {devices}."]
        if "cuda" not in grading["devices"]:
            lines.append("The grading kernels did not see the GPU, so this grading ran their CPU paths. "
                         "A likely cause: the grader's address-space limit (`GRADER_MEMORY_GIB`) is smaller than "
                         "what the CUDA driver reserves; rerun with a larger value to grade on the GPU.")
        lines += [f"- {p}" for p in grading["problems"]]
        if "csv_problems" in grading:
            lines.append("Row-by-row against the CPU run's grades.csv: "
                         + ("identical." if not grading["csv_problems"] else "differences:"))
            lines += [f"- {p}" for p in grading["csv_problems"]]
    return "\n".join(lines) + "\n"


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--out", type=Path, default=REPO / "docs" / "gpu-results.md")
    parser.add_argument("--work", type=Path, default=None, help="scratch folder (default: a temporary one)")
    parser.add_argument("--notebooks", nargs="*", default=None)
    parser.add_argument("--timeout", type=int, default=900, help="seconds per notebook cell")
    parser.add_argument("--skip-notebooks", action="store_true")
    parser.add_argument("--skip-tests", action="store_true")
    parser.add_argument("--skip-grading", action="store_true")
    parser.add_argument("--cpu-grades", type=Path, default=None,
                        help="a CPU run's selftest folder or grades.csv to compare with row by row")
    args = parser.parse_args(argv)

    try:
        import torch
    except ImportError:
        print("gpu_run: torch is not installed; install the course's requirements first. Nothing was changed.")
        return 2
    if not torch.cuda.is_available():
        print(f"gpu_run: no CUDA GPU on this machine (torch {torch.__version__}, built for CUDA "
              f"{torch.version.cuda or 'none'}). This script measures the course on a real GPU; run it where "
              "`nvidia-smi` shows one. Nothing was changed.")
        return 2

    from graders.paths import SOLUTIONS, notebook_names

    names = args.notebooks or notebook_names()
    work = args.work or Path(tempfile.mkdtemp(prefix="gpu-run-"))
    work.mkdir(parents=True, exist_ok=True)
    info = machine()
    print(f"gpu_run: {info['gpu']} (capability {info['capability']}), driver {info['driver']}, torch {info['torch']}",
          flush=True)

    notebooks = []
    if not args.skip_notebooks:
        for name in names:
            print(f"  notebook {name} (full mode) ...", flush=True)
            notebooks.append(run_notebook(SOLUTIONS / f"{name}.ipynb", work / "executed", args.timeout))
            print(f"    {notebooks[-1]['seconds']:.0f} s {notebooks[-1]['error'] or 'ok'}", flush=True)
            for key, value in notebooks[-1]["results"].items():     # e.g. 08's final_test_accuracy, final_eps
                print(f"    RESULT {key} = {value}", flush=True)
    print("  direct measurements ...", flush=True)
    direct = measure()
    tests = None if args.skip_tests else run_cuda_tests()
    if tests:
        print(f"  pytest -m cuda: {tests['summary']}", flush=True)
    grading = None
    if not args.skip_grading:
        print("  grading with nbgrader (selftest) ...", flush=True)
        grading = run_grading(names, work, args.cpu_grades)
        print(f"    {len(grading['problems'])} problem(s); kernels saw {grading['devices']}", flush=True)

    text = page(info, notebooks, direct, tests, grading)
    args.out.parent.mkdir(parents=True, exist_ok=True)
    args.out.write_text(text, encoding="utf-8")
    (work / "gpu-results.json").write_text(json.dumps({"machine": info, "notebooks": notebooks, "direct": direct,
                                                       "tests": tests, "grading": grading}, indent=1, default=str))
    print(f"gpu_run: wrote {args.out} (raw figures in {work / 'gpu-results.json'})")
    ok = (all(not nb["error"] for nb in notebooks) and (tests is None or tests["returncode"] == 0)
          and (grading is None or (not grading["problems"] and not grading.get("csv_problems"))))
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main())
