"""Which figures a GPU run must report, and what a notebook's outputs say they were.

The expected figures have one source: the ``RESULT key = ...`` lines in ``sources/*.py``, read when the run
starts, so a line a notebook's author adds is expected from the next run on, with nothing to list here.
A run made before its notebooks printed RESULT lines (the H200 run of 2026-12-04, commit a5da55f) printed most
figures only in readable form: ``LEGACY_READINGS`` reads those, and only where no RESULT line gave the key.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from pathlib import Path

#: A line a notebook prints to publish a figure: ``RESULT h2d_pinned_gbps = 54.9 GB/s``.
RESULT_LINE = re.compile(r"^RESULT\s+([A-Za-z0-9_.\-]+)\s*=\s*(.+?)\s*$", re.M)
#: The same inside a source's code; a key may be built with f-string fields: ``RESULT eps_{name} = ...``.
SOURCE_RESULT = re.compile(r"RESULT\s+((?:[A-Za-z0-9_.\-]|\{[^{}]*\})+)\s*=")


@dataclass(frozen=True)
class Expected:
    notebook: str
    key: str  # as the source writes it; a ``{field}`` stands for any part of a printed key
    what: str = ""  # a description, where the run's record has one

    @property
    def made_at_run_time(self) -> bool:
        """The whole key is an f-string field (``RESULT {KEYS[name]} = ...``): which keys it prints is not in the
        source."""
        return re.fullmatch(r"(\{[^{}]*\})+", self.key) is not None

    def matches(self, printed: str) -> bool:
        parts = re.split(r"\{[^{}]*\}", self.key)
        return re.fullmatch("[A-Za-z0-9_.\\-]+".join(map(re.escape, parts)), printed) is not None


def expected_from_sources(sources: Path) -> list[Expected]:
    """Every ``RESULT key =`` a code line of ``sources/NN_name.py`` prints, in notebook and line order."""
    found: list[Expected] = []
    for path in sorted(sources.glob("[0-9][0-9]_*.py")):
        for line in path.read_text(encoding="utf-8").splitlines():
            if line.lstrip().startswith("#"):  # a markdown cell or a comment: prose, not a print
                continue
            for key in SOURCE_RESULT.findall(line):
                item = Expected(path.stem, key)
                if item not in found:
                    found.append(item)
    return found


def printed_text(nb) -> str:
    """What a notebook's code cells printed to stdout, in order."""
    return "\n".join(out.get("text", "") for cell in nb.cells if cell.cell_type == "code"
                     for out in cell.get("outputs", [])
                     if out.get("output_type") == "stream" and out.get("name", "stdout") == "stdout")


def result_lines(text: str) -> dict[str, str]:
    """``RESULT key = value`` lines: key -> value; a later line with the same key wins."""
    return dict(RESULT_LINE.findall(text))


@dataclass(frozen=True)
class Reading:
    """A figure printed in readable form only: ``pattern``'s groups fill ``template``."""

    notebook: str
    key: str
    pattern: str
    template: str

    def read(self, text: str) -> str | None:
        match = re.search(self.pattern, text, re.M)
        return self.template.format(*match.groups()) if match else None


_NUM = r"([\d][\d,]*(?:\.\d+)?)"
#: What the notebooks at commit a5da55f printed (the H200 run's executed notebooks show each line), by the keys
#: that run's page expected. Only a fallback: a RESULT line for the same key always wins.
LEGACY_READINGS = [
    Reading("02_transfers", "h2d_pageable_gbps", rf"^pageable \(measured\):.* {_NUM} GB/s at {_NUM} B\s*$",
            "{} GB/s (at {} B)"),
    Reading("02_transfers", "h2d_pinned_gbps", rf"^pinned \(measured\):.* {_NUM} GB/s at {_NUM} B\s*$",
            "{} GB/s (at {} B)"),
    Reading("03_async_timing", "matmul_naive_ms", rf"^REAL GPU \(.*\), (.+):\s*\n\s*naive {_NUM} ms",
            "{1} ms ({0})"),
    Reading("03_async_timing", "matmul_synced_ms", rf"^REAL GPU \(.*\), (.+):\s*\n.*synchronized {_NUM} ms",
            "{1} ms ({0})"),
    Reading("03_async_timing", "matmul_events_ms", rf"^REAL GPU, (\S+) matmul: events median {_NUM} ms",
            "{1} ms (one {0} matmul, median)"),
    Reading("04_autocast", "matmul_tflops_fp32", rf"^float32\s+{_NUM} TFLOPS\s+\((n = \d+)\)", "{} TFLOPS ({})"),
    Reading("04_autocast", "matmul_tflops_tf32", rf"^TF32\s+{_NUM} TFLOPS\s+\((n = \d+)\)", "{} TFLOPS ({})"),
    Reading("04_autocast", "matmul_tflops_fp16", rf"^float16\s+{_NUM} TFLOPS\s+\((n = \d+)\)", "{} TFLOPS ({})"),
    Reading("07_compile", "compile_first_ms", rf"^compiled \((\w+)\)\s*: first call\s+{_NUM} ms",
            "{1} ms ({0})"),
    Reading("07_compile", "compile_steady_ms", rf"^compiled \((\w+)\)\s*: .*steady median\s+{_NUM} ms",
            "{1} ms ({0}, median)"),
    Reading("07_compile", "eager_ms", rf"^eager\s*: .*steady median\s+{_NUM} ms", "{} ms (median)"),
    Reading("07_compile", "compile_speedup", rf"^speed-up of compiled over eager, measured just now: {_NUM}x",
            "{}x (a training step)"),
    Reading("08_throughput", "eps_cpu", rf"^CPU float32\s+{_NUM}\s", "{} examples/s"),
    Reading("08_throughput", "eps_gpu_fp32", rf"^GPU float32\s+{_NUM}\s", "{} examples/s"),
    Reading("08_throughput", "eps_gpu_amp", rf"^GPU mixed precision (\(\w+\))\s+{_NUM}\s", "{1} examples/s {0}"),
    Reading("08_throughput", "eps_gpu_compiled", rf"^GPU compiled \+ mixed precision\s+{_NUM}\s", "{} examples/s"),
]


def figures(notebook: str, text: str) -> dict[str, tuple[str, str]]:
    """key -> (value, how it was found: ``RESULT line`` or ``printed text``) for what ``notebook`` printed."""
    found = {key: (value, "RESULT line") for key, value in result_lines(text).items()}
    for reading in LEGACY_READINGS:
        if reading.notebook == notebook and reading.key not in found:
            value = reading.read(text)
            if value is not None:
                found[reading.key] = (value, "printed text")
    return found
