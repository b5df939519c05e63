"""scripts/gpu_run.py, reviewed on CPU: without a GPU it changes nothing; its parts work."""

from __future__ import annotations

import importlib.util
import subprocess
import sys

import nbformat
import pytest
import torch

from graders.paths import REPO

SCRIPT = REPO / "scripts" / "gpu_run.py"


def load():
    spec = importlib.util.spec_from_file_location("gpu_run", SCRIPT)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


@pytest.mark.skipif(torch.cuda.is_available(), reason="this machine has a GPU: the script would run for real")
def test_without_a_gpu_it_says_so_and_changes_nothing(tmp_path):
    out = tmp_path / "results.md"
    proc = subprocess.run([sys.executable, str(SCRIPT), "--out", str(out), "--work", str(tmp_path / "w")],
                          capture_output=True, text=True, timeout=120)
    assert proc.returncode == 2
    assert "no CUDA GPU" in proc.stdout and "Nothing was changed" in proc.stdout
    assert not out.exists() and not (tmp_path / "w").exists()


def test_result_lines_are_collected(tmp_path):
    gpu_run = load()
    nb = nbformat.v4.new_notebook()
    nb.cells = [nbformat.v4.new_code_cell(
        'print("Device: cpu")\nprint("RESULT h2d_pinned_gbps = 12.5 GB/s")\nprint("not RESULT x = 1")\n'
        'print("RESULT eps_cpu = 1000 ex/s")\nprint("RESULT eps_cpu = 2000 ex/s")')]
    nb.metadata["kernelspec"] = {"name": "python3", "display_name": "Python 3", "language": "python"}
    path = tmp_path / "99_probe.ipynb"
    nbformat.write(nb, str(path))
    result = gpu_run.run_notebook(path, tmp_path / "executed", timeout=60)
    assert result["error"] == "" and result["device"] == "cpu"
    assert result["results"] == {"h2d_pinned_gbps": "12.5 GB/s", "eps_cpu": "2000 ex/s"}
    assert (tmp_path / "executed" / "99_probe.ipynb").exists()


def test_page_renders_every_section():
    gpu_run = load()
    info = {k: "x" for k in ("gpu", "capability", "gpu_memory_gib", "driver", "pcie", "torch", "cuda", "cudnn",
                             "python", "cpus", "date")}
    direct = {"h2d_pageable_gbps": 10.0, "h2d_pinned_gbps": 25.0, "matmul_naive_ms": 0.02, "matmul_synced_ms": 20.0,
              "matmul_events_ms": 19.5, "amp_dtype": "bfloat16",
              **{f"matmul_tflops_{d}": 50.0 for d in ("fp32", "tf32", "fp16", "bf16")}}
    for label in ("mlp256", "mlp4096"):
        direct.update({f"{label}_fp32_eps": 1e6, f"{label}_amp_eps": 2e6, f"{label}_compiled_amp_eps": 3e6,
                       f"{label}_autocast_speedup": 2.0, f"{label}_compile_speedup": 1.5,
                       f"{label}_compile_first_ms": 900.0})
    notebooks = [{"name": "08_throughput", "seconds": 12.0, "error": "", "device": "cuda", "standin": True,
                  "results": {"eps_cpu": "1000 ex/s", "other_key": "3"}}]
    grading = {"problems": [], "seconds": 60, "devices": {"cuda": 40}, "rows": 40, "csv_problems": []}
    text = gpu_run.page(info, notebooks, direct, {"returncode": 0, "summary": "9 passed", "tail": "", "seconds": 5},
                        grading)
    for words in ("## Notebooks, full mode", "| `08_throughput` | 12 | cuda | ran to the end |", "1000 ex/s",
                  "`other_key`", "(not reported)", "Pinned / pageable: 2.50x", "every score equals the CPU grader's",
                  "offline stand-in", "9 passed", "course MLP, hidden 256"):
        assert words in text, words


def test_cpu_and_gpu_grades_are_compared_row_by_row(tmp_path):
    gpu_run = load()
    header = "student_id,notebook,score,max_score,status,message\n"
    (tmp_path / "cpu.csv").write_text(header + "a,01_devices,10,10,graded,\nb,01_devices,7,10,graded,\n")
    (tmp_path / "gpu.csv").write_text(header + "a,01_devices,10,10,graded,\nb,01_devices,8,10,graded,\n")
    assert gpu_run.compare_csv(tmp_path / "cpu.csv", tmp_path / "cpu.csv") == []
    assert gpu_run.compare_csv(tmp_path / "cpu.csv", tmp_path / "gpu.csv") == [
        "b/01_devices: CPU ('7', 'graded') GPU ('8', 'graded')"]


def test_notebook_08_prints_the_final_runs_result_lines():
    """The results page asks 08 for final_test_accuracy and final_eps: its final-run cell prints both."""
    gpu_run = load()
    nb = nbformat.read(str(REPO / "solutions" / "08_throughput.ipynb"), as_version=4)
    code = "\n".join(cell.source for cell in nb.cells if cell.cell_type == "code")
    for name, key, _ in gpu_run.EXPECTED:
        if name == "08_throughput" and key.startswith("final_"):
            assert f'print(f"RESULT {key} = ' in code, key
