"""``python -m graders collect DOWNLOAD --course DIR [--roster FILE]``: LMS hand-ins into nbgrader's ``submitted/``.

DOWNLOAD is an LMS download, a folder or the zip itself. ``graders.intake.download`` finds its layout and a
reader in ``graders.intake.lms`` says whose each file is, by the identifier that LMS gives (Canvas user id,
Moodle participant id, Gradescope SID or e-mail, Blackboard username, Brightspace id; Classroom gives none, so a
roster decides: ``graders.intake.join``) and when the LMS says it was handed in. ``graders.intake.student_files`` says
which released notebook a file is; ``graders.intake.newest`` which version is filed. Each one lands in
``DIR/submitted/<student_id>/<notebook>/<notebook>.ipynb`` with nbgrader's ``timestamp.txt`` when the LMS records
a time, and in ``DIR/collect_manifest.csv``. Every file not filed is in ``DIR/collect_report.csv`` with the
reason. A rerun changes nothing; a newer download updates; a file collect did not write is never replaced.

Not nbgrader's ``zip_collect`` app itself: it wants one assignment per run, file names equal to the
released ones, clears a student's ``submitted/`` folder (``--force``) and unpacks students' own zips
without limits. Its collector plugins are used where they fit (``lms.canvas``, ``lms.moodle``).
"""

from __future__ import annotations

import datetime
import hashlib
import tempfile
import zipfile
from dataclasses import dataclass, field
from pathlib import Path

from graders.csvfile import read_rows, write_rows
from graders.errors import InputError
from graders.intake import files, student_files
from graders.intake.download import UNKNOWN, Sources, find_layouts, looks_for  # noqa: F401 (the command's)
from graders.intake.lms import HandIn, Skipped, is_system, safe_id
from graders.intake.newest import Version, choose, iso
from graders.limits import Limits
from graders.paths import notebook_names

try:
    from graders.intake.roster import KINDS
except ImportError:  # roster.py not there yet: the interface's list (notes/lms_interface.md)
    KINDS = ("canvas_user_id", "sis_user_id", "sis_login_id", "integration_id", "moodle_user_id", "username",
             "id_number", "email", "org_defined_id", "sid")

MANIFEST, REPORT = "collect_manifest.csv", "collect_report.csv"
_FIELDS = ["student_id", "lms", "lms_id", "name", "email", "notebook", "submitted_at", "late", "time_source", "group",
           "submission_id", "source", "key", "sha256"]
MANIFEST_FIELDS = _FIELDS + [k for k in KINDS if k not in _FIELDS]  # "email" is both: one column
REPORT_FIELDS = ["file", "student", "reason"]


@dataclass
class Filed:
    student_id: str
    notebook: str
    hand_in: HandIn
    source: str
    status: str          # added, updated, unchanged
    submitted_at: float | None


@dataclass
class Result:
    filed: list[Filed] = field(default_factory=list)
    skipped: list[Skipped] = field(default_factory=list)
    layouts: list[str] = field(default_factory=list)
    notes: list[str] = field(default_factory=list)     # said once each: group hand-ins, roster joins, Canvas times

    @property
    def refused(self) -> list[str]:
        """The files of a download (or part of one) whose layout no reader took."""
        return [s.file for s in self.skipped if s.reason.startswith(UNKNOWN)]


def detect(path: Path, names: list[str] | None = None) -> str | None:
    from graders.intake.download import detect as _detect
    return _detect(path, names or notebook_names())


# ---------------------------------------------------------------------------------------------
# Students and files
# ---------------------------------------------------------------------------------------------
def assign_ids(hand_ins: list[HandIn], manifest: list[dict]) -> None:
    """A student id per person: kept from earlier runs, else the reader's, made unique (case folded: a Mac's
    disk holds ``anon_AbCde`` and ``anon_abCde`` as one folder)."""
    known = {(r["lms"], r["key"]): r["student_id"] for r in manifest}
    taken = {r["student_id"].casefold(): (r["lms"], r["key"]) for r in manifest}
    for h in sorted(hand_ins, key=lambda h: (h.lms, h.key)):
        ident = (h.lms, h.key)
        if ident not in known:
            want, n = h.student_id or safe_id(h.key), 1
            while taken.get(want.casefold(), ident) != ident:
                n += 1
                want = f"{h.student_id or safe_id(h.key)}_{n}"
            known[ident] = want
            taken[want.casefold()] = ident
        h.student_id = known[ident]


def candidates(hand_in: HandIn, sources: Sources, budget: list[int],
               skipped: list[Skipped], limits: Limits) -> list[Version]:
    """The notebook-like files of one hand-in, zip members included, each with its time; the others reported."""
    found = []
    for path, given in hand_in.files:
        label = sources.label(path)
        if path.suffix.lower() == ".zip":
            members, notes = files.zip_candidates(path, budget, limits)
            for c in members:
                c.label = f"{label}:{c.label.split(':', 1)[1]}"
                found.append(Version(c, hand_in, _time(hand_in, path)))
            skipped += [Skipped(label, note, hand_in.student_id) for note in notes]
            skipped += [Skipped(f"{label}:{m}", why, hand_in.student_id) for m, why in _other_members(path)]
        elif files.looks_like_notebook(given):
            when = _time(hand_in, path)
            found.append(Version(files.Candidate(given, label, when or 0.0, path=path), hand_in, when))
        else:
            skipped.append(Skipped(label, f"not a notebook ({Path(given).suffix or 'no extension'})",
                                   hand_in.student_id))
    return found


def _time(hand_in: HandIn, path: Path) -> float | None:
    """The LMS's time for the hand-in; the file's own time only where the LMS records nothing else (Moodle's
    stored file time, per-student folders); never a zip entry time the LMS sets to the download (Canvas)."""
    if hand_in.submitted_at is not None:
        return hand_in.submitted_at
    return path.stat().st_mtime if hand_in.file_times else None


def _other_members(path: Path) -> list[tuple[str, str]]:
    """The members of a student's zip that are not filed, with the reason (the OS's files included)."""
    try:
        with zipfile.ZipFile(path) as zf:
            names = [m.filename for m in zf.infolist() if not m.is_dir()]
    except (zipfile.BadZipFile, OSError):
        return []
    system = "ignored: a file the operating system adds, not a hand-in"
    return [(n, system if is_system(Path(n)) else "inside a zip, not a notebook") for n in names
            if is_system(Path(n)) or not files.looks_like_notebook(n)]


def timestamp_text(epoch: float) -> str:
    """nbgrader's own format (``Exchange.timestamp_format``), in UTC, as ``parse_utc`` reads it; to the second, as
    the manifest's ``submitted_at`` (the two must agree)."""
    return datetime.datetime.fromtimestamp(round(epoch), datetime.UTC).strftime("%Y-%m-%d %H:%M:%S.%f UTC")


def _newer(version: Version, old: dict) -> bool:
    """Whether ``version`` is newer than the one filed before (``old``, its manifest row)."""
    if version.when is not None and old.get("submitted_at"):
        return round(version.when) > round(datetime.datetime.fromisoformat(old["submitted_at"]).timestamp())
    if old.get("lms") == version.hand_in.lms == "Canvas" and old.get("submission_id", "").isdigit() \
            and version.hand_in.submission_id.isdigit():  # Canvas: a later upload has a higher attachment id
        return int(version.hand_in.submission_id) > int(old["submission_id"])
    return version.when is not None  # a time now, none before: the LMS's record wins


def _stale_canvas_time(version: Version, old: dict) -> bool:
    """A Canvas row an older collect timed by the zip's entries (no ``time_source`` then): not the LMS's time."""
    return version.hand_in.lms == "Canvas" and bool(old.get("submitted_at")) and not old.get("time_source")


def place(course: Path, sid: str, name: str, version: Version, old: dict | None) -> tuple[str, str]:
    """Write one notebook and its timestamp.txt, unless that would lose something: (status, why)."""
    folder = course / "submitted" / sid / name
    dest, stamp = folder / f"{name}.ipynb", folder / "timestamp.txt"
    data = version.cand.read()
    digest = hashlib.sha256(data).hexdigest()
    if dest.exists():
        current = hashlib.sha256(dest.read_bytes()).hexdigest()
        if old is None or old["sha256"] != current:
            return "kept", f"{dest.relative_to(course)} was not written by collect (or changed since): left as is"
        if current == digest:
            if version.when is None and _stale_canvas_time(version, old):
                stamp.unlink(missing_ok=True)  # an older collect took Canvas's zip-build time for the submission's
                return "updated", digest
            if version.when is None or iso(version.when) == old.get("submitted_at"):
                return "unchanged", ""
            stamp.write_text(timestamp_text(version.when) + "\n")  # the same work, a time now known (--times)
            return "updated", digest
        if not _newer(version, old):
            return "kept", (f"not newer than the version already filed ({old['source']}, "
                            f"{old['submitted_at'] or 'file id ' + old['submission_id']}); kept that one")
    elif stamp.exists() and old is None:
        return "kept", f"{folder.relative_to(course)}/timestamp.txt was not written by collect: left as is"
    folder.mkdir(parents=True, exist_ok=True)
    status = "updated" if dest.exists() else "added"
    part = dest.with_suffix(".ipynb.part")
    part.write_bytes(data)
    part.replace(dest)
    if version.when is not None:
        stamp.write_text(timestamp_text(version.when) + "\n")
    elif stamp.exists() and old is not None and old.get("submitted_at"):
        stamp.unlink()  # collect wrote it for the version this one replaces; this one has no time
    return status, digest


# ---------------------------------------------------------------------------------------------
# The run
# ---------------------------------------------------------------------------------------------
def collect(download: Path, course: Path, names: list[str] | None = None, echo=None,
            roster: Path | None = None, times: Path | None = None, limits: Limits | None = None) -> Result:
    """File every hand-in of ``download`` into ``course`` (``limits``: default :meth:`Limits.from_env`).

    ``echo``: a function given each line of the report (the command passes ``print``); default: no report.
    """
    limits = limits or Limits.from_env()
    names = names or notebook_names()
    download, course = Path(download).resolve(), Path(course).resolve()
    if download.is_relative_to(course / "submitted"):
        raise InputError(f"{download} is inside the course's own submitted/ folder: nothing to collect")
    members = _read_roster(roster) if roster else None  # a bad roster stops here, before anything is written
    supplied = _read_times(times) if times else None
    course.mkdir(parents=True, exist_ok=True)
    manifest = {(r["student_id"], r["notebook"]): r for r in read_rows(course / MANIFEST)}
    result = Result()
    sources = Sources(download)
    with tempfile.TemporaryDirectory(prefix="collect-") as tmp:
        layouts = find_layouts(download, names, Path(tmp), sources, result.skipped, limits)
        hand_ins = [h for _, found, _ in layouts for h in found]
        for layout, found, skipped in layouts:
            result.layouts.append(f"{layout}: {len({(h.lms, h.key) for h in found})} person(s)")
            result.skipped += skipped
        undecided: list = []
        if members is not None:
            from graders.intake import join
            hand_ins = join.join(hand_ins, members, result.skipped, result.notes, undecided)
        assign_ids(hand_ins, list(manifest.values()))
        if supplied is not None:
            from graders.intake import times as given
            given.apply(hand_ins, supplied, result.notes)
        claims = _match(hand_ins, names, sources, result.skipped, limits, course)
        for (sid, name), group in sorted(claims.items()):
            _file(course, sid, name, group, manifest, result)
        if members is not None:
            from graders.intake import join
            result.skipped += join.without_hand_in(members, hand_ins, undecided)
    result.skipped = [Skipped(sources.label(Path(s.file)) if Path(s.file).is_absolute() else s.file, s.reason,
                              s.student) for s in result.skipped]
    result.notes += _canvas_time_note(result)
    write_rows(course / MANIFEST, MANIFEST_FIELDS, [manifest[k] for k in sorted(manifest)])
    write_rows(course / REPORT, REPORT_FIELDS, [{"file": s.file, "student": s.student, "reason": s.reason}
                                               for s in result.skipped])
    if echo is not None:
        _echo(result, download, course, echo)
    return result


def _read_roster(path: Path):
    from graders.intake import roster
    if not Path(path).is_file():
        raise InputError(f"the roster {path} does not exist")
    return roster.read(Path(path))


def _read_times(path: Path) -> dict[str, float]:
    from graders.intake import times
    if not Path(path).is_file():
        raise InputError(f"the times file {path} does not exist")
    return times.read(Path(path))


def _match(hand_ins: list[HandIn], names: list[str], sources: Sources, skipped: list[Skipped], limits: Limits,
           course: Path) -> dict:
    """(student_id, notebook) -> [Version] for every file that claims that notebook."""
    by_student: dict[str, list[HandIn]] = {}
    for h in hand_ins:
        by_student.setdefault(h.student_id, []).append(h)
    claims: dict = {}
    for sid, group in by_student.items():
        budget = [int(limits.max_unzipped_mib * 2**20)]
        versions = [v for h in group for v in candidates(h, sources, budget, skipped, limits)]
        for v in [v for v in versions if v.cand.problem]:
            skipped.append(Skipped(v.cand.label, v.cand.problem, sid))
        versions = [v for v in versions if not v.cand.problem]
        by_cand = {id(v.cand): v for v in versions}
        found = student_files.match_candidates([v.cand for v in versions], names, limits, course)
        matched = {id(c) for cands in found.values() for c in cands}
        for v in versions:
            if id(v.cand) not in matched:
                skipped.append(Skipped(v.cand.label, "no released notebook matches it by name or by content", sid))
        for name, cands in found.items():
            if cands:
                claims[(sid, name)] = [by_cand[id(c)] for c in cands]
    return claims


def _file(course: Path, sid: str, name: str, versions: list[Version], manifest: dict, result: Result):
    if len(versions) > 1 and all(v.hand_in.by_name for v in versions):
        for v in versions:  # Classroom without a roster: one name, two files: two people or one? Never guessed.
            result.skipped.append(Skipped(v.cand.label, (
                f"{len(versions)} files for {name} under the name '{v.hand_in.name}', and a Classroom download "
                "holds no id: one student's two versions or two students with the same name? Pass "
                "--roster (the class list) or put each student's files in a folder of their own"), sid))
        return
    pick, why = choose(versions, name)
    for v in versions:
        if v is not pick:
            result.skipped.append(Skipped(v.cand.label, f"another version of {name} was filed, "
                                          f"'{pick.cand.label}': {why}", sid))
    status, detail = place(course, sid, name, pick, manifest.get((sid, name)))
    if status == "kept":
        result.skipped.append(Skipped(pick.cand.label, detail, sid))
        return
    h = pick.hand_in
    if status == "unchanged":  # the same work; a roster given this time still adds the identifiers it knows
        row = manifest[(sid, name)]
        row.update({k: v for k, v in (("name", h.name), ("email", h.email), ("group", h.group), *h.ids.items())
                    if v and k in MANIFEST_FIELDS})
    else:
        manifest[(sid, name)] = {
            "student_id": sid, "lms": h.lms, "lms_id": h.lms_id, "name": h.name, "email": h.email,
            "notebook": name, "submitted_at": iso(pick.when), "late": "" if h.late is None else str(h.late).lower(),
            "time_source": h.time_source, "group": h.group, "submission_id": h.submission_id,
            "source": pick.cand.label, "key": h.key, "sha256": detail,
            **{k: h.ids.get(k, "") for k in KINDS if k not in _FIELDS}}
    result.filed.append(Filed(sid, name, h, pick.cand.label + (f" ({why})" if why else ""), status, pick.when))
    result.notes += [n for n in h.notes if n not in result.notes]


def _canvas_time_note(result: Result) -> list[str]:
    untimed = [f for f in result.filed if f.hand_in.lms == "Canvas" and f.submitted_at is None]
    late = sorted({f.student_id for f in untimed if f.hand_in.late})
    if not untimed:
        return []
    return [f"Canvas records no submission time in its download (every zip entry carries the moment the zip was "
            f"built): no timestamp.txt was written, so nbgrader applies no late penalty; Canvas marked "
            f"{len(late)} student(s) LATE ({', '.join(late[:5])}{', ...' if len(late) > 5 else ''}): "
            "collect_manifest.csv's 'late' column carries that flag to the export. Times you have (e.g. from "
            "Canvas's submission view): --times FILE"]


def _echo(result: Result, download: Path, course: Path, echo) -> None:
    echo(f"collect: {download} -> {course / 'submitted'}")
    for layout in result.layouts:
        echo(f"  layout: {layout}")
    for f in result.filed:
        late = " LATE" if f.hand_in.late else ""
        who = " ".join(x for x in (f.hand_in.lms, f.hand_in.lms_id or f.hand_in.key) if x)
        shown = f" {f.hand_in.name}," if f.hand_in.name else ""
        echo(f"  {f.status:<9} {f.student_id}/{f.notebook} ({who},{shown} {iso(f.submitted_at) or 'no time'}"
             f"{late}) <- {f.source}")
    for s in result.skipped:
        echo(f"  not filed: {s.file}{f' [{s.student}]' if s.student else ''}: {s.reason}")
    for note in result.notes:
        echo(f"  note: {note}")
    counts = {k: sum(f.status == k for f in result.filed) for k in ("added", "updated", "unchanged")}
    students = len({f.student_id for f in result.filed})
    echo(f"filed {len(result.filed)} notebook(s) of {students} student(s) ({counts['added']} added, "
         f"{counts['updated']} updated, {counts['unchanged']} unchanged); {len(result.skipped)} file(s) not "
         f"filed, listed with the reason in {course / REPORT}")
