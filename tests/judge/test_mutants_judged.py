"""``python -m graders judge --mutate`` on one small answer cell (01_devices ``pick_device``, a few mutants, one
kernel): the counts it prints add up, and a mutant that breaks the contract outright is killed by the hidden tests
alone and flagged by the visible check."""

from __future__ import annotations

import re

import pytest

from graders.__main__ import main
from graders.qa import mutants

NOTEBOOK, CELL, CAP = "01_devices", "pick_device", 6


@pytest.fixture(scope="session")
def one_judge_run():
    """Not the whole course's judge run that tests/judge/conftest.py makes for the other files: this file judges
    its own few mutants, in a kernel of its own, in seconds."""


def test_the_counts_add_up_and_a_mutant_that_returns_nothing_is_caught(capsys):
    every = mutants.notebook_mutants(NOTEBOOK, CELL)[CELL]
    chosen = mutants.sample(every, CAP)
    killable = next(m for m in chosen if m.operator == "return-none")  # pick_device returns None, not a device
    code = main(["judge", NOTEBOOK, "--exercise", CELL, "--mutate", "--max-per-cell", str(CAP)])
    out = capsys.readouterr().out
    row = next(line for line in out.splitlines() if line.startswith(NOTEBOOK) and "judged" not in line)
    generated, judged, killed, hidden, _, flagged, _, equivalent, survivors = map(int, re.findall(r"\d+",
                                                                                              row[len(NOTEBOOK):]))
    assert (generated, judged) == (len(every), CAP)
    assert hidden <= killed and flagged <= judged - equivalent
    assert killed + survivors + equivalent >= judged >= killed + survivors  # an equivalent may be killed (stale)
    listed = re.findall(r"^(SURVIVES|HIDDEN-MISS|UNSEEN|stale|equivalent) +" + CELL + r" +(\S+) +(.*)$", out,
                        re.MULTILINE)
    # every judged mutant that is not caught both ways is listed: one that is not, is killed by the hidden tests
    # alone and flagged by the visible check
    assert (killable.operator, killable.change) not in {(op, change) for _, op, change in listed}
    assert sum(mark in ("SURVIVES", "equivalent") for mark, _, _ in listed) >= survivors
    assert code == (1 if any(mark in ("SURVIVES", "HIDDEN-MISS", "stale") for mark, _, _ in listed) else 0)
    assert f"{judged} mutants judged, {generated - judged} skipped by the cap ({CAP} per answer cell)" in out
