"""``graders.qa.docstring_answers`` on small folders and made-up verdicts: which files are answers, what
verdicts.toml may say, and when an answer is a problem (no kernel: tests/judge/test_docstring_answers.py runs them)."""

from __future__ import annotations

import pytest

from graders.errors import InputError
from graders.qa.docstring_answers import Answer, Outcome, Tally, read_answers, read_misreads
from graders.qa.judge import Verdict


def write(root, path, text):
    (root / path).parent.mkdir(parents=True, exist_ok=True)
    (root / path).write_text(text)


def test_answers_are_the_kind_slug_files_two_folders_down(tmp_path):
    write(tmp_path, "01_devices/pick_device/wrong_no_mps.py", '# breaks: "else mps"\n# how: x\ndef f(): pass\n')
    write(tmp_path, "01_devices/pick_device/correct_ternary.py", "# reading: any\ndef f(): pass\n")
    write(tmp_path, "01_devices/pick_device/helper.py", "")  # not <kind>_<slug>.py
    write(tmp_path, "sanity_check.py", "")
    write(tmp_path, "02_transfers/make_loader/wrong_x.py", "")
    found = read_answers(tmp_path, ["01_devices"])
    assert [(a.kind, a.slug, a.claim) for a in found["01_devices"]] == [
        ("correct", "ternary", "any"), ("wrong", "no_mps", '"else mps"')]
    assert found["01_devices"][1].path == "01_devices/pick_device/wrong_no_mps.py"
    assert set(read_answers(tmp_path)) == {"01_devices", "02_transfers"}
    with pytest.raises(InputError):
        read_answers(tmp_path / "absent")


def test_a_misreading_needs_its_kind_a_reason_and_a_real_file(tmp_path):
    write(tmp_path, "01_devices/pick_device/wrong_no_mps.py", "")
    assert read_misreads(tmp_path) == {}
    good = '["01_devices/pick_device/wrong_no_mps.py"]\nkind = "misread"\nreason = "the docstring allows it"\n'
    (tmp_path / "verdicts.toml").write_text(good)
    assert read_misreads(tmp_path) == {"01_devices/pick_device/wrong_no_mps.py": "the docstring allows it"}
    for bad in (good.replace("misread", "gap"), good.replace("the docstring allows it", " "),
                good.replace("wrong_no_mps", "wrong_absent")):
        (tmp_path / "verdicts.toml").write_text(bad)
        with pytest.raises(InputError):
            read_misreads(tmp_path)


def outcome(kind, lost=(), errors=None, visible=None, misread=""):
    answer = Answer("01_devices", "pick_device", kind, "x", "", '"a sentence"')
    errors = errors or {t: "CheckFailed: why" for t in lost}
    verdict = Verdict("01_devices", "mistake", answer.key, "pick_device", frozenset(), frozenset(lost),
                      10 - 2 * len(lost), 10, errors, visible or {}, own=frozenset({"test_pick_device"}))
    return Outcome(answer, verdict, misread)


def test_a_wrong_answer_with_full_marks_and_a_correct_one_losing_are_problems():
    assert "keeps full marks" in outcome("wrong").problem()
    assert outcome("wrong", lost=["test_pick_device"]).problem() is None
    assert outcome("correct").problem() is None
    assert "loses points: test_pick_device: CheckFailed: why" in outcome("correct", lost=["test_pick_device"]).problem()
    # an answer cell that raises leaves its names undefined: in a student's notebook every test of them fails
    raising = outcome("correct", errors={"answer pick_device": "NameError: name 'x' is not defined"})
    assert raising.loses and "the answer cell raises NameError" in raising.problem()


def test_a_misread_answer_is_judged_as_its_other_kind():
    meets = outcome("wrong", misread="the docstring allows is_built")
    assert meets.counts_as == "correct" and meets.problem() is None
    assert "misread" in meets.line()
    assert outcome("correct", misread="breaks it").problem() is not None  # keeps full marks: a gap now


def test_flagged_means_a_visible_failure_in_its_own_exercise():
    other = outcome("wrong", lost=["test_to_device"], visible={"test_to_device": "CheckFailed: elsewhere"})
    own = outcome("wrong", lost=["test_pick_device"], visible={"test_pick_device": "CheckFailed: hint"})
    assert other.flagged_by == [] and "NOT FLAGGED" in other.line()
    assert own.flagged_by == ["test_pick_device"] and "visible test_pick_device: CheckFailed: hint" in own.line()
    tally = Tally.of("01", [other, own, outcome("wrong"), outcome("correct")])
    assert (tally.wrong, tally.flagged, tally.caught, tally.correct, tally.kept) == (3, 1, 2, 1, 1)
    assert "33 %" in tally.row()


def test_a_case_that_leaves_autocast_on_does_not_leave_it_on_for_the_next():
    import torch

    from graders.qa import inkernel

    namespace = {"torch": torch, "lin": torch.nn.Linear(4, 2), "x": torch.ones(1, 4)}
    before = (torch.is_autocast_enabled("cpu"), torch.get_autocast_dtype("cpu"), torch.is_grad_enabled())
    leaks = "torch.autocast('cpu', dtype=torch.float16).__enter__()\ntorch.set_grad_enabled(False)\n"
    try:
        assert inkernel.begin_case(namespace, {"amp_forward": leaks}) == {}
        assert torch.is_autocast_enabled("cpu") and not torch.is_grad_enabled()
        inkernel.end_case(namespace)
        assert (torch.is_autocast_enabled("cpu"), torch.get_autocast_dtype("cpu"), torch.is_grad_enabled()) == before
        # later autocasts empty their cache of cast weights on exit again: one in float16, then one in bfloat16
        # (with a nesting level left over, the second would reuse the first's float16 copies of lin's weights)
        for dtype in ("float16", "bfloat16"):
            test = f"with torch.autocast('cpu', dtype=torch.{dtype}):\n    assert lin(x).dtype == torch.{dtype}\n"
            assert inkernel.run_test(namespace, "t", test) is None
    finally:  # this test's own process, whatever happened above
        torch.set_autocast_enabled("cpu", before[0])
        torch.set_autocast_dtype("cpu", before[1])
        torch.set_grad_enabled(before[2])
