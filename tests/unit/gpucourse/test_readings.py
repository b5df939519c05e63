"""The sentence choosers of gpucourse.readings read real figures truthfully: the H200's (tests/data/h200_figures.toml,
each quoted from the run it cites), a T4-like and a CPU-like one. The H200 figures are the ones the course's fixed
prose contradicted (issue 34), so each test here would have caught that prose."""

from __future__ import annotations

import json
import re
import tomllib
from pathlib import Path

import pytest

from gpucourse import readings

ROOT = Path(__file__).resolve().parents[3]
H200 = tomllib.loads((ROOT / "tests/data/h200_figures.toml").read_text())
RUN = ROOT.parent / "shared/gpu-runs/2026-12-04-h200"


# --- timing: 03 ----------------------------------------------------------------------------------------------------
def test_naive_timing_that_missed_the_work_says_so():
    t = H200["timing"]
    text = readings.read_timing_trap(t["naive_ms"], t["synced_ms"])
    assert "missed most of it" in text and "0.493 ms" in text


def test_a_cold_naive_timing_above_the_synced_one_is_not_read_as_missing_the_work():
    t = H200["timing"]   # 26.8 ms naive against 2.97 ms: the first call paid one-off costs
    text = readings.read_timing_trap(t["cold_naive_ms"], t["cold_item_ms"])
    assert "missed" not in text
    assert "one-off" in text and "Warm up" in text


def test_timing_t4_like_and_cpu_like():
    assert "missed most of it" in readings.read_timing_trap(0.05, 130.0)      # T4: 10 matmuls queued in 50 µs
    cpu = readings.read_timing_trap(101.0, 100.0)                             # a CPU finishes before returning
    assert "agree" in cpu and "missed" not in cpu


# --- bandwidth: 02 -------------------------------------------------------------------------------------------------
def test_h200_pinned_bandwidth_names_a_link_at_least_gen5():
    text = readings.read_bandwidth(H200["bandwidth"]["pinned_gbps"], "pinned")
    assert "at least PCIe Gen5 x16" in text and "above PCIe Gen4 x16" in text
    assert "below" not in text and "fits a PCIe Gen3" not in text


def test_h200_pageable_bandwidth_is_read_as_a_host_figure():
    text = readings.read_bandwidth(H200["bandwidth"]["pageable_gbps"], "pageable")
    assert "staged through a pinned buffer" in text and "8.9 GB/s" in text and "Gen3" not in text
    assert "at least PCIe Gen4" in readings.read_bandwidth(20.0, "pageable")


def test_bandwidth_t4_like_cpu_like_and_beyond_pcie():
    t4 = readings.read_bandwidth(12.3, "pinned")
    assert "fits a PCIe Gen3 x16 link" in t4 and "78%" in t4
    assert "at least PCIe Gen4" in readings.read_bandwidth(25.0, "pinned")
    assert "something faster than PCIe" in readings.read_bandwidth(120.0, "pinned")
    cpu = readings.read_bandwidth(6.0, "host")
    assert "no PCIe link is crossed" in cpu
    with pytest.raises(ValueError):
        readings.read_bandwidth(1.0, "pcie")


# --- autocast: 04 --------------------------------------------------------------------------------------------------
def test_h200_matmul_speedup_is_read_as_a_gain():
    m = H200["matmul"]
    text = readings.read_matmul_speedup(m["fp16_tflops"] / m["fp32_tflops"], "float16", "cuda")
    assert "it helped" in text and "12.73x" in text and "tensor cores" in text


def test_matmul_speedup_cpu_like_without_16_bit_units():
    text = readings.read_matmul_speedup(0.3, "bfloat16", "cpu")
    assert "did not help" in text and "no fast bfloat16 instructions" in text
    assert "it helped" in readings.read_matmul_speedup(7.9, "float16", "cuda")     # T4: 65 against 8.1 TFLOPS
    cpu_fast = readings.read_matmul_speedup(1.8, "bfloat16", "cpu")                 # a CPU with bf16 instructions
    assert "it helped" in cpu_fast and "no fast" not in cpu_fast and "tensor cores" not in cpu_fast


def test_h200_small_step_autocast_slowdown_is_read_as_host_bound_only_where_that_was_measured():
    """08 measured the H200's small step host-bound (8x the batch in 0.90x the time): with that diagnosis the sentence
    says so; without one it must not (issue 41: 04 used to assert "host-bound" without measuring it)."""
    m, a = H200["matmul"], H200["autocast"]
    text = readings.read_autocast_step(a["mlp256_step_speedup"], m["fp16_tflops"] / m["fp32_tflops"], "MLP 256",
                                       bound="host")
    assert "did not help" in text and "helped" not in text.replace("did not help", "")
    assert "measured host-bound" in text and "More work per step" in text
    unmeasured = readings.read_autocast_step(a["mlp256_step_speedup"], m["fp16_tflops"] / m["fp32_tflops"],
                                             "MLP 256")
    assert "host-bound" not in unmeasured and "was not measured" in unmeasured and "More work" not in unmeasured


def test_h200_wide_step_autocast_gain_is_read_as_a_gain():
    m, a = H200["matmul"], H200["autocast"]
    text = readings.read_autocast_step(a["mlp4096_step_speedup"], m["fp16_tflops"] / m["fp32_tflops"], "MLP 4096")
    assert "it helped" in text and "1.27x" in text and "host-bound" not in text


def test_autocast_step_t4_like_and_cpu_like():
    assert "it helped" in readings.read_autocast_step(2.1, 7.9, "wide MLP")
    cpu = readings.read_autocast_step(0.5, 0.3, "MLP 256")
    assert "did not help" in cpu and "not faster on this device" in cpu and "host-bound" not in cpu
    assert "about the same" in readings.read_autocast_step(1.02, None, "MLP 256")
    cpu_wide = readings.read_autocast_step(0.57, 2.6, "MLP 1024", "cpu")   # measured on this 2-core CPU, under load
    assert "did not help" in cpu_wide and "host-bound" not in cpu_wide and "Run the cell again" in cpu_wide
    noisy = readings.read_autocast_step(2.95, 0.5, "MLP 256")     # a busy 2-core CPU: the step figure is not credible
    assert "Run the cell again" in noisy and "Enough of this step is arithmetic" not in noisy


# --- compile: 07 ---------------------------------------------------------------------------------------------------
def test_h200_compiled_forward_slower_than_eager_is_read_as_no_gain():
    c = H200["compile"]
    text = readings.read_compile(c["first_ms"], c["compiled_ms"], c["eager_ms"])
    assert "4.1 s" in text and "slower than eager" in text and "never pays back" in text
    assert "pays for itself" not in text


def test_h200_compiled_step_speedup_is_read_as_a_slowdown():
    text = readings.read_speedup(H200["compile"]["step_speedup"], "The compiled training step")
    assert "did not help" in text and "0.80x" in text


def test_compile_t4_like_and_cpu_like():
    gain = readings.read_compile(first_ms=30_000.0, compiled_ms=2.0, eager_ms=3.0)     # a CPU where fusion pays
    assert "1.50x as fast" in gain and "after about 29,998 calls" in gain
    same = readings.read_compile(first_ms=5_000.0, compiled_ms=1.0, eager_ms=1.02)
    assert "about the same speed" in same
    assert "250.0 ms" in readings.read_compile(first_ms=250.0, compiled_ms=1.0, eager_ms=0.5)   # a cached recompile
    eager_backend = readings.read_compile(485.7, 136.1, 114.1, backend="eager")      # quick mode on a busy CPU
    assert "generates no code" in eager_backend and "little to fuse" not in eager_backend


# --- workers: 02 ---------------------------------------------------------------------------------------------------
def test_h200_workers_in_memory_some_cost_more_and_four_saved_time():
    epochs = {int(k): v for k, v in H200["workers"]["next_epoch_s"].items()}
    text = readings.read_workers(epochs)
    assert "1 and 2 workers cost more" in text and "4 workers saved time (0.26 s against 0.32 s" in text


def test_workers_two_core_like_and_noise():
    assert "saved time" not in readings.read_workers({0: 0.30, 1: 0.55, 2: 0.50})
    assert "changed nothing" in readings.read_workers({0: 0.30, 2: 0.31})


# --- GradScaler: 05 ------------------------------------------------------------------------------------------------
def test_skips_that_were_not_injected_are_read_as_real_overflows():
    # 05's s6-trajectory on the H200 printed "11 of 150 steps skipped" for 9 injected overflows; its figure shows
    # the other two at scale 2**17 (factcheck.md, item 3).
    injected = {3, 4, 5, 27, 28, 44, 80, 81, 120}
    scales = [2.0**16] * 150
    scales[113] = scales[141] = 2.0**17
    text = readings.read_skips(sorted(injected | {113, 141}), injected, scales)
    assert text.startswith("Of the 11 skipped steps, 9 were at the 9 steps") and "2 where a real gradient" in text
    assert "2**17" in text
    assert "none where" in readings.read_skips([3, 4], {3, 4}, [2.0**16] * 10)


# --- the fixture is what the H200 printed --------------------------------------------------------------------------
QUOTES = [   # (notebook, cell id, a pattern whose groups are the fixture's figures, the figures' keys)
    ("03_async_timing", "s1-gpu", r"naive ([\d.]+) ms, synchronized ([\d.]+) ms",
     ("timing.naive_ms", "timing.synced_ms")),
    ("03_async_timing", "myth-time-demo", r"naively: ([\d.]+) ms; the same ending in .item\(\): ([\d.]+) ms",
     ("timing.cold_naive_ms", "timing.cold_item_ms")),
    ("02_transfers", "s2-measure", r"pinned \(measured\): [\d.]+ GB/s at 1,024 B, ([\d.]+) GB/s",
     ("bandwidth.pinned_gbps",)),
    ("02_transfers", "s2-measure", r"pageable \(measured\): [\d.]+ GB/s at 1,024 B, ([\d.]+) GB/s",
     ("bandwidth.pageable_gbps",)),
    ("04_autocast", "s4-throughput", r"float32\s+([\d.]+) TFLOPS", ("matmul.fp32_tflops",)),
    ("04_autocast", "s4-throughput", r"float16\s+([\d.]+) TFLOPS", ("matmul.fp16_tflops",)),
    ("07_compile", "s4-demo", r"eager\s+: first call\s+[\d.]+ ms, steady median\s+([\d.]+)", ("compile.eager_ms",)),
    ("07_compile", "s4-demo", r"compiled \(inductor\)\s*: first call\s+([\d.]+) ms, steady median\s+([\d.]+)",
     ("compile.first_ms", "compile.compiled_ms")),
    ("07_compile", "s5-demo", r"measured just now: ([\d.]+)x", ("compile.step_speedup",)),
]


def _cell_text(notebook: str, cell_id: str) -> str:
    cells = json.loads((RUN / "executed" / f"{notebook}.ipynb").read_text())["cells"]
    cell = next(c for c in cells if c.get("id") == cell_id)
    return "".join("".join(o.get("text", "")) for o in cell.get("outputs", []))


@pytest.mark.skipif(not RUN.is_dir(), reason="the H200 run's folder (../shared/gpu-runs/2026-12-04-h200) is not here")
@pytest.mark.parametrize(("notebook", "cell_id", "pattern", "keys"), QUOTES, ids=[q[0] + ":" + q[1] for q in QUOTES])
def test_fixture_quotes_the_executed_notebooks(notebook, cell_id, pattern, keys):
    match = re.search(pattern, _cell_text(notebook, cell_id))
    assert match, f"{notebook} {cell_id}: {pattern!r} not found"
    for key, printed in zip(keys, match.groups(), strict=True):
        section, name = key.split(".")
        assert H200[section][name] == pytest.approx(float(printed)), key


@pytest.mark.skipif(not RUN.is_dir(), reason="the H200 run's folder (../shared/gpu-runs/2026-12-04-h200) is not here")
def test_fixture_quotes_the_direct_measurements():
    direct = json.loads((RUN / "gpu-results.json").read_text())["direct"]
    assert H200["autocast"]["mlp256_step_speedup"] == direct["mlp256_autocast_speedup"]
    assert H200["autocast"]["mlp4096_step_speedup"] == direct["mlp4096_autocast_speedup"]
