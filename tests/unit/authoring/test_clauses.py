"""Each graded function's docstring, clause by clause (issue 35): the clause lists in the sources read as they
must, quote every sentence of the docstrings, and name fixtures and hints that exist. What the judge shows for
them (each visible clause's mistake failing with its hint, the hidden tests catching it alone) is checked in the
judge tier (tests/judge/test_clauses_judged.py)."""

from __future__ import annotations

import pytest

from graders.authoring import clauses
from graders.paths import notebook_names
from graders.qa.judge import Verdict

LIST = '''### Mistakes and correct alternatives for `f`

**clauses of `f`**
- "Return x + 1.": visible "add one" by `adds-two`
- "Works on "ints" too": allows `int-version`
- "Fast.": hidden-only (timing is the machine's (not the answer's)) by `slow`
- "See the next section.": no requirement (it explains)

Text after the list.
'''


def test_a_clause_list_reads_as_written():
    found = clauses.parse(LIST, "f")
    assert [(c.quote, c.kind, c.hint, c.keys, c.reason) for c in found] == [
        ("Return x + 1.", "visible", "add one", ("adds-two",), ""),
        ('Works on "ints" too', "allows", "", ("int-version",), ""),
        ("Fast.", "hidden-only", "", ("slow",), "timing is the machine's (not the answer's)"),
        ("See the next section.", "no requirement", "", (), "it explains"),
    ]


def test_a_cell_without_a_list_has_none():
    assert clauses.parse("**mistake `x`**, loses `test_f`: ...", "f") is None


@pytest.mark.parametrize("line, error", [
    ('- "Return x.": visible by `m`', 'visible "<words of the hint>"'),
    ('- "Fast.": hidden-only by `m`', "hidden-only (<reason>)"),
    ('- "Fast.": no requirement', "no requirement (<reason>)"),
    ('- "Fast." checked somehow', "a clause line must read"),
])
def test_a_malformed_clause_is_refused_with_what_to_write(line, error):
    with pytest.raises(clauses.ClauseError, match=error.replace("(", r"\(").replace(")", r"\)")):
        clauses.parse(f"**clauses of `f`**\n{line}\n", "f")


def test_sentences_end_at_a_full_stop_but_not_after_an_abbreviation():
    text = 'Return torch.device("cpu"), e.g. torch.device("cpu"). Always a device.\n  Never a string! fn(x) runs.'
    assert clauses.sentences(text) == ['Return torch.device("cpu"), e.g. torch.device("cpu").', "Always a device.",
                                       "Never a string!", "fn(x) runs."]


def _fake_source(monkeypatch, answer: str, listing: str, test: str, mistakes=(), alternatives=()):
    """Notebook "nb" with one answer cell "f", its test cell "test_f" and fixtures cell ``listing``."""
    from types import SimpleNamespace

    import nbformat

    from graders import alternatives as alternatives_module
    from graders import mistakes as mistakes_module
    from graders.authoring import source

    cells = [nbformat.v4.new_code_cell(answer, metadata={"nbgrader": {"solution": True, "grade": False,
                                                                      "grade_id": "f"}}),
             nbformat.v4.new_code_cell(test, metadata={"nbgrader": {"grade": True, "solution": False,
                                                                    "grade_id": "test_f", "points": 1}})]
    nb = nbformat.v4.new_notebook(cells=cells)
    monkeypatch.setattr(source, "read_text_notebook", lambda name: nb)
    monkeypatch.setattr(source, "fixture_cells", lambda name: {"f": listing})
    monkeypatch.setattr(mistakes_module, "for_notebook",
                        lambda name: [SimpleNamespace(key=k, cell="f", hidden_only="") for k in mistakes])
    monkeypatch.setattr(alternatives_module, "for_notebook",
                        lambda name: [SimpleNamespace(key=k, cell="f") for k in alternatives])


ANSWER = ('def f(x):\n    """Return x + 1. Works on ints too."""\n'
          '    ### BEGIN SOLUTION\n    return x + 1\n    ### END SOLUTION\n')
TEST = 'assert f(1) == 2, "add one to x"\n### BEGIN HIDDEN TESTS\nassert f(5) == 6\n### END HIDDEN TESTS\n'


def test_a_complete_list_has_no_problem(monkeypatch):
    listing = '**clauses of `f`**\n- "Return x + 1.": visible "add one" by `adds-two`\n- "Works on ints": allows `i`\n'
    _fake_source(monkeypatch, ANSWER, listing, TEST, mistakes=["adds-two"], alternatives=["i"])
    assert clauses.problems("nb") == []


def test_an_unquoted_sentence_a_reworded_quote_a_missing_hint_and_an_unknown_fixture_are_problems(monkeypatch):
    listing = ('**clauses of `f`**\n- "Return x plus 1.": visible "add one" by `adds-two`\n'
               '- "Return x + 1.": visible "add 1 to x" by `nobody`\n')
    _fake_source(monkeypatch, ANSWER, listing, TEST, mistakes=["adds-two"])
    found = "\n".join(clauses.problems("nb"))
    assert "the quote is not in the docstring" in found
    assert 'no visible check of f has the hint "add 1 to x"' in found
    assert "no mistake `nobody` of f" in found
    assert 'no clause quotes the sentence "Works on ints too."' in found


def test_a_hint_in_the_hidden_tests_only_is_not_a_visible_check(monkeypatch):
    listing = '**clauses of `f`**\n- "Return x + 1.": visible "f(5)" by `m`\n- "Works on ints": allows `i`\n'
    _fake_source(monkeypatch, ANSWER, listing, TEST, mistakes=["m"], alternatives=["i"])
    assert clauses.problems("nb") == ['nb f "Return x + 1.": no visible check of f has the hint "f(5)"']


def _verdict(key, visible=None, hidden=None, kind="mistake", score=0.0):
    return Verdict("nb", kind, key, "f", frozenset({"test_f"}) if kind == "mistake" else frozenset(),
                   frozenset({"test_f"}), score, 1.0, visible=visible or {}, own=frozenset({"test_f"}),
                   hidden=hidden or {})


def test_the_judge_must_show_the_clause_hint_and_a_hidden_catch(monkeypatch):
    listing = ('**clauses of `f`**\n- "Return x + 1.": visible "add one" by `right`, `other-hint`, `hidden-blind`\n'
               '- "Works on ints": allows `loses`\n')
    _fake_source(monkeypatch, ANSWER, listing, TEST, mistakes=["right", "other-hint", "hidden-blind"],
                 alternatives=["loses"])
    caught = {"test_f": "RequirementFailed: f adds one"}
    verdicts = [_verdict("right", {"test_f": "CheckFailed: add one to x"}, caught),
                _verdict("other-hint", {"test_f": "CheckFailed: return an int"}, caught),
                _verdict("hidden-blind", {"test_f": "CheckFailed: add one to x"}, {}),
                _verdict("loses", kind="alternative", score=0.0)]
    found = clauses.verdict_problems("nb", verdicts)
    assert found == [
        'nb f "Return x + 1." by `other-hint`: the visible check does not fail with "add one" '
        "(CheckFailed: return an int)",
        'nb f "Return x + 1." by `hidden-blind`: the hidden tests alone pass it',
        'nb f "Works on ints" by `loses`: the alternative loses points (0/1)',
    ]


@pytest.mark.parametrize("name", notebook_names())
def test_every_sentence_of_every_graded_docstring_has_its_clause(name):
    problems = clauses.problems(name)
    assert not problems, "\n".join(problems)


def test_a_hint_spread_over_adjacent_string_literals_counts_as_one(monkeypatch):
    test = ('assert f(1) == 2, ("add one "\n        "to x")\n'
            '### BEGIN HIDDEN TESTS\nassert f(5) == 6\n### END HIDDEN TESTS\n')
    listing = '**clauses of `f`**\n- "Return x + 1.": visible "add one to x" by `m`\n- "Works on ints": allows `i`\n'
    _fake_source(monkeypatch, ANSWER, listing, test, mistakes=["m"], alternatives=["i"])
    assert clauses.problems("nb") == []


def test_a_mistake_and_an_alternative_may_share_a_key(monkeypatch):
    listing = ('**clauses of `f`**\n- "Return x + 1.": visible "add one" by `same`\n'
               '- "Works on ints": allows `same`\n')
    _fake_source(monkeypatch, ANSWER, listing, TEST, mistakes=["same"], alternatives=["same"])
    caught = {"test_f": "RequirementFailed: f adds one"}
    verdicts = [_verdict("same", {"test_f": "CheckFailed: add one to x"}, caught),
                _verdict("same", kind="alternative", score=1.0)]
    assert clauses.verdict_problems("nb", verdicts) == []
