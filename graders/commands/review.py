from pathlib import Path

HELP = ("list the notebooks a tamper check flagged for review, with the evidence; --accept or --reject one "
        "(kept in DIR/reviews.json and applied by every later autograde and merge run)")


def add_arguments(p):
    p.add_argument("graded", type=Path, help="the --out folder of `python -m graders autograde` (or merge)")
    who = p.add_mutually_exclusive_group()
    who.add_argument("--accept", nargs=2, metavar=("STUDENT", "NOTEBOOK"),
                     help="the finding is harmless: status graded with nbgrader's score")
    who.add_argument("--reject", nargs=2, metavar=("STUDENT", "NOTEBOOK"),
                     help="the finding is cheating: status graded with score 0 (or --score)")
    p.add_argument("--score", type=float, default=None, help="the score to give instead (with --accept or --reject)")
    p.add_argument("--note", default="", help="a reason, kept with the decision and shown in the message")
    p.add_argument("--all", action="store_true", dest="all_lost",
                   help="also list every graded notebook that lost points, each test cell with the reason")


def lost_lines(row) -> list[str]:
    """A line per test cell of ``row`` that lost points: its score and why."""
    lines = []
    for gid, reason in row.lost().items():
        score, mx = row.cells[gid]
        got = "withheld" if row.score is None else f"{score:g}/{mx:g}"
        lines.append(f"    lost {gid} ({got}): {reason}")
    return lines


def _show(rows, store, all_lost: bool = False) -> None:
    from graders.grading.review import key

    pending = [r for r in rows if r.status == "review"]
    if not pending:
        print("no notebook is waiting for review")
    for r in pending:
        review = store.findings.get(key(r.student_id, r.notebook))
        score = "withheld" if r.score is None else f"{r.score:g}/{r.max_score:g} (kept)"
        print(f"{r.student_id} {r.notebook}: score {score}")
        if review is not None:
            if review.ran:
                print(f"    nbgrader's score: {review.nbgrader_score():g}/{r.max_score:g}; submission {review.digest}")
            for line in review.evidence:
                print(f"    - {line}")
        for line in lost_lines(r):
            print(line)
    lost = [r for r in rows if r.status == "graded" and r.lost()]
    if lost and not all_lost:
        print(f"\n{len(lost)} graded notebook(s) lost points: `--all` lists each test cell and why")
    if all_lost:
        print(f"\n{len(lost)} graded notebook(s) lost points:" if lost else "\nno graded notebook lost points")
        for r in lost:
            print(f"{r.student_id} {r.notebook}: score {r.score:g}/{r.max_score:g}")
            for line in lost_lines(r):
                print(line)
    decided = len(store.decisions)
    print(f"\n{len(pending)} pending; {decided} decision(s) on record in {store.path}")


def run(args) -> int:
    from graders.errors import InputError
    from graders.grading import graded_folder, review

    folder = args.graded.resolve()
    if not graded_folder.has_grades(folder):
        raise InputError(f"{folder / graded_folder.GRADES} not found: run `python -m graders autograde` first")
    store = review.Store(folder)
    target = args.accept or args.reject
    if target is None:
        if args.score is not None:
            raise InputError("--score needs --accept or --reject")
        _show(graded_folder.read_csv(folder), store, args.all_lost)
        return 0
    student, notebook = target
    finding = store.findings.get(review.key(student, notebook))
    if finding is None:
        raise InputError(f"{student}/{notebook} has no finding to review in {store.path}")
    if args.accept and args.score is None and not finding.ran:
        raise InputError(f"{student}/{notebook} was not run, so there is no score to accept: give --score, or grade "
                         "it again with GRADER_RUN_FLAGGED=1")
    if args.score is not None and not 0 <= args.score <= sum(mx for _, mx in finding.cells.values()):
        raise InputError(f"--score {args.score:g} is outside 0..{sum(mx for _, mx in finding.cells.values()):g}")
    entry = store.decide(student, notebook, "accept" if args.accept else "reject", args.score, args.note)
    store.save()
    rows = review.reapply(folder)
    row = next((r for r in rows if (r.student_id, r.notebook) == (student, notebook)), None)
    now = "not in grades.csv" if row is None else \
        f"{row.status} {'-' if row.score is None else f'{row.score:g}'}/{row.max_score:g}"
    print(f"{entry['decision']}ed {student}/{notebook} (submission {entry['digest']}): {now}")
    print(f"updated {folder / graded_folder.GRADES}, {folder / graded_folder.DETAIL} and the gradebook")
    return 0
