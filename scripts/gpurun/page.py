"""The results page (``docs/gpu-results.md``) from a run's record: the dictionary ``gpu_run.py`` rewrites after
every stage, or one rebuilt from a finished run's folder (``--page-from DIR``: its ``gpu-results.json``, its
executed notebooks, its grading log). Every section says what happened to its stage, so a page written by a
run stopped half-way is true too."""

from __future__ import annotations

import json
import os
import re
import subprocess
from pathlib import Path

from scripts.gpurun import figures, grading

REPO = Path(__file__).resolve().parents[2]

MACHINE_ROWS = (("GPU", "gpu"), ("compute capability", "capability"), ("GPU memory (GiB)", "gpu_memory_gib"),
                ("NVIDIA driver", "driver"), ("PCIe link (gen, width)", "pcie"), ("torch", "torch"),
                ("CUDA (torch build)", "cuda"), ("cuDNN", "cudnn"), ("Python", "python"), ("CPU cores", "cpus"),
                ("Python running the course", "executable"), ("a venv (sys.prefix != sys.base_prefix)", "venv"),
                ("torch imported from", "torch_path"), ("torch outside sys.prefix", "torch_outside_prefix"),
                ("bubblewrap (the grading sandbox)", "bwrap"), ("date", "date"))
NOT_RECORDED = "(not recorded by this run)"
ABSENT = "Not part of this run."

#: Keys whose meaning changed in the sources after a run could have measured them: key -> (the commit that changed
#: it, what the key measured before, what it measures since). A page of a run older than that commit says so beside
#: the figure, so that nobody compares it with a notebook of today as if it were the same measurement.
CHANGED = {
    "h2d_pageable_gbps": ("8914269", "the copy of 256 MiB, the curve's last point", "the curve's plateau (its best "
                          "point)"),
    "h2d_pinned_gbps": ("8914269", "the copy of 256 MiB, the curve's last point", "the curve's plateau (its best "
                        "point)"),
    "matmul_events_ms": ("8914269", "one 2048x2048 matmul", "section 1's ten 4096x4096 matmuls"),
    "eps_gpu_amp": ("b696ee3", "float16 with a GradScaler on every GPU", "bfloat16 without a scaler from compute "
                    "capability 8.0 on (float16 with a GradScaler below it)"),
    "eps_gpu_compiled": ("b696ee3", "compiled + float16 with a GradScaler", "compiled + the mixed precision of "
                         "`eps_gpu_amp`"),
    "final_eps": ("b696ee3", "examples per second over all the final run's epochs", "examples per second after the "
                  "first epoch (all epochs: `final_eps_all_epochs`)"),
}

#: Why a run's grading came out as it did, where the run's record cannot say it but the run's own folder does (its
#: README.md, which ``run_from_dir`` checks for the sentence quoted first), keyed by the commit the run measured.
GRADING_CAUSES = {
    "a5da55f": ("The same layout reproduces it on a CPU",
                "Cause, from the run's README.md: the way that machine's Python was installed, not CUDA. The course's "
                "packages were in a venv made with `--system-site-packages` over the image's torch; the same layout "
                "gives the same wrong scores on a CPU (the correct sample of 01: 4/10, `review`), and kills the "
                "kernel under bubblewrap. Fixed since by ea90416 (the same grade on any Python layout, with or "
                "without the sandbox; docs/grading.md). Whether CUDA itself changes a score is not yet measured."),
}


def predates(commit: str | None, change: str) -> bool | None:
    """Whether ``commit`` (a run's) is older than ``change``: True, False, or None where this clone cannot tell."""
    if not commit:
        return None
    done = subprocess.run(["git", "-C", str(REPO), "merge-base", "--is-ancestor", change, commit],
                          capture_output=True, text=True)
    return {0: False, 1: True}.get(done.returncode)


def changed_since(run: dict, key: str) -> str:
    """The note a figure gets when its key measures something else in today's sources, else ""."""
    if key not in CHANGED:
        return ""
    change, then, now = CHANGED[key]
    older = predates(run.get("commit"), change)
    if older is False:
        return ""
    when = "" if older else f" (if this run predates {change})"
    return f"then: {then}; since {change}{when}, the key measures {now}"


def fmt(value) -> str:
    if isinstance(value, float):
        return f"{value:,.0f}" if abs(value) >= 1000 else f"{value:.3g}" if abs(value) < 10 else f"{value:.1f}"
    return str(value)


def stage_note(run: dict, names: tuple[str, ...], absent: str) -> str:
    """Why a section is empty: what happened to its stages (skipped for time, still to come), or ``absent``."""
    notes = [f"{name}: {run['stages'][name]['status']}." for name in names if name in run.get("stages", {})]
    return " ".join(notes) or absent


def header(run: dict) -> list[str]:
    m = run["machine"]
    return ["# The course on a real GPU", "",
            f"Measured on **{m.get('gpu', '?')}** (driver {m.get('driver', '?')}, torch {m.get('torch', '?')}, "
            f"CUDA {m.get('cuda', '?')}) on **{m.get('date', '?')}**, at commit **{run.get('commit') or 'unknown'}**, "
            f"by `{run.get('command', 'python scripts/gpu_run.py')}`"
            + (f" (this page rebuilt from that run's folder by `{run['rebuilt_by']}`)" if run.get("rebuilt_by") else "")
            + ". The figures are this one machine's; "
            "your own run is the figure to trust. This page stays until a newer run replaces it: "
            "`python scripts/gpu_run.py` on any CUDA machine rewrites it, and "
            "`python scripts/gpu_run.py --page-from DIR` rebuilds it from a run's folder.", "",
            "| | |", "|---|---|"] + [f"| {label} | {m.get(key, NOT_RECORDED)} |" for label, key in MACHINE_ROWS]


def plan_section(run: dict) -> list[str]:
    if not run.get("plan"):
        return []
    lines = ["", f"## Stages (budget {run['total_s']:.0f} s)", "",
             "| stage | what | estimate (s) | budget (s) | took (s) | status |", "|---|---|---:|---:|---:|---|"]
    for s in run["plan"]:
        done = run.get("stages", {}).get(s["name"], {})
        took = f"{done['seconds']:.0f}" if "seconds" in done else ""
        lines.append(f"| {s['name']} | {s['what']} | {s['estimate_s']:.0f} | {s['budget_s']:.0f} | {took} "
                     f"| {done.get('status', 'not started')} |")
    return lines


def notebooks_section(run: dict) -> list[str]:
    lines = ["", "## Notebooks, full mode (`COURSE_QUICK=0`)", ""]
    if not run.get("notebooks"):
        return lines + [stage_note(run, ("notebooks", "notebooks_alone", "notebooks_parallel"), ABSENT)]
    lines += ["| notebook | wall time (s) | device | status |", "|---|---:|---|---|"]
    for nb in run["notebooks"]:
        status = "ran to the end" if not nb["error"] else f"FAILED: {nb['error']}"
        lines.append(f"| `{nb['name']}` | {nb['seconds']:.0f} | {nb.get('device', '?')} | {status} |")
    if any(nb.get("standin") for nb in run["notebooks"]):
        lines += ["", "No network on this machine: the training runs used the offline stand-in data set, so their "
                  "accuracies are not Fashion-MNIST's (throughput figures are unaffected)."]
    return lines


def missing_value(notebook: str, by_nb: dict) -> str:
    nb = by_nb.get(notebook)
    if nb is None:
        return f"(not printed: `{notebook}` was not run)"
    if nb["error"]:
        return f"(not printed: `{notebook}` did not reach the line)"
    return f"(not printed: `{notebook}` ran to the end without printing it)"


def figures_section(run: dict) -> list[str]:
    """Each expected figure with its value or why there is none. A key the source builds whole at run time
    (``RESULT {KEYS[name]} = ...``) cannot be named in advance: the keys its notebook printed that no other line
    names are listed under it, or, when there are none, the line itself as not printed."""
    by_nb = {nb["name"]: nb for nb in run.get("notebooks", [])}
    lines = ["", "## Figures the notebooks printed", "",
             ("Expected: the figures this run's own page listed (its script's list, from before the expected "
              "figures were the RESULT lines of the sources)" if run.get("expected_from") == "page"
              else "Expected: every `RESULT key = ...` line in the notebooks' sources (sources/*.py)")
             + ". \"printed text\": a figure the notebook printed in readable form only, before it printed "
             "RESULT lines.", "",
             f"Every figure here was measured at commit {run.get('commit') or 'unknown'}; the last column says "
             "where the sources have since changed what its key measures.", "",
             "| notebook | figure | key | value | read from | measured at | since then |",
             "|---|---|---|---|---|---|---|"]
    at = f"`{run.get('commit') or 'unknown'}`"
    expected = [figures.Expected(**e) for e in run.get("expected", [])]
    for name in dict.fromkeys([e.notebook for e in expected] + list(by_nb)):
        got = by_nb.get(name, {}).get("figures", {})
        mine = [e for e in expected if e.notebook == name]
        named = [e for e in mine if not e.made_at_run_time]
        left = dict(got)
        for item in named:
            keys = [k for k in got if item.matches(k)]
            for key in keys:
                value, how = left.pop(key, got[key])
                lines.append(f"| `{name}` | {item.what} | `{key}` | {value} | {how} | {at} | "
                             f"{changed_since(run, key)} |")
            if not keys:
                lines.append(f"| `{name}` | {item.what} | `{item.key}` | {missing_value(name, by_nb)} | | | |")
        runtime = [e for e in mine if e.made_at_run_time]
        what = ("printed by " + ", ".join(f"`RESULT {e.key}`" for e in runtime)) if runtime else "(not expected)"
        for key, (value, how) in left.items():
            lines.append(f"| `{name}` | {what} | `{key}` | {value} | {how} | {at} | {changed_since(run, key)} |")
        if runtime and not left:
            for item in runtime:
                lines.append(f"| `{name}` | {item.what} | `{item.key}` | {missing_value(name, by_nb)} | | | |")
    return lines


def direct_section(run: dict) -> list[str]:
    lines = ["", f"## Direct measurements (this script at commit {run.get('commit') or 'unknown'}, independent of the "
             "notebooks)", ""]
    d = run.get("direct")
    if not d:
        return lines + [stage_note(run, ("direct",), ABSENT)]
    lines += ["### Host-to-device bandwidth (256 MiB, CUDA events)", "", "| source memory | GB/s |", "|---|---:|",
              f"| pageable | {fmt(d['h2d_pageable_gbps'])} |", f"| pinned | {fmt(d['h2d_pinned_gbps'])} |", "",
              f"Pinned / pageable: {d['h2d_pinned_gbps'] / d['h2d_pageable_gbps']:.2f}x.", "",
              "### Timing one 8192 x 8192 float32 matmul", "", "| method | ms |", "|---|---:|",
              f"| `time.perf_counter()` without synchronize (naive) | {d['matmul_naive_ms']:.3f} |",
              f"| synchronized at both ends (median of 10) | {d['matmul_synced_ms']:.3f} |",
              f"| CUDA events (median of 10) | {d['matmul_events_ms']:.3f} |", "",
              "### Matmul throughput (8192 x 8192, TFLOPS)", "", "| dtype | TFLOPS |", "|---|---:|"]
    lines += [f"| {name} | {fmt(d['matmul_tflops_' + name])} |" for name in ("fp32", "tf32", "fp16", "bf16")]
    lines += ["", f"### One training step, batch 4096 (autocast dtype: {d['amp_dtype']})", "",
              "| model | float32 (ex/s) | autocast (ex/s) | compiled + autocast (ex/s) | autocast speed-up "
              "| compile speed-up | first compiled step (ms) |", "|---|---:|---:|---:|---:|---:|---:|"]
    for label, title in (("mlp256", "course MLP, hidden 256"), ("mlp4096", "wider MLP, hidden 4096")):
        lines.append(f"| {title} | {fmt(d[label + '_fp32_eps'])} | {fmt(d[label + '_amp_eps'])} | "
                     f"{fmt(d[label + '_compiled_amp_eps'])} | {d[label + '_autocast_speedup']:.2f}x | "
                     f"{d[label + '_compile_speedup']:.2f}x | {d[label + '_compile_first_ms']:.0f} |")
    return lines


def tests_section(run: dict) -> list[str]:
    lines = ["", "## Tests marked `cuda`", ""]
    tests = run.get("tests")
    if tests is None:
        return lines + [stage_note(run, ("cuda_tests",), ABSENT)]
    source = f" Recorded in {tests['source']}." if tests.get("source") else ""
    lines.append(f"`pytest -m cuda`: {tests['summary']} ({tests['seconds']:.0f} s).{source}")
    if tests["returncode"] != 0:
        lines += ["", "```", tests["tail"], "```"]
    return lines


def grading_section(run: dict) -> list[str]:
    lines = ["", "## Grading the sample submissions on this machine, against the CPU", ""]
    g = run.get("grading")
    if g is None:
        return lines + [stage_note(run, ("grading",), ABSENT)]
    how = f"`{g['command']}`, {g['seconds']:.0f} s; " if g.get("command") else ""
    devices = ", ".join(f"{k}: {v}" for k, v in sorted(g.get("devices", {}).items())) or NOT_RECORDED
    cause = [g["cause"], ""] if g.get("cause") else []
    lines += [f"**{g['verdict']}**", "", *cause,
              f"{how}rows read from {g['source']}. \"CPU expects\" is what `python -m graders samples --check` "
              "holds a CPU grading to (at the commit that wrote this page). The device the grading kernels "
              f"reported, in the graded notebooks the run kept: {devices}.", ""]
    return lines + grading.table_lines(g["table"])


def page(run: dict) -> str:
    lines = (header(run) + plan_section(run) + notebooks_section(run) + figures_section(run) + direct_section(run)
             + tests_section(run) + grading_section(run))
    return "\n".join(lines) + "\n"


# ---------------------------------------------------------------------------------------------
# A page from a finished run's folder
# ---------------------------------------------------------------------------------------------
PAGE_ROW = re.compile(r"^\| `(\d\d_\w+)` \| ([^|]*) \| `([^`]+)` \|", re.M)


def expected_from_page(text: str) -> list[dict]:
    """The figures a run's own page listed (a run whose record predates ``expected`` in its json)."""
    return [{"notebook": nb, "key": key, "what": what.strip()} for nb, what, key in PAGE_ROW.findall(text)]


def notebook_record(nb_path: Path, record: dict) -> dict:
    """A notebook's entry with its figures read again from its executed copy (RESULT lines, then readable text)."""
    import nbformat

    text = figures.printed_text(nbformat.read(str(nb_path), as_version=4))
    return {**record, "figures": figures.figures(record["name"], text)}


def run_from_dir(folder: Path, names: list[str], commit: str | None = None) -> dict:
    """A run's record from its folder: ``gpu-results.json``, ``executed/*.ipynb``, and ``grade.log`` (the samples'
    autograde output, where the json has no grading). The commit: ``commit`` if given, else the json's, else the
    one the folder's README names."""
    folder = Path(folder)
    run = json.loads((folder / "gpu-results.json").read_text(encoding="utf-8"))
    readme = folder / "README.md"
    named = re.search(r"commit ([0-9a-f]{7,40})", readme.read_text(encoding="utf-8")) if readme.exists() else None
    run["commit"] = commit or run.get("commit") or (named.group(1) if named else None)
    run.setdefault("command", "python scripts/gpu_run.py")
    shown = os.path.relpath(folder.resolve(), REPO)  # the same words from any working folder
    run["rebuilt_by"] = f"python scripts/gpu_run.py --page-from {shown}"
    if not run.get("expected") and (folder / "gpu-results.md").exists():
        run["expected"] = expected_from_page((folder / "gpu-results.md").read_text(encoding="utf-8"))
        run["expected_from"] = "page"
    run["notebooks"] = [notebook_record(folder / "executed" / f"{nb['name']}.ipynb", nb)
                        if (folder / "executed" / f"{nb['name']}.ipynb").exists()
                        else {"figures": {k: (v, "RESULT line") for k, v in nb.get("results", {}).items()}, **nb}
                        for nb in run.get("notebooks", [])]
    notes = readme.read_text(encoding="utf-8") if readme.exists() else ""
    tests = re.search(r"`pytest -m cuda`: ([^`\n]+?) in (\d+) s", notes)
    if run.get("tests") is None and tests:   # run beside gpu_run.py, so only the run's README records it
        failed = re.search(r"\b(failed|error)", tests.group(1)) is not None
        run["tests"] = {"summary": tests.group(1), "seconds": float(tests.group(2)), "returncode": int(failed),
                        "tail": "(the README records only this line)",
                        "source": "the run's README.md (run beside gpu_run.py, not by it)"}
    if not run.get("grading") and (folder / "grade.log").exists():
        rows = grading.rows_from_progress((folder / "grade.log").read_text(encoding="utf-8"))
        table = grading.compare_rows(rows, names)
        run["grading"] = {"table": table, "verdict": grading.verdict(table),
                          "source": "the run's grade.log (autograde's progress lines)",
                          "devices": grading.devices_seen(folder.glob("graded*/*.ipynb"))}
    quoted, cause = GRADING_CAUSES.get((run["commit"] or "")[:7], ("", ""))
    if run.get("grading") and quoted and quoted in notes:
        run["grading"]["cause"] = cause
    return run
