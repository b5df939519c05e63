"""``python -m graders collect DOWNLOAD --course DIR``: LMS hand-ins into nbgrader's ``submitted/``.

DOWNLOAD is an LMS download, a folder or the zip itself. A reader in ``graders.intake.lms`` says whose each
file is (Canvas, Moodle, Google Classroom, Gradescope, plain per-student folders, nbgrader's own
``submitted/``); ``graders.intake.match`` says which released notebook it is (by name, undoing Colab's and
browsers' renames, else by content); the newest version of a notebook wins. Each one lands in
``DIR/submitted/<student_id>/<notebook>/<notebook>.ipynb`` with nbgrader's ``timestamp.txt``, and in
``DIR/collect_manifest.csv`` (who, which LMS id, when, from which file). Every file not filed is in
``DIR/collect_report.csv`` with the reason. A rerun changes nothing; a newer download updates; a
file collect did not write is never replaced.

Not nbgrader's ``zip_collect`` app itself: it wants one assignment per run, file names equal to the
released ones, clears a student's ``submitted/`` folder (``--force``) and unpacks students' own zips
without limits. Its collector plugins are used where they fit (``lms.canvas``, ``lms.moodle``).
"""

from __future__ import annotations

import csv
import datetime
import hashlib
import io
import os
import tempfile
import zipfile
from dataclasses import dataclass, field
from pathlib import Path, PurePosixPath

from graders import limits
from graders.intake import files
from graders.intake import match as intake
from graders.intake.lms import HandIn, Skipped, canvas, classroom, folders, gradescope, is_system, moodle, slug
from graders.paths import notebook_names

READERS = [gradescope, moodle, canvas, classroom]  # tried in this order at each level; folders last
MANIFEST, REPORT = "collect_manifest.csv", "collect_report.csv"
MANIFEST_FIELDS = ["student_id", "lms", "lms_id", "name", "email", "notebook", "submitted_at", "late",
                   "submission_id", "source", "key", "sha256"]
REPORT_FIELDS = ["file", "student", "reason"]


@dataclass
class Filed:
    student_id: str
    notebook: str
    hand_in: HandIn
    source: str
    status: str          # added, updated, unchanged
    submitted_at: float


@dataclass
class Result:
    filed: list[Filed] = field(default_factory=list)
    skipped: list[Skipped] = field(default_factory=list)
    layouts: list[str] = field(default_factory=list)


# ---------------------------------------------------------------------------------------------
# The download: a zip is unpacked (with limits), then each layout's root is found
# ---------------------------------------------------------------------------------------------
class Sources:
    """What a person recognises for a file: ``submissions.zip:smithbob_..._01_devices.ipynb``."""

    def __init__(self, download: Path):
        self.bases = [(download if download.is_dir() else download.parent, "")]

    def add(self, base: Path, prefix: str) -> None:
        self.bases.insert(0, (base, prefix))

    def label(self, path: Path) -> str:
        for base, prefix in self.bases:
            if Path(path).is_relative_to(base):
                inside = str(Path(path).relative_to(base))
                return prefix + ("" if inside == "." else inside)
        return str(path)


def extract(archive: Path, dest: Path, label: str, skipped: list[Skipped]) -> bool:
    """Unpack an LMS zip safely: no paths outside ``dest``, no file over the size limit, times kept."""
    cap = int(limits.MAX_FILE_MIB * 2**20)
    try:
        with zipfile.ZipFile(archive) as zf:
            for member in zf.infolist():
                parts = PurePosixPath(member.filename.replace("\\", "/")).parts
                if member.is_dir() or not parts:
                    continue
                where = f"{label}:{member.filename}"
                if member.filename.startswith("/") or ".." in parts:
                    skipped.append(Skipped(where, "ignored: a path outside the zip's folder"))
                    continue
                if member.file_size > cap:
                    skipped.append(Skipped(where, f"over the {limits.MAX_FILE_MIB:g} MiB limit for one file"))
                    continue
                target = dest.joinpath(*parts)
                target.parent.mkdir(parents=True, exist_ok=True)
                with zf.open(member) as src, open(target, "wb") as out:
                    out.write(src.read(cap + 1)[:cap])
                when = datetime.datetime(*member.date_time).timestamp()  # a zip stores local time, no zone
                os.utime(target, (when, when))
    except (zipfile.BadZipFile, OSError, NotImplementedError, RuntimeError, ValueError) as error:
        skipped.append(Skipped(label, f"could not unpack it as a zip ({type(error).__name__}: {str(error)[:80]})"))
        return False
    return True


def _entries(folder: Path) -> list[Path]:
    return [p for p in sorted(folder.iterdir()) if not is_system(Path(p.name))]


def _chain(root: Path) -> list[Path]:
    """``root`` and the folders below it while each holds a single folder (a zip's wrapper folder)."""
    chain = [root]
    while True:
        entries = _entries(chain[-1])
        if len(entries) != 1 or not entries[0].is_dir() or (chain[-1] / gradescope.METADATA).exists():
            return chain
        chain.append(entries[0])


def _lms_named(path: Path) -> bool:
    return bool(canvas.CanvasCollector().parse(path.name) or moodle.MoodleCollector().parse(path.name))


def find_layouts(path: Path, names: list[str], tmp: Path, sources: Sources, skipped: list[Skipped],
                 depth: int = 0) -> list[tuple[str, list[HandIn], list[Skipped]]]:
    """Every layout in the download: (its name, its hand-ins, the files it does not file)."""
    if path.is_file():
        dest = tmp / f"download{len(sources.bases)}"
        if not extract(path, dest, sources.label(path), skipped):
            return []
        sources.add(dest, sources.label(path) + ":")
        path = dest
    chain = _chain(path)
    entries = _entries(chain[-1])
    zips = [p for p in entries if p.is_file() and p.suffix.lower() == ".zip" and not _lms_named(p)]
    if zips and len(zips) == len(entries) and depth < 2:  # a folder of downloads (say, one per notebook)
        return [found for z in zips for found in find_layouts(z, names, tmp, sources, skipped, depth + 1)]
    for level in chain:
        for reader in READERS:
            found = reader.read(level, names)
            if found is not None:
                return [(f"{reader.NAME} ({sources.label(level).rstrip(':') or level.name})", *found)]
    for level in reversed(chain):  # the deepest level whose folders are students (not one level up)
        found = folders.read(level, names)
        if found is not None and not all(h.student_id in names or h.key in names for h in found[0]):
            return [(f"per-student folders ({sources.label(level).rstrip(':') or level.name})", *found)]
    skipped.append(Skipped(sources.label(path) or str(path), "no layout recognised here"))
    return []


def looks_for() -> str:
    return "; ".join(r.LOOKS_FOR for r in READERS + [folders])


def detect(path: Path, names: list[str] | None = None) -> str | None:
    """The LMS a download comes from, when it is not per-student folders (for autograde's refusal)."""
    path = Path(path)
    if path.is_file():
        return "zip" if zipfile.is_zipfile(path) else None
    names = names or notebook_names()
    for level in _chain(path):
        for reader in READERS:
            if reader.read(level, names) is not None:
                return reader.NAME
    return None


# ---------------------------------------------------------------------------------------------
# Students and files
# ---------------------------------------------------------------------------------------------
def assign_ids(hand_ins: list[HandIn], manifest: list[dict]) -> None:
    """A student id per person: kept from earlier runs, else the reader's, made unique."""
    known = {(r["lms"], r["key"]): r["student_id"] for r in manifest}
    taken = {r["student_id"]: (r["lms"], r["key"]) for r in manifest}
    for h in sorted(hand_ins, key=lambda h: (h.lms, h.key)):
        ident = (h.lms, h.key)
        if ident not in known:
            want = h.student_id or h.key
            if taken.get(want, ident) != ident:  # two people, one name: the newcomer gets the LMS id too
                want = f"{want}_{slug(h.lms_id or h.key)}"
            known[ident] = taken[want] = want
        h.student_id = known[ident]


def candidates(hand_in: HandIn, sources: Sources, budget: list[int],
               skipped: list[Skipped]) -> list[files.Candidate]:
    """The notebook-like files of one hand-in, zip members included; the others are reported."""
    found = []
    for path, given in hand_in.files:
        label = sources.label(path)
        when = hand_in.submitted_at or path.stat().st_mtime
        if path.suffix.lower() == ".zip":
            members, notes = files.zip_candidates(path, budget)
            for c in members:
                c.label = f"{label}:{c.label.split(':', 1)[1]}"
                c.mtime = hand_in.submitted_at or c.mtime
            found += members
            skipped += [Skipped(label, note, hand_in.student_id) for note in notes]
            skipped += [Skipped(f"{label}:{m}", "inside a zip, not a notebook", hand_in.student_id)
                        for m in _other_members(path)]
        elif files.looks_like_notebook(given):
            found.append(files.Candidate(given, label, when, path=path))
        else:
            skipped.append(Skipped(label, f"not a notebook ({Path(given).suffix or 'no extension'})",
                                   hand_in.student_id))
    return found


def _other_members(path: Path) -> list[str]:
    try:
        with zipfile.ZipFile(path) as zf:
            return [m.filename for m in zf.infolist() if not m.is_dir() and not files.looks_like_notebook(
                m.filename) and not is_system(Path(m.filename))]
    except (zipfile.BadZipFile, OSError):
        return []


def timestamp_text(epoch: float) -> str:
    """nbgrader's own format (``Exchange.timestamp_format``), in UTC, as ``parse_utc`` reads it."""
    return datetime.datetime.fromtimestamp(epoch, datetime.timezone.utc).strftime("%Y-%m-%d %H:%M:%S.%f UTC")


def iso(epoch: float) -> str:
    return datetime.datetime.fromtimestamp(round(epoch), datetime.timezone.utc).isoformat()


def place(course: Path, sid: str, name: str, cand: files.Candidate, old: dict | None) -> tuple[str, str]:
    """Write one notebook and its timestamp.txt, unless that would lose something: (status, why)."""
    folder = course / "submitted" / sid / name
    dest = folder / f"{name}.ipynb"
    data = cand.read()
    digest = hashlib.sha256(data).hexdigest()
    if dest.exists():
        current = hashlib.sha256(dest.read_bytes()).hexdigest()
        if old is None or old["sha256"] != current:
            return "kept", f"{dest.relative_to(course)} was not written by collect (or changed since): left as is"
        if current == digest:
            return "unchanged", ""
        before = datetime.datetime.fromisoformat(old["submitted_at"]).timestamp()
        if round(cand.mtime) <= round(before):
            return "kept", (f"not newer than the version already filed ({old['source']}, {old['submitted_at']}); "
                            "kept that one")
    elif (folder / "timestamp.txt").exists() and old is None:
        return "kept", f"{folder.relative_to(course)}/timestamp.txt was not written by collect: left as is"
    folder.mkdir(parents=True, exist_ok=True)
    status = "updated" if dest.exists() else "added"
    part = dest.with_suffix(".ipynb.part")
    part.write_bytes(data)
    part.replace(dest)
    (folder / "timestamp.txt").write_text(timestamp_text(cand.mtime) + "\n")
    return status, digest


# ---------------------------------------------------------------------------------------------
# The run
# ---------------------------------------------------------------------------------------------
def read_csv(path: Path) -> list[dict]:
    if not path.exists():
        return []
    with open(path, newline="") as f:
        return list(csv.DictReader(f))


def write_csv(path: Path, fields: list[str], rows: list[dict]) -> None:
    """Write the table, or leave the file as it is when it already holds exactly that (a rerun)."""
    text = io.StringIO()
    writer = csv.DictWriter(text, fields)
    writer.writeheader()
    writer.writerows(rows)
    data = text.getvalue().encode()
    if path.exists() and path.read_bytes() == data:
        return
    part = path.with_suffix(".part")
    part.write_bytes(data)
    part.replace(path)


def collect(download: Path, course: Path, names: list[str] | None = None, echo=print) -> Result:
    names = names or notebook_names()
    download, course = Path(download).resolve(), Path(course).resolve()
    if download.is_relative_to(course / "submitted"):
        raise ValueError(f"{download} is inside the course's own submitted/ folder: nothing to collect")
    course.mkdir(parents=True, exist_ok=True)
    manifest = {(r["student_id"], r["notebook"]): r for r in read_csv(course / MANIFEST)}
    result = Result()
    sources = Sources(download)
    with tempfile.TemporaryDirectory(prefix="collect-") as tmp:
        layouts = find_layouts(download, names, Path(tmp), sources, result.skipped)
        hand_ins = [h for _, found, _ in layouts for h in found]
        assign_ids(hand_ins, list(manifest.values()))
        for layout, found, skipped in layouts:
            result.layouts.append(f"{layout}: {len({h.student_id for h in found})} student(s)")
            result.skipped += [Skipped(sources.label(Path(s.file)) if Path(s.file).is_absolute() else s.file,
                                       s.reason, s.student) for s in skipped]
        claims = _match(hand_ins, names, sources, result.skipped)
        for (sid, name), group in sorted(claims.items()):
            _file(course, sid, name, group, manifest, sources, result)
    write_csv(course / MANIFEST, MANIFEST_FIELDS, [manifest[k] for k in sorted(manifest)])
    write_csv(course / REPORT, REPORT_FIELDS, [{"file": s.file, "student": s.student, "reason": s.reason}
                                               for s in result.skipped])
    _echo(result, download, course, echo)
    return result


def _match(hand_ins: list[HandIn], names: list[str], sources: Sources, skipped: list[Skipped]) -> dict:
    """(student_id, notebook) -> [(candidate, hand_in)] for every file that claims that notebook."""
    owner, by_student = {}, {}
    for h in hand_ins:
        by_student.setdefault(h.student_id, []).append(h)
    claims: dict = {}
    for sid, group in by_student.items():
        budget = [int(limits.MAX_UNZIPPED_MIB * 2**20)]
        cands = []
        for h in group:
            for c in candidates(h, sources, budget, skipped):
                owner[id(c)] = h
                cands.append(c)
        for c in [c for c in cands if c.problem]:
            skipped.append(Skipped(c.label, c.problem, sid))
        cands = [c for c in cands if not c.problem]
        found = intake.match_candidates(cands, names)
        matched = {id(c) for group in found.values() for c in group}
        for c in cands:
            if id(c) not in matched:
                skipped.append(Skipped(c.label, "no released notebook matches it by name or by content", sid))
        for name, group in found.items():
            if group:
                claims[(sid, name)] = [(c, owner[id(c)]) for c in group]
    return claims


def _file(course: Path, sid: str, name: str, group: list, manifest: dict, sources: Sources, result: Result):
    cands = [c for c, _ in group]
    pick, _ = intake.choose(cands, name)
    hand_in = next(h for c, h in group if c is pick)
    why = intake.why_chosen(pick, cands, name) if len(group) > 1 else ""
    for c, _ in group:
        if c is not pick:
            result.skipped.append(Skipped(c.label, f"another version of {name} was filed, '{pick.label}': {why}", sid))
    status, detail = place(course, sid, name, pick, manifest.get((sid, name)))
    if status == "kept":
        result.skipped.append(Skipped(pick.label, detail, sid))
        return
    if status != "unchanged":
        manifest[(sid, name)] = {
            "student_id": sid, "lms": hand_in.lms, "lms_id": hand_in.lms_id, "name": hand_in.name,
            "email": hand_in.email, "notebook": name, "submitted_at": iso(pick.mtime),
            "late": "" if hand_in.late is None else str(hand_in.late).lower(), "submission_id": hand_in.submission_id,
            "source": pick.label, "key": hand_in.key, "sha256": detail}
    result.filed.append(Filed(sid, name, hand_in, pick.label, status, pick.mtime))
    if why:
        result.filed[-1].source += f" ({why})"


def _echo(result: Result, download: Path, course: Path, echo) -> None:
    echo(f"collect: {download} -> {course / 'submitted'}")
    for layout in result.layouts:
        echo(f"  layout: {layout}")
    for f in result.filed:
        late = " LATE" if f.hand_in.late else ""
        lms_id = f" {f.hand_in.lms} {f.hand_in.lms_id}" if f.hand_in.lms_id else f" {f.hand_in.lms}"
        echo(f"  {f.status:<9} {f.student_id}/{f.notebook} ({lms_id.strip()}, {iso(f.submitted_at)}{late}) "
             f"<- {f.source}")
    for s in result.skipped:
        echo(f"  not filed: {s.file}{f' [{s.student}]' if s.student else ''}: {s.reason}")
    counts = {k: sum(f.status == k for f in result.filed) for k in ("added", "updated", "unchanged")}
    students = len({f.student_id for f in result.filed})
    echo(f"filed {len(result.filed)} notebook(s) of {students} student(s) ({counts['added']} added, "
         f"{counts['updated']} updated, {counts['unchanged']} unchanged); {len(result.skipped)} file(s) not "
         f"filed, listed with the reason in {course / REPORT}")
