"""Issue 41: every sentence a reader prints is true of the figures it was given. One noise band for the whole course
(gpucourse.readings.Ratio), read at its edges and from a measurement's own spread; and every reader called at its band
edges and at T4-, H200- and CPU-like figures, with the sentence each must get.

T4-like figures are predictions (no T4 was measured: ../shared/reviews/factcheck-cpu-2026-12-07.md gives them); the
H200's come from tests/data/h200_figures.toml and h200_throughput.json, which cite the run that printed them; the
CPU-like ones are what this course's 2-core test machine printed."""

from __future__ import annotations

import json
import tomllib
from pathlib import Path

import pytest

from gpucourse import readings, throughput
from gpucourse.readings import NOISE_FLOOR, Ratio

ROOT = Path(__file__).resolve().parents[3]
H200 = tomllib.loads((ROOT / "tests/data/h200_figures.toml").read_text())
H = {k: v["value"] for k, v in json.loads((ROOT / "tests/data/h200_throughput.json").read_text()).items()
     if not k.startswith("_")}
EDGE = 1 + NOISE_FLOOR          # the floor band's upper edge, 1.10; its lower edge is 1 / 1.10 = 0.909...
JUST = 1e-9


# --- the band -------------------------------------------------------------------------------------------------------
@pytest.mark.parametrize(("rounds", "above", "below"), [
    (EDGE, False, False), (EDGE + JUST, True, False),               # one figure: only the 10 % floor applies
    (1 / EDGE, False, False), (1 / EDGE - JUST, False, True),
    ((1.1, 1.2, 1.31), True, False),      # rounds 1.19 times apart: 1.2x is outside [1 / 1.19, 1.19]
    ((1.08, 1.2, 1.31), False, False),    # rounds 1.21 times apart: 1.2x is inside [1 / 1.21, 1.21]
    ((0.97, 1.0, 3.88), False, False),    # 07 on a loaded machine: one round's 3.88x decides nothing
    ((0.95, 3.88, 3.9), False, False),    # nor two of three, when the third says 0.95x
    ((3.7, 3.88, 3.9), True, False),
    ((0.6, 0.62, 0.65), False, True),
])
def test_a_ratio_is_a_change_only_outside_its_own_spread_and_the_floor(rounds, above, below):
    r = Ratio.of(rounds)
    assert (r.above, r.below) == (above, below)


def test_the_band_is_symmetric_so_a_against_b_reads_as_b_against_a():
    for rounds in ((1.3, 1.5, 1.9), (1.05, 1.12, 1.2), (0.5, 0.9, 1.1), (1.2,)):
        there, back = Ratio.of(rounds), Ratio.of([1 / r for r in rounds])
        assert (there.above, there.below) == (back.below, back.above)


def test_a_ratio_between_two_measurements_pairs_their_rounds_and_prints_its_spread():
    r = Ratio.between([2.0, 2.2, 1.8], [1.0, 1.0, 1.0])
    assert r.rounds == (2.0, 2.2, 1.8) and r.value == 2.0
    assert r.spread() == " (timed 3 times: 1.80x to 2.20x)" and Ratio.of(2.0).spread() == ""
    with pytest.raises(ValueError):
        Ratio.of([])
    with pytest.raises(ValueError):
        Ratio.between([1.0, 2.0], [1.0])


def test_in_rounds_interleaves_the_measurements():
    calls = []
    figures = readings.in_rounds({"a": lambda: calls.append("a") or 1.0, "b": lambda: calls.append("b") or 2.0}, 3)
    assert calls == ["a", "b"] * 3 and figures == {"a": [1.0] * 3, "b": [2.0] * 3}


def test_the_course_has_one_noise_band():
    """readings (02, 04, 07) and throughput (08) used to read 0.92x differently: "about the same" and "slower"."""
    assert not hasattr(throughput, "SAME_BAND") and not hasattr(readings, "SAME_SPEED")
    grid = [round(0.5 + 0.001 * i, 3) for i in range(1501)] + [EDGE, 1 / EDGE, EDGE + JUST, 1 / EDGE - JUST]
    for ratio in grid + [(0.9, 1.0, 1.3), (1.2, 1.25, 1.3), (1.51, 1.65, 11.73), (0.3, 0.5, 0.95)]:
        course = readings.read_speedup(ratio, "X")
        verdict = throughput.speedup_verdict(ratio)
        assert ("it helped" in course) == (verdict in ("helped a little", "paid off")), ratio
        assert ("about the same" in course) == (verdict == "made no real difference"), ratio
        assert ("made this slower" in course) == (verdict == "did not help"), ratio
        assert ("disagree too much" in course) == (verdict == "gave no clear result"), ratio


# --- every reader at its band edges ---------------------------------------------------------------------------------
@pytest.mark.parametrize(("ratio", "verdict"), [
    (1 / EDGE - JUST, "did not help"), (1 / EDGE, "made no real difference"), (EDGE, "made no real difference"),
    (EDGE + JUST, "helped a little"), (throughput.PAID_OFF - JUST, "helped a little"),
    (throughput.PAID_OFF, "paid off"), (0.949, "made no real difference"),   # 0.949 printed "(slower)" before
])
def test_speedup_verdict_at_its_edges(ratio, verdict):
    assert throughput.speedup_verdict(ratio) == verdict
    sentence = throughput.read_speedup("fused AdamW", ratio, "the plain step")
    assert verdict in sentence and ("(slower)" in sentence) == (verdict == "did not help")


def test_a_figure_inside_its_band_only_because_its_rounds_disagree_asks_for_a_rerun():
    """This 2-core machine under load, quick mode: bf16 matmuls 1.51x to 11.73x over 3 rounds. Neither "faster" nor
    "about the same", and no cause is named from it."""
    rounds = (1.51, 1.65, 11.73)
    assert Ratio.of(rounds).unsettled and Ratio.of((0.95, 1.02, 1.3)).unsettled
    assert not Ratio.of((0.97, 1.02, 1.05)).unsettled and not Ratio.of((3.7, 3.88, 3.9)).unsettled
    matmul = readings.read_matmul_speedup(rounds, "bfloat16", "cpu")
    assert "disagree too much" in matmul and "run the cell again" in matmul and "instructions" not in matmul
    step = readings.read_autocast_step((1.10, 4.66, 9.05), rounds, "MLP 256", "cpu", bound="compute")
    assert "disagree too much" in step and "host-bound" not in step and "arithmetic" not in step
    assert "gave no clear result" in throughput.read_speedup("torch.compile", (0.5, 1.3, 2.0), "eager")
    assert "disagree too much" in readings.read_compile(1000.0, (1.0, 1.0, 1.0), (0.5, 1.3, 2.0))
    assert "varied too much" in readings.read_workers({0: [0.3, 0.3, 0.3], 1: [0.15, 0.2, 0.6]})
    mixed = throughput.read_mixed_precision(rounds, "compute")
    assert "gave no clear result" in mixed and "Why" not in mixed and "arithmetic" not in mixed


def test_bound_is_diagnosed_only_where_every_round_agrees():
    assert throughput.bound_of(2, (1.0, 1.05, 1.1)) == "host"
    assert throughput.bound_of(2, (1.9, 2.0, 1.8)) == "compute"
    assert throughput.bound_of(2, (0.99, 4.71, 1.5)) == "unclear"       # this machine under load
    # the share of the extra work that shows up as time must lie in [-10 %, 110 %]: outside it no limit explains it
    assert throughput.bound_of(2, 2.1) == "compute" and throughput.bound_of(2, 2.1 + 1e-9) == "unclear"
    assert throughput.bound_of(2, 0.9) == "host" and throughput.bound_of(2, 0.9 - 1e-9) == "unclear"
    assert throughput.bound_of(2, (4.7, 4.75, 5.0)) == "unclear"        # every round "slower than proportional"
    assert throughput.bound_of(8, 0.898) == "host"                      # the H200's small MLP, 512 -> 4096
    unclear = throughput.read_bound(2, (0.99, 4.71, 1.5))
    assert unclear.startswith("not diagnosed here") and "rounds: 0.99x to 4.71x" in unclear
    assert "cannot be told" in throughput.read_mixed_precision(0.6, "unclear")
    assert "was not clear from its timings" in readings.read_autocast_step(0.6, 7.9, "MLP", bound="unclear")


def test_the_spread_is_printed_with_the_figure():
    sentence = throughput.read_speedup("fused AdamW", [1.04, 0.97, 0.99], "the plain step")
    assert sentence == ("fused AdamW made no real difference here: 0.99x the plain step "
                        "(timed 3 times: 0.97x to 1.04x).")
    assert "(timed 3 times: 1.40x to 1.60x): it helped." in readings.read_speedup([1.4, 1.5, 1.6], "Autocast")


@pytest.mark.parametrize(("naive", "synced", "reading"), [
    (0.499, 1.0, "missed most of it"),
    (0.6, 1.0, "missed about 40% of it"),      # was "The two agree" (0.5x to 1.5x agreed)
    (1 / EDGE - JUST, 1.0, "missed about 9% of it"),
    (1 / EDGE, 1.0, "The two agree"), (EDGE, 1.0, "The two agree"),
    (EDGE + JUST, 1.0, "or noise, which one call each cannot tell apart"),
    (1.5, 1.0, "or noise"), (1.51, 1.0, "one-off costs of a first call"),
])
def test_timing_trap_at_its_edges(naive, synced, reading):
    assert reading in readings.read_timing_trap(naive, synced)


@pytest.mark.parametrize(("unsynced", "reading"), [
    (0.499, "still queued on the GPU"), (0.5, "part of the work was still queued"),
    (1 / EDGE - JUST, "part of the work"), (1 / EDGE, "about right"), (1.0, "about right"),
])
def test_unsynced_timer_at_its_edges(unsynced, reading):
    assert reading in throughput.read_unsynced_timer(unsynced, 1.0)


@pytest.mark.parametrize(("speedup", "reading"), [
    (EDGE, "about the same speed"), (EDGE + JUST, "it helped"), (1 / EDGE, "about the same speed"),
    (1 / EDGE - JUST, "made this slower"),
])
def test_matmul_compile_and_step_readers_at_the_edges(speedup, reading):
    assert reading in readings.read_matmul_speedup(speedup, "float16", "cuda")
    assert reading in readings.read_autocast_step(speedup, 7.9, "MLP", bound="compute")
    compiled = readings.read_compile(first_ms=1000.0, compiled_ms=1.0, eager_ms=speedup)
    assert {"about the same speed": "about the same speed", "it helped": "as fast as eager",
            "made this slower": "slower than eager"}[reading] in compiled


def test_workers_at_the_edges_and_never_blaming_start_up():
    """The figures are later epochs with persistent workers: starting the workers is not in them (issue 41)."""
    assert "changed nothing" in readings.read_workers({0: 1.0, 1: EDGE, 2: 1 / EDGE})
    slower = readings.read_workers({0: 1.0, 1: EDGE + 1e-6, 2: 1 / EDGE - 1e-6})
    assert "1 worker cost more than they saved (1.10 s against 1.00 s" in slower and "2 workers saved time" in slower
    assert "start-up and" not in slower and "not in these figures" in slower
    noisy = readings.read_workers({0: [0.30, 0.31, 0.45], 2: [0.36, 0.30, 0.31]})   # 2 workers' 0.36 s is noise here
    assert "varied too much" in noisy and "cost more" not in noisy
    assert "changed nothing" in readings.read_workers({0: [0.30, 0.31, 0.31], 2: [0.31, 0.30, 0.32]})


# --- read_mixed_precision: a cause only where the figures show it -----------------------------------------------------
def test_a_compute_bound_step_with_no_gain_does_not_blame_the_casts_alone():
    """A CPU without bfloat16 instructions is slower in 16 bits: the casts were named as the cause (issue 41)."""
    cpu = throughput.read_mixed_precision(0.45, "compute", "cpu")          # this 2-core machine's wide MLP in bf16
    assert "did not help" in cpu and "either this device's 16-bit arithmetic is no faster" in cpu
    assert "or the casts autocast adds" in cpu and "tensor cores" not in cpu


def test_a_host_bound_step_with_a_gain_says_run_again():
    sentence = throughput.read_mixed_precision([1.2, 1.25, 1.3], "host")
    assert "helped a little" in sentence and "Run the cell again" in sentence and "16-bit arithmetic" not in sentence


def test_a_compute_bound_gain_names_tensor_cores_only_on_a_gpu():
    assert "tensor cores" in throughput.read_mixed_precision(3.5, "compute", "cuda")           # T4-like, wide step
    cpu = throughput.read_mixed_precision(1.8, "compute", "cpu")                                # a CPU with AMX
    assert "tensor cores" not in cpu and "this CPU does 16-bit arithmetic faster" in cpu


def test_a_host_bound_step_within_the_band_adds_no_slowdown_cause():
    same = throughput.read_mixed_precision(0.95, "host")
    assert "made no real difference" in same and "cannot shorten it" in same and "adds cast" not in same
    assert "adds cast operations" in throughput.read_mixed_precision(0.63, "host")


# --- T4-, H200- and CPU-like figures, reader by reader --------------------------------------------------------------
def test_autocast_step_by_machine():
    h200_matmul = H200["matmul"]["fp16_tflops"] / H200["matmul"]["fp32_tflops"]
    # H200, wide step, 1.27x: a gain, arithmetic; T4-like wide step 3.5x
    assert "Enough of this step is arithmetic" in readings.read_autocast_step(
        H200["autocast"]["mlp4096_step_speedup"], h200_matmul, "MLP 4096", bound="compute")
    assert "it helped" in readings.read_autocast_step(3.5, 7.9, "MLP 4096, batch 8192", bound="compute")
    # T4-like small step, 0.85x, host-bound as measured: "add work"
    t4 = readings.read_autocast_step(0.85, 7.9, "MLP 256, batch 256", bound="host")
    assert "made this slower" in t4 and "measured host-bound" in t4 and "More work per step" in t4
    # the wide step landing in the band, compute-bound: never "add work" to the step that is already the wide one
    wide = readings.read_autocast_step(1.02, 7.9, "MLP 4096, batch 8192", bound="compute")
    assert "More work" not in wide and "host-bound" not in wide and "Run the cell again" in wide
    # a gain on a step measured host-bound contradicts its diagnosis
    assert "Run the cell again" in readings.read_autocast_step(1.3, 7.9, "MLP 256", bound="host")
    # CPU-like: no bf16 instructions (0.3x matmuls), 0.57x step
    cpu = readings.read_autocast_step(0.57, 0.3, "MLP 1024, batch 1024", "cpu", bound="compute")
    assert "not faster on this device either (0.30x)" in cpu and "tensor cores" not in cpu
    assert "not timed alone" in readings.read_autocast_step(0.9, None, "MLP 256")


def test_table_readers_by_machine():
    # H200: the table's 0.63x (float16) before section 4 diagnosed it: no cause guessed
    assert "Why depends" in throughput.read_mixed_precision(H["eps_gpu_amp"] / H["eps_gpu_fp32"])
    # T4-like: GPU about 3x the CPU; compiled 0.9x eager
    assert "paid off" in throughput.read_speedup("The GPU (float32)", 3.0, "the CPU")
    assert "made no real difference" in throughput.read_speedup("torch.compile", [0.93, 0.9, 0.95], "eager")
    # CPU-like (this machine): bf16 autocast on the small MLP, 0.42x; no diagnosis yet
    cpu = throughput.read_mixed_precision(0.42)
    assert "did not help" in cpu and "Why depends" in cpu and "tensor cores" not in cpu


def test_cures_by_machine():
    # H200-like and T4-like predictions: the bigger batch and the graph pay off; fused AdamW is within the noise
    for batch, graph in ((8.0, 12.0), (5.0, 7.0)):
        assert "paid off" in throughput.read_speedup("batch 4096 (8x)", batch, "the plain step")
        assert "paid off" in throughput.read_speedup("CUDA graph of the whole step", graph, "the plain step")
    fused = throughput.read_speedup("fused AdamW", [1.06, 1.02, 1.1], "the plain step")
    assert "made no real difference" in fused and "(slower)" not in fused
    # the same cure measured 0.50x to 1.45x on this loaded machine: not "no difference", and not "slower"
    loaded = throughput.read_speedup("fused AdamW", [0.5, 0.95, 1.45], "the plain step")
    assert "gave no clear result" in loaded and "no real difference" not in loaded and "(slower)" not in loaded


def test_utilization_by_machine():
    assert "keeps it fed" in throughput.read_utilization(97.0)            # T4/H200-like wide step, predicted
    assert "part of the time no kernel ran" in throughput.read_utilization(70.0)
    assert "no reading here" in throughput.read_utilization(None)        # a CPU


def test_bandwidth_by_machine_never_names_a_link_it_only_fits():
    t4 = readings.read_bandwidth(6.0, "pinned")                           # a Colab T4 can read this low
    assert "fits a PCIe Gen3 x16 link" in t4 and "and any faster link too" in t4
    assert "at least PCIe Gen5" in readings.read_bandwidth(H200["bandwidth"]["pinned_gbps"], "pinned")
    assert "no PCIe link is crossed" in readings.read_bandwidth(6.0, "host")
