"""How long the students' hand-in check takes per notebook: the structure comparison and a copy of the notebook run
from the top in a fresh kernel in quick mode (``gpucourse.handin.check``, what every notebook's last cell and
``python -m graders validate`` run), on the correct sample (every check and every demonstration runs: the longest).

    python benchmarks/handin_time.py [NOTEBOOK...] [--student correct|untouched|mistakes]

Prints a table: notebook, seconds (wall, kernel start and torch's import included), the verdict. The issue's bound
is two minutes per notebook on a Colab CPU runtime (2 vCPUs); no test bounds it (docs/developing.md).
"""

from __future__ import annotations

import argparse
import json
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))  # graders, when run as a script from anywhere

from gpucourse.handin import check
from graders.paths import SAMPLES, notebook_names


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("notebooks", nargs="*", default=None)
    parser.add_argument("--student", default="correct", choices=["correct", "untouched", "mistakes"])
    args = parser.parse_args()
    print(f"{'notebook':<18} {'seconds':>8}  verdict")
    for name in args.notebooks or notebook_names():
        nb = json.loads((SAMPLES / args.student / f"{name}.ipynb").read_text(encoding="utf-8"))
        said: list[str] = []
        start = time.perf_counter()
        check(nb, f"{name}.ipynb", echo=said.append)
        print(f"{name:<18} {time.perf_counter() - start:>8.1f}  {said[-1][:70]}", flush=True)


if __name__ == "__main__":
    main()
