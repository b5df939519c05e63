"""Intake, files: what a student handed in, on disk or inside one zip, read within limits and parsed.

A zip is never extracted: its notebooks are read into memory with size and count limits. A file that
cannot be a notebook (broken JSON, empty, too large) gets a reason a person understands.
"""

from __future__ import annotations

import datetime
import json
import zipfile
from dataclasses import dataclass
from pathlib import Path

import nbformat

from graders.intake.repair import fix_ids
from graders.limits import Limits


@dataclass
class Candidate:
    """One file that may be a notebook: on disk, or a member of a zip."""
    name: str                 # file name alone
    label: str                # what a person recognises: 'sub.zip:work/01_devices.ipynb'
    mtime: float
    path: Path | None = None  # on disk
    data: bytes | None = None  # from a zip
    problem: str | None = None

    def read(self) -> bytes:
        return self.data if self.data is not None else self.path.read_bytes()

    def size(self) -> int:
        return len(self.data) if self.data is not None else self.path.stat().st_size


def looks_like_notebook(name: str) -> bool:
    low = name.lower()
    return low.endswith(".ipynb") or ".ipynb." in low or low.endswith(".ipynb.json") or low.endswith(".ipynb.txt")


def zip_candidates(path: Path, budget: list[int], limits: Limits) -> tuple[list[Candidate], list[str]]:
    """Notebooks inside one zip, read into memory with size and count limits; never extracted."""
    notes, found = [], []
    if path.stat().st_size > limits.max_file_mib * 2**20:
        return [], [f"ignored {path.name}: over the {limits.max_file_mib:g} MiB limit"]
    try:
        with zipfile.ZipFile(path) as zf:
            members = [m for m in zf.infolist() if not m.is_dir()]
            if len(members) > limits.max_zip_files:
                notes.append(f"{path.name} holds {len(members)} files; looked at the first {limits.max_zip_files}")
                members = members[:limits.max_zip_files]
            for member in members:
                parts = Path(member.filename).parts
                base = parts[-1] if parts else ""
                if not looks_like_notebook(base) or "__MACOSX" in parts or base.startswith("._") \
                        or ".ipynb_checkpoints" in parts:
                    continue
                label = f"{path.name}:{member.filename}"
                mtime = path.stat().st_mtime
                try:
                    mtime = datetime.datetime(*member.date_time).timestamp()
                except (ValueError, OverflowError):
                    pass
                cap = min(budget[0], int(limits.max_file_mib * 2**20))
                if member.file_size > cap:
                    found.append(Candidate(base, label, mtime, problem=f"{label} is {member.file_size / 2**20:.0f} "
                                           f"MiB unpacked, over the limit"))
                    continue
                with zf.open(member) as f:
                    data = f.read(cap + 1)
                if len(data) > cap:
                    found.append(Candidate(base, label, mtime, problem=f"{label} unpacks to more than the limit"))
                    continue
                budget[0] -= len(data)
                found.append(Candidate(base, label, mtime, data=data))
    except (zipfile.BadZipFile, OSError, NotImplementedError, RuntimeError) as error:
        notes.append(f"could not open {path.name} as a zip ({type(error).__name__}: {str(error)[:80]})")
    return found, notes


def gather(folder: Path, limits: Limits) -> tuple[list[Candidate], list[str]]:
    """Every notebook-like file a student handed in: loose files first, then zip members."""
    candidates, notes = [], []
    files = sorted(p for p in Path(folder).rglob("*") if p.is_file() and not p.is_symlink()
                   and ".ipynb_checkpoints" not in p.parts and "__MACOSX" not in p.parts)
    budget = [int(limits.max_unzipped_mib * 2**20)]
    for path in files:
        if looks_like_notebook(path.name) and not path.name.startswith("._"):
            candidates.append(Candidate(path.name, str(path.relative_to(folder)), path.stat().st_mtime, path=path))
    for path in files:
        if path.suffix.lower() == ".zip":
            found, zip_notes = zip_candidates(path, budget, limits)
            candidates += found
            notes += zip_notes
    return candidates, notes


def loads(data: bytes, label: str = "the file",
          limits: Limits | None = None) -> tuple[nbformat.NotebookNode | None, str | None]:
    """Parse submitted bytes, or say in plain words why they cannot be a notebook.

    ``limits``: the run's (default: this process's environment, :meth:`Limits.from_env`).
    """
    limits = limits or Limits.from_env()
    if len(data) == 0:
        return None, "the file is empty (0 bytes)"
    if len(data) > limits.max_file_mib * 2**20:
        return None, f"the file is {len(data) / 2**20:.0f} MiB, over the {limits.max_file_mib:g} MiB limit"
    if not data.strip():
        return None, "the file holds only blank space"
    try:
        raw = json.loads(data.decode("utf-8-sig", errors="replace"))
    except json.JSONDecodeError as error:
        return None, f"not valid JSON (line {error.lineno}: {error.msg}); was it saved as .ipynb?"
    except RecursionError:
        return None, "not a usable notebook (JSON nested too deeply)"
    if not isinstance(raw, dict) or "cells" not in raw:
        return None, "JSON but not a Jupyter notebook (no cells)"
    try:
        nb = nbformat.reads(json.dumps(raw), as_version=4)
        fix_ids(nb)
        nbformat.validate(nb)
    except Exception as error:  # nbformat raises several types
        return None, f"JSON but not a Jupyter notebook ({type(error).__name__}: {str(error)[:120]})"
    return nb, None
