HELP = ("score the reference and every mistake and alternative on every test cell, in one kernel per notebook "
        "and without nbgrader: each must lose exactly the tests it names")


def add_arguments(p):
    p.add_argument("notebooks", nargs="*", help="notebook names, 03 or 03_async_timing (default: all, or the one "
                                                "with --exercise's answer cell)")
    p.add_argument("--exercise", metavar="GRADE_ID", help="judge only the fixtures of this answer cell")
    p.add_argument("--record", action="store_true",
                   help="write each judged notebook's scores to tests/data/fixture_scores/NN.json (after a change "
                        "to its fixtures or tests that you have reviewed); prints what changed")
    p.add_argument("--answers", nargs="?", const="", metavar="DIR",
                   help="instead of the fixtures, grade the answers written from the docstrings alone in DIR "
                        "(default tests/data/docstring_answers): <notebook>/<answer cell>/{wrong,correct}_<slug>.py; "
                        "one line per file, the share of wrong ones the visible checks flag; exit 1 if a correct "
                        "answer loses points or a wrong one keeps full marks (unless DIR/verdicts.toml records a "
                        "misreading)")
    p.add_argument("--timeout", type=int, help="seconds one cell may run before it is interrupted "
                                               "(default: the grader's GRADER_CELL_TIMEOUT_S)")
    p.add_argument("--mutate", action="store_true",
                   help="instead of the fixtures, judge mutants of each reference answer (one AST change each; "
                        "docs/mutants.md): per notebook the share the hidden tests alone and the visible checks "
                        "catch, and every survivor; exit 1 if a mutant not recorded as equivalent in "
                        "tests/data/equivalent_mutants.toml passes the hidden tests")
    p.add_argument("--max-per-cell", type=int, metavar="N",
                   help="with --mutate: judge at most N mutants of each answer cell, spread over the operators "
                        "(default: 40; 0: all)")


def resolve(names: list[str]) -> list[str]:
    """``03`` or ``03_async_timing`` -> ``03_async_timing``; an unknown name is an error."""
    from graders.paths import notebook_names

    known = notebook_names()
    found = []
    for name in names:
        match = [n for n in known if n == name or n.split("_")[0] == name]
        if not match:
            raise SystemExit(f"judge: no notebook {name!r} (the course has {', '.join(known)})")
        found += match
    return found


def with_exercise(names: list[str], exercise: str) -> list[str]:
    """The notebooks among ``names`` (all where none are named) that have the answer cell ``exercise``."""
    from graders.paths import notebook_names
    from graders.qa.judge import answer_cells
    from graders.qa.kernel import solution_notebook

    found = [n for n in names or notebook_names() if exercise in answer_cells(solution_notebook(n))]
    if not found:
        raise SystemExit(f"judge: no answer cell {exercise!r} in {', '.join(names) or 'the course'}")
    return found


def line(v) -> str:
    def names(tests):
        return ",".join(sorted(tests)) or "-"
    mark = "PROBLEM" if v.problem() or v.coverage_problem() or v.hidden_problem() else "ok"
    text = (f"{mark:7} {v.notebook:16} {v.kind:11} {v.key:28} expected {names(v.expected):28} "
            f"got {names(v.lost):28} {v.score:g}/{v.max:g}")
    return text + seen(v)


def seen(v) -> str:
    """What the visible check says to a mistake: the hint it fails with, or why none is expected."""
    if v.kind != "mistake" or not v.expected:
        return ""
    if v.flagged_by:
        text = f"\n        visible {v.flagged_by[0]}: {v.visible[v.flagged_by[0]]}"
    elif v.hidden_only:
        text = f"\n        hidden-only: {v.hidden_only}"
    else:
        text = "\n        visible: NOT FLAGGED (the visible checks pass it)"
    return text + (f"\n        hidden {v.caught_by[0]}: {v.hidden[v.caught_by[0]]}" if v.caught_by
                   else "\n        hidden: NOT CAUGHT (the hidden tests alone pass it)")


def run(args) -> int:
    import time

    from graders.limits import Limits
    from graders.paths import notebook_names
    from graders.qa.judge import Coverage, judge_notebook, record

    limits = Limits.from_env()
    names = resolve(args.notebooks)
    if args.exercise:
        names = with_exercise(names, args.exercise)
    names = names or notebook_names()  # none named: every notebook
    if args.mutate:
        if args.answers is not None or args.record:
            raise SystemExit("judge: --mutate judges generated mutants (no --answers, no --record)")
        return run_mutate(names, args.exercise, args.max_per_cell, args.timeout, limits,
                          quiet=getattr(args, "global_quiet", False))
    if args.answers is not None:
        if args.exercise or args.record:
            raise SystemExit("judge: --answers judges whole notebooks' answer files (no --exercise, no --record)")
        return run_answers(args.answers, names, args.timeout, limits)
    start = time.monotonic()
    verdicts, coverage = [], []
    for name in names:
        mine = judge_notebook(name, args.exercise, args.timeout, limits=limits)
        for v in mine:
            print(line(v), flush=True)
        verdicts += mine
        coverage.append(Coverage.of(name, mine))
        if args.record:
            if args.exercise:
                raise SystemExit("judge: --record needs the whole notebook (no --exercise)")
            print("\n".join(record(name, mine)) or f"{name}: the record is unchanged")
    problems = [p for v in verdicts for p in (v.problem(), v.coverage_problem(), v.hidden_problem()) if p]
    if not args.exercise:  # the clauses need every fixture of the notebook judged
        from graders.authoring import clauses
        for name in names:
            mine = [v for v in verdicts if v.notebook == name]
            print("\n".join(clauses.report(name, mine)))
            problems += clauses.problems(name) + clauses.verdict_problems(name, mine)
    if problems:
        print("\n".join(problems))
    for c in coverage + ([Coverage.of("in all", verdicts)] if len(coverage) > 1 else []):
        print(c)
    fixtures = sum(v.kind != "reference" for v in verdicts)
    print(f"judge: {fixtures} fixtures, {len(problems)} problems, {time.monotonic() - start:.0f} s")
    return 1 if problems else 0


def run_answers(folder: str, names: list[str], timeout: int | None, limits) -> int:
    """``judge --answers``: every answer file in ``folder`` for ``names``, one kernel per notebook."""
    import time
    from pathlib import Path

    from graders.qa.docstring_answers import ANSWERS, Tally, judge_answers, read_answers, read_misreads

    root = Path(folder) if folder else ANSWERS
    answers, misreads = read_answers(root, names), read_misreads(root)
    start = time.monotonic()
    outcomes, problems, tallies = [], [], []
    for name in [n for n in names if n in answers]:
        mine, broken = judge_answers(name, answers[name], misreads, timeout, limits)
        for o in mine:
            print(o.line(), flush=True)
        outcomes += mine
        problems += broken + [p for o in mine if (p := o.problem())]
        tallies.append(Tally.of(name, mine))
    if not outcomes:
        raise SystemExit(f"judge: no answer files for {', '.join(names)} in {root}")
    unseen = [o for o in outcomes if o.counts_as == "wrong" and not o.flagged_by]
    if unseen:
        print("wrong answers the visible checks do not flag:")
        print("\n".join(f"  {o.answer.path}" + ("" if o.loses else " (keeps full marks)") for o in unseen))
    blind = [o for o in outcomes if o.counts_as == "wrong" and o.loses and not o.caught_by]
    if blind:
        print("wrong answers the hidden tests alone pass (only the visible check makes them lose):")
        print("\n".join(f"  {o.answer.path}" for o in blind))
        problems += [f"{o.answer.path}: the hidden tests alone pass it (breaks {o.answer.claim or '?'})"
                     for o in blind]
    if problems:
        print("\n".join(problems))
    print(Tally.header())
    for t in tallies + ([Tally.of("in all", outcomes)] if len(tallies) > 1 else []):
        print(t.row())
    print(f"judge --answers: {len(outcomes)} answers, {len(problems)} problems, {time.monotonic() - start:.0f} s")
    return 1 if problems else 0


def run_mutate(names: list[str], exercise: str | None, cap: int | None, timeout: int | None, limits,
               quiet: bool = False) -> int:
    """``judge --mutate``: the sampled mutants of each notebook's answers, one kernel per notebook."""
    import sys
    import time

    from tqdm import tqdm

    from graders.qa import mutants

    cap = mutants.MAX_PER_CELL if cap is None else (cap or None)
    equivalents, start = mutants.read_equivalents(), time.monotonic()
    every = {name: mutants.notebook_mutants(name, exercise) for name in names}
    chosen = {name: [m for cell in cells.values() for m in mutants.sample(cell, cap)] for name, cells in every.items()}
    outcomes, problems, tallies = [], [], []
    with tqdm(total=sum(map(len, chosen.values())), file=sys.stderr, unit="mutant", disable=quiet) as bar:
        for name in names:
            bar.set_description(name)
            mine, broken = mutants.judge_mutants(name, chosen[name], equivalents, timeout, limits, bar.update)
            generated = sum(map(len, every[name].values()))
            tqdm.write(f"{name}: {len(mine)} of its {generated} mutants judged", file=sys.stdout)
            for o in mine:
                if o.mark != "ok":
                    print(o.line(), flush=True)
            outcomes += mine
            problems += broken
            tallies.append(mutants.Tally.of(name, generated, mine))
    missed = [o for o in outcomes if o.mark in ("SURVIVES", "HIDDEN-MISS", "stale")]
    if problems:
        print("the reference does not keep full marks (the figures below mean nothing):\n  " + "\n  ".join(problems))
    if len(tallies) > 1:
        tallies.append(mutants.Tally.of("in all", sum(t.generated for t in tallies), outcomes))
    print(mutants.Tally.header())
    print("\n".join(t.row() for t in tallies))
    print(f"judge --mutate: {len(outcomes)} mutants judged, {tallies[-1].generated - len(outcomes)} skipped by the cap "
          f"({cap or 'none'} per answer cell); {len(missed)} pass the hidden tests or are recorded as equivalent "
          f"wrongly; {time.monotonic() - start:.0f} s")
    return 1 if missed or problems else 0
