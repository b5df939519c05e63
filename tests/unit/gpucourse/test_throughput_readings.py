"""Notebook 08's sentence choosers read the H200's real figures truthfully (issue 34).

The figures come from tests/data/h200_throughput.json (each cites where the H200 run printed it); where the
shared run folder is present, the same figures are read from its executed notebook and results file too, and
must agree with the fixture. A chooser that said "helps" of a 0.63x speed-up fails here.
"""

from __future__ import annotations

import json
import re
from pathlib import Path

import pytest

from gpucourse.throughput import (
    bound_of,
    read_accuracy,
    read_bound,
    read_mixed_precision,
    read_speedup,
    read_unsynced_timer,
    read_utilization,
    speedup_verdict,
)

ROOT = Path(__file__).resolve().parents[3]
FIXTURE = ROOT / "tests" / "data" / "h200_throughput.json"
SHARED_RUN = ROOT.parent / "shared" / "gpu-runs" / "2026-12-04-h200"


def h200() -> dict[str, float]:
    return {key: entry["value"] for key, entry in json.loads(FIXTURE.read_text()).items() if not key.startswith("_")}


H = h200()
POSITIVE = ("helped", "paid off")


def ms_per_step(batch: int, eps: float) -> float:
    return batch / eps * 1e3


# -- the run the fixture copies, when this checkout has it ------------------------------------------
def _executed_08_text() -> str:
    nb = json.loads((SHARED_RUN / "executed" / "08_throughput.ipynb").read_text())
    return "\n".join("".join(out.get("text", "")) for cell in nb["cells"] if cell["cell_type"] == "code"
                     for out in cell.get("outputs", []))


def _number(text: str, pattern: str) -> float:
    match = re.search(pattern, text)
    assert match, f"not in the executed notebook: {pattern}"
    return float(match.group(1).replace(",", ""))


@pytest.mark.skipif(not SHARED_RUN.is_dir(), reason="the shared H200 run is not in this checkout")
def test_the_fixture_holds_what_the_h200_printed():
    text = _executed_08_text()
    printed = {
        "eps_cpu": r"CPU float32\s+([\d,]+)",
        "eps_gpu_fp32": r"GPU float32\s+([\d,]+)",
        "eps_gpu_amp": r"GPU mixed precision \(float16\)\s+([\d,]+)",
        "eps_gpu_compiled": r"GPU compiled \+ mixed precision\s+([\d,]+)",
        "mlp256_b512_fp32_eps": r"MLP 256 \(module 5\), float32\s+([\d,]+)",
        "mlp256_b512_fp16_eps": r"MLP 256 \(module 5\), float16\s+([\d,]+)",
        "mlp4096_b512_fp32_eps": r"MLP 4096 \(wide\), float32\s+([\d,]+)",
        "mlp4096_b512_fp16_eps": r"MLP 4096 \(wide\), float16\s+([\d,]+)",
        "util_small_pct": r"small MLP, batch 64\s*: mean GPU utilization (\d+) %",
        "util_wide_pct": r"wide MLP 4096, batch 1024\s*: mean GPU utilization (\d+) %",
        "feed_dataloader_eps": r"DataLoader \(CPU tensors, copied per batch\)\s+([\d,]+)",
        "feed_resident_eps": r"gpu_resident_batches \(data on the device\)\s+([\d,]+)",
        "sim_plain_unsynced_ms": r"plain step\s*: time.time\(\) without synchronize\s+([\d.]+)",
        "sim_plain_synced_ms": r"plain step\s*:.*with synchronize at the end\s+([\d.]+)",
        "sim_item_unsynced_ms": r"step with .item\(\)\s*: time.time\(\) without synchronize\s+([\d.]+)",
        "sim_item_synced_ms": r"step with .item\(\)\s*:.*with synchronize at the end\s+([\d.]+)",
    }
    for key, pattern in printed.items():
        assert _number(text, pattern) == pytest.approx(H[key]), key
    results = json.loads((SHARED_RUN / "gpu-results.json").read_text())
    direct = results["direct"]
    for key, name in (("mlp256_b4096_fp32_eps", "mlp256_fp32_eps"), ("mlp4096_b4096_fp32_eps", "mlp4096_fp32_eps"),
                      ("mlp4096_b4096_autocast_speedup", "mlp4096_autocast_speedup"),
                      ("mlp256_b4096_autocast_speedup", "mlp256_autocast_speedup")):
        assert direct[name] == pytest.approx(H[key]), key
    final = next(nb["results"] for nb in results["notebooks"] if nb["name"] == "08_throughput")
    assert float(final["final_test_accuracy"].rstrip("%")) / 100 == pytest.approx(H["final_test_accuracy"])
    assert float(final["final_eps"].split()[0]) == pytest.approx(H["final_eps"])


# -- the readings of the H200's figures ------------------------------------------------------------
def test_the_small_mlp_is_read_as_host_bound():
    """8x the batch (512 -> 4096) took 0.90x the time per step on the H200: host-bound."""
    time_ratio = ms_per_step(4096, H["mlp256_b4096_fp32_eps"]) / ms_per_step(512, H["mlp256_b512_fp32_eps"])
    assert bound_of(8, time_ratio) == "host"
    sentence = read_bound(8, time_ratio)
    assert sentence.startswith("host-bound") and f"{time_ratio:.2f}x the time" in sentence


def test_mixed_precision_on_the_host_bound_step_did_not_help():
    """The table's 278,503 against 443,114 (0.63x) and section 4's 0.68x: slower, never "helps"."""
    for ratio in (H["eps_gpu_amp"] / H["eps_gpu_fp32"], H["mlp256_b512_fp16_eps"] / H["mlp256_b512_fp32_eps"],
                  H["mlp4096_b512_fp16_eps"] / H["mlp4096_b512_fp32_eps"], H["mlp256_b4096_autocast_speedup"]):
        sentence = read_mixed_precision(ratio, bound="host")
        assert "did not help" in sentence and "(slower)" in sentence and f"{ratio:.2f}x float32" in sentence
        assert "host-bound" in sentence
        assert not any(word in sentence for word in POSITIVE), sentence


def test_mixed_precision_without_a_diagnosis_claims_no_reason():
    """The table of section 3 reads 0.63x before section 4 has diagnosed the step: no reason is guessed."""
    sentence = read_mixed_precision(H["eps_gpu_amp"] / H["eps_gpu_fp32"])
    assert "did not help" in sentence and "section 4 measures it" in sentence and "host-bound" not in sentence


def test_mixed_precision_where_the_arithmetic_counts():
    """The direct measurement's wide MLP at batch 4096 (bfloat16, 1.27x): a little, not "paid off"."""
    ratio = H["mlp4096_b4096_autocast_speedup"]
    sentence = read_mixed_precision(ratio, bound="partly")
    assert "helped a little" in sentence and "tensor cores" in sentence and "paid off" not in sentence


def test_compile_and_the_gpu_against_the_cpu():
    compiled = read_speedup("torch.compile", H["eps_gpu_compiled"] / H["eps_gpu_amp"], "eager")
    assert "did not help" in compiled and "(slower)" in compiled
    gpu = read_speedup("The GPU", H["eps_gpu_fp32"] / H["eps_cpu"], "the CPU")
    assert "helped a little" in gpu and "1.27x the CPU" in gpu


def test_utilization_of_both_models_reads_as_waiting_for_the_host():
    """11 % and 18 %: both waited for the host; the "fix" of section 5 had not made the wide model busy."""
    for key in ("util_small_pct", "util_wide_pct"):
        sentence = read_utilization(H[key])
        assert sentence.startswith(f"busy only {H[key]:.0f} %") and "no kernel ran" in sentence
        assert "waiting for the host" in sentence and "with the data already on the device" in sentence
    assert "keeps it fed" in read_utilization(97.0)
    assert "no reading" in read_utilization(None)


def test_resident_data_paid_off():
    ratio = H["feed_resident_eps"] / H["feed_dataloader_eps"]
    assert "paid off" in read_speedup("gpu_resident_batches", ratio, "the DataLoader")


def test_the_unsynced_timer_on_the_simulated_gpu():
    plain = read_unsynced_timer(H["sim_plain_unsynced_ms"], H["sim_plain_synced_ms"])
    assert "read 0 % of the real time" in plain and "still queued" in plain
    with_item = read_unsynced_timer(H["sim_item_unsynced_ms"], H["sim_item_synced_ms"])
    assert "read 100 % of the real time, about right" in with_item


def test_the_final_run_reached_the_target():
    assert "91.69 % test accuracy: reaches the 91 % target" in read_accuracy(H["final_test_accuracy"], 0.91)
    assert "is short of the 91 %" in read_accuracy(0.9063, 0.91)


def test_verdicts_are_ordered_by_the_ratio():
    """Each verdict covers one band, and a larger speed-up never reads worse than a smaller one."""
    order = ["did not help", "made no real difference", "helped a little", "paid off"]
    ratios = [0.3, 0.63, 0.94, 0.97, 1.0, 1.09, 1.2, 1.49, 1.5, 2.1, 26.1]
    ranks = [order.index(speedup_verdict(r)) for r in ratios]
    assert ranks == sorted(ranks) and set(ranks) == set(range(4))
