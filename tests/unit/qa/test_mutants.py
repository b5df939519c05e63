"""``judge --mutate``'s parts that need no kernel: each operator makes the change it claims and nothing else, the
docstring, the names and the imports stay; mutants are deduplicated and compile; the cap samples deterministically
and spreads over the operators; the equivalents file is well formed and every entry still names a mutant that the
references make today; the summary's counts add up."""

from __future__ import annotations

import ast
import re
import tomllib

import pytest

from graders.errors import InputError
from graders.paths import notebook_names
from graders.qa import mutants
from graders.qa.judge import Verdict
from graders.qa.mutation_ops import OPERATORS, mutate

SAMPLE = '''import time


def f(a, b, flag=True, n=3):
    """Docstring: 1 < 2 and True, return a + b * 2."""
    if a < b and not flag:
        x = -a + b * 2
    total = 0
    total += a ** 2 // b
    with open(a) as fh, ctx():
        g(a, b, key=flag, other=1)
    try:
        h(float(a))
    finally:
        cleanup()
    if a is None or b in (1, 2):
        return torch.float16
    message = "text"
    return a + b
'''

#: for each operator, changes it must make to SAMPLE (as ``change`` writes them, the line number left out)
EXPECTED = {
    "constant": ["-def f(a, b, flag=True, n=3): +def f(a, b, flag=True, n=4):",
                 "-def f(a, b, flag=True, n=3): +def f(a, b, flag=False, n=3):",
                 "-def f(a, b, flag=True, n=3): +def f(a, b, flag=None, n=3):",
                 "-x = -a + b * 2 +x = -a + b * 3", "-x = -a + b * 2 +x = -a + b * 0", "-total = 0 +total = 1"],
    "string": ["-message = 'text' +message = 'XXtextXX'"],
    "compare": ["-if a < b and (not flag): +if a <= b and (not flag):", "-if a is None or b in (1, 2): "
                "+if a is not None or b in (1, 2):", "-if a is None or b in (1, 2): +if a is None or b not in (1, 2):"],
    "arith": ["-x = -a + b * 2 +x = -a - b * 2", "-x = -a + b * 2 +x = -a + b / 2", "-total += a ** 2 // b "
              "+total -= a ** 2 // b", "-total += a ** 2 // b +total += a * 2 // b",
              "-total += a ** 2 // b +total += a ** 2 / b", "-return a + b +return a - b"],
    "boolop": ["-if a < b and (not flag): +if a < b or not flag:",  # unparse brackets a second "not"
               "-if a is None or b in (1, 2): +if a is None and b in (1, 2):"],
    "unary-drop": ["-if a < b and (not flag): +if a < b and flag:", "-x = -a + b * 2 +x = a + b * 2"],
    "dtype": ["-return torch.float16 +return torch.bfloat16"],
    "drop-statement": ["-total = 0 +pass", "-cleanup() +pass", "-message = 'text' +pass"],
    "repeat-statement": ["+cleanup()", "+total += a ** 2 // b"],
    "swap-args": ["-g(a, b, key=flag, other=1) +g(b, a, key=flag, other=1)"],
    "drop-arg": ["-g(a, b, key=flag, other=1) +g(b, key=flag, other=1)",
                 "-g(a, b, key=flag, other=1) +g(a, key=flag, other=1)"],
    "drop-kwarg": ["-g(a, b, key=flag, other=1) +g(a, b, other=1)", "-g(a, b, key=flag, other=1) +g(a, b, key=flag)"],
    "kwarg-value": ["-g(a, b, key=flag, other=1) +g(a, b, key=None, other=1)",
                    "-g(a, b, key=flag, other=1) +g(a, b, key=False, other=1)",
                    "-g(a, b, key=flag, other=1) +g(a, b, key=flag, other=2)",
                    "-g(a, b, key=flag, other=1) +g(a, b, key=flag, other=0)"],
    "drop-call": ["-h(float(a)) +h(a)"],
    "drop-with": ["-with open(a) as fh, ctx(): +(nothing)", "-with open(a) as fh, ctx(): +with ctx():",
                  "-with open(a) as fh, ctx(): +with open(a) as fh:"],
    "drop-try": ["-try: +(nothing); -finally: +(nothing)"],
    "return-input": ["-return torch.float16 +return a", "-return a + b +return a"],
    "return-none": ["-return torch.float16 +return None", "-return a + b +return None"],
}


def changes(operator: str, code: str = SAMPLE) -> set[str]:
    reference = ast.unparse(ast.parse(code))
    return {_unnumbered(mutants.change(reference, mutated, 200, 200))
            for _, mutated in mutate(code, {operator: OPERATORS[operator]})}


def test_every_operator_is_tried():
    assert set(EXPECTED) == set(OPERATORS)


@pytest.mark.parametrize("operator", sorted(OPERATORS))
def test_each_operator_makes_the_change_it_claims(operator):
    made = changes(operator)
    missing = [c for c in EXPECTED[operator] if c not in made]
    assert not missing, f"{operator} made {sorted(made)}"


@pytest.mark.parametrize("operator", sorted(OPERATORS))
def test_no_operator_touches_the_docstring_the_names_or_the_imports(operator):
    reference = ast.parse(SAMPLE)
    before = reference.body[1]
    for _, mutated in mutate(SAMPLE, {operator: OPERATORS[operator]}):
        tree = ast.parse(mutated)
        assert ast.dump(tree.body[0]) == ast.dump(reference.body[0])  # import time
        after = tree.body[1]
        assert ast.get_docstring(after) == ast.get_docstring(before)
        assert (after.name, [a.arg for a in after.args.args]) == ("f", ["a", "b", "flag", "n"])


def test_a_class_keeps_its_docstring_and_self_is_no_input_to_return():
    code = ('class C:\n    """Doc 1."""\n\n    def __call__(self, gm, x):\n        """Doc 2."""\n'
            '        return gm.forward\n')
    made = {m for _, m in mutate(code)}
    assert "return gm" in {line.strip() for m in made for line in m.splitlines()}
    assert all(ast.get_docstring(ast.parse(m).body[0]) == "Doc 1." for m in made)
    methods = [ast.parse(m).body[0].body[1] for m in made]
    assert all(ast.get_docstring(f) == "Doc 2." for f in methods if isinstance(f, ast.FunctionDef))
    assert sum(isinstance(f, ast.Pass) for f in methods) == 1  # the method itself dropped: a statement of the class


def test_a_cell_without_a_function_has_its_statements_changed_but_not_its_imports():
    code = "import torch\n\nANSWER = {'a': torch.float16, 'n': 2}\n"
    made = {m for _, m in mutate(code)}
    assert "import torch\nANSWER = {'a': torch.bfloat16, 'n': 2}" in made
    assert "import torch\nANSWER = {'a': torch.float16, 'n': 3}" in made
    assert all(m.startswith("import torch\n") for m in made)


def test_mutants_are_unique_differ_from_the_reference_compile_and_come_in_a_fixed_order():
    first = mutants.mutants_of("nb", "f", SAMPLE)
    codes = [m.code for m in first]
    assert len(codes) == len(set(codes)) and ast.unparse(ast.parse(SAMPLE)) not in codes
    for code in codes:
        compile(code, "<mutant>", "exec")
    assert [(m.operator, m.code) for m in mutants.mutants_of("nb", "f", SAMPLE)] == [(m.operator, m.code)
                                                                                    for m in first]
    assert len({m.key for m in first}) == len(first)


def test_the_cap_is_deterministic_and_spread_over_the_operators():
    every = mutants.mutants_of("nb", "f", SAMPLE)
    operators = list(dict.fromkeys(m.operator for m in every))
    chosen = mutants.sample(every, len(operators) + 3)
    assert chosen == mutants.sample(every, len(operators) + 3) and len(chosen) == len(operators) + 3
    assert {m.operator for m in chosen} == set(operators)  # a turn each before any gets a second
    assert chosen == [m for m in every if m in chosen]  # in the given order
    assert mutants.sample(every, None) == every and mutants.sample(every, 10 ** 6) == every
    drops = [m for m in every if m.operator == "drop-statement"]
    picked = [m for m in mutants.sample(drops, 2)]
    assert picked == [drops[0], drops[len(drops) // 2]]  # spread, not the first lines


def test_the_change_line_shows_what_differs_in_a_long_line():
    old = "x, y = (x.to(device, non_blocking=True), y.to(device, non_blocking=True))\n"
    new = "x, y = (x.to(device, non_blocking=True), y.to(device, non_blocking=False))\n"
    assert mutants.change(old, new) == "L1: -...to(device, non_blocking=True)) +...to(device, non_blocking=False))"


def test_the_equivalents_file_parses_and_every_entry_names_a_mutant_made_today_with_a_reason():
    recorded = mutants.read_equivalents()
    assert all(reason.strip() for reason in recorded.values())
    made = {m.key: m for name in notebook_names() if any(k.startswith(f"{name}/") for k in recorded)
            for cell in mutants.notebook_mutants(name).values() for m in cell}
    stale = sorted(set(recorded) - set(made))
    assert not stale, f"no longer made by the references (record them again, or drop them): {stale}"
    table = tomllib.loads(mutants.EQUIVALENTS.read_text(encoding="utf-8"))
    # compared without line numbers: a docstring reworded above the change moves them, not the mutant (nor its key)
    wrong = {k: (v.get("change"), made[k].change) for k, v in table.items()
             if _unnumbered(v.get("change", "")) != _unnumbered(made[k].change)}
    assert not wrong, f"the change written beside the key is not the mutant's: {wrong}"


def _unnumbered(change: str) -> str:
    return re.sub(r"(^|; )(after )?L\d+( twice)?: ", r"\1", change)


def test_an_equivalent_without_a_reason_or_with_a_wrong_key_is_refused(tmp_path):
    path = tmp_path / "eq.toml"
    path.write_text('["01_devices/pick_device/constant/0123456789abcdef"]\nreason = " "\n')
    with pytest.raises(InputError, match="'01_devices/pick_device/constant/0123456789abcdef'.*a reason"):
        mutants.read_equivalents(path)
    path.write_text('["01_devices/pick_device/no-such-operator/0123456789abcdef"]\nreason = "r"\n')
    with pytest.raises(InputError, match="no-such-operator.*a mutant key"):
        mutants.read_equivalents(path)
    key = "01_devices/pick_device/constant/0123456789abcdef"
    path.write_text(f'["{key}"]\nreason = "a reader can check it"\n')
    assert mutants.read_equivalents(path) == {key: "a reader can check it"}


def _outcome(lost=(), visible=(), hidden=(), equivalent=""):
    m = mutants.mutants_of("nb", "f", SAMPLE)[0]
    v = Verdict("nb", "mutant", m.key, "f", frozenset(), frozenset(lost), 10.0 - len(lost), 10.0,
                visible=dict.fromkeys(visible, "CheckFailed: x"), own=frozenset({"t"}),
                hidden=dict.fromkeys(hidden, "RequirementFailed: x"))
    return mutants.Outcome(m, v, equivalent)


def test_marks_and_the_tally_add_up():
    outcomes = [_outcome({"t"}, {"t"}, {"t"}), _outcome({"t"}, (), {"t"}), _outcome({"t"}, {"t"}, ()),
                _outcome(), _outcome(equivalent="same on every input"), _outcome({"t"}, equivalent="wrongly")]
    assert [o.mark for o in outcomes] == ["ok", "UNSEEN", "HIDDEN-MISS", "SURVIVES", "equivalent", "stale"]
    t = mutants.Tally.of("nb", 9, outcomes)
    assert (t.generated, t.judged, t.killed, t.hidden, t.flagged, t.equivalent, t.survivors) == (9, 6, 4, 2, 2, 2, 1)
    assert t.killed + t.survivors + sum(o.equivalent != "" and not o.killed for o in outcomes) == t.judged
    assert "2  50%" in t.row()
