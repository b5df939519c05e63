"""``python -m graders refresh-setup``: rewrite the set-up cell of every solution notebook to the
current ``graders.authoring.setup_cell()``, keeping each notebook's own extra lines after it.

Only that one cell changes; every other cell, and the file when nothing changes, is left as it is.
The shared cell is therefore never copied by hand. Run ``python -m graders build`` afterwards.
"""

from __future__ import annotations

from pathlib import Path

HELP = "rewrite the shared set-up cell of every solutions/*.ipynb to the current setup_cell()"


def setup_cell_index(nb) -> int | None:
    """Index of the notebook's set-up cell: the first code cell, when it is the one with id ``setup``."""
    from graders import nbtools

    for index, cell in enumerate(nb.cells):
        if cell.cell_type == "code":
            if cell.get("id") == "setup" or nbtools.grade_id(cell) == "setup":
                return index
            return None
    return None


def refresh_setup(paths: list[Path] | None = None, check: bool = False) -> list[Path]:
    """Bring the set-up cells up to date (or, with ``check``, only report); return the files concerned."""
    from graders import authoring, nbtools
    from graders.paths import SOLUTIONS

    paths = paths if paths is not None else sorted(SOLUTIONS.glob("[0-9][0-9]_*.ipynb"))
    changed = []
    for path in paths:
        before = path.read_text(encoding="utf-8")  # re-read right before writing: others edit these files
        nb = nbtools.read(path)
        index = setup_cell_index(nb)
        if index is None:
            print(f"{path.name}: no set-up cell (first code cell with id 'setup'); left alone")
            continue
        cell = nb.cells[index]
        fresh = authoring.setup_cell(authoring.setup_extras(cell.source))
        if cell.source == fresh.source and cell.metadata.get("nbgrader") == fresh.metadata["nbgrader"]:
            continue
        changed.append(path)
        if check:
            continue
        cell.source = fresh.source
        cell.metadata["nbgrader"] = fresh.metadata["nbgrader"]
        if path.read_text(encoding="utf-8") != before:  # someone wrote it meanwhile: try once more
            return changed[:-1] + refresh_setup([path, *paths[paths.index(path) + 1:]], check)
        nbtools.write(nb, path)
    return changed


def add_arguments(p):
    p.add_argument("--check", action="store_true", help="only list the notebooks whose set-up cell is out of date")


def run(args) -> int:
    changed = refresh_setup(check=args.check)
    verb = "out of date" if args.check else "refreshed"
    print(f"set-up cell {verb} in {len(changed)} notebook(s)" + "".join(f"\n  {p}" for p in changed))
    if changed and not args.check:
        print("now run: python -m graders build")
    return 1 if (args.check and changed) else 0
