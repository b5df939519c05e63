"""graders.qa.reach: which test cells a fixture's names can change (the judge runs only those)."""

from graders.qa.reach import Reach, changed

ANSWER_A = "def a(x):\n    return x + 1\n"
ANSWER_B = "def b(x):\n    return helper(x) * 2\n"
SETUP = "def helper(x):\n    return x\n\nalias = a\n"
TEST_A = "def same_error(v):\n    return a(v)\n\nassert same_error(1) == 2\n"
TEST_B = "def same_error(v):\n    return b(v)\n\nassert same_error(1) == 2\n"


def reach(*cells) -> Reach:
    return Reach([(source, source.startswith(("def same_error", "assert", "globals", "x ="))) for source in cells])


def test_a_test_cells_own_helper_is_not_another_test_cells_helper_of_the_same_name():
    r = reach(ANSWER_A, ANSWER_B, SETUP, TEST_A, TEST_B)
    assert r.can_change(TEST_A, {"a"}) and not r.can_change(TEST_A, {"b"})
    assert r.can_change(TEST_B, {"b"}) and not r.can_change(TEST_B, {"a"})


def test_what_a_called_function_looks_up_is_reached():
    r = reach(ANSWER_A, ANSWER_B, SETUP, TEST_A, TEST_B)
    assert r.can_change(TEST_B, {"helper"})  # b calls helper when the test calls b
    test = "assert alias(1) == 2\n"  # an alias is the object it names
    assert reach(ANSWER_A, SETUP, test).can_change(test, {"a"})


def test_a_name_read_before_the_test_binds_it_follows_every_binding():
    test = "x = a(1)\nx = x + 1\n"  # binds x before reading it: its own
    assert not reach(ANSWER_A, "x = b(0)\n", test).can_change(test, {"b"})
    test = "students, f = f, 1\n"  # reads f, then binds it, as `students, Counter = Counter, Reference` does
    cells = [("f = b\n", False), (test, True)]
    assert Reach(cells).can_change(test, {"b"})


def test_a_method_or_a_functions_local_of_the_same_name_is_no_mention():
    # `rate` the method and the local `rate` of a function are not the cell's `rate` (bound before it is read)
    test = ("class Steps:\n    def rate(self):\n        return 1\n\n\ndef f():\n    rate = 2\n    return rate\n\n\n"
            "rate = a(1)\nassert rate\n")
    cells = [(ANSWER_A, False), (ANSWER_B, False), ("rate = b(0)\n", False), (test, True)]
    assert not Reach(cells).can_change(test, {"b"}) and Reach(cells).can_change(test, {"a"})
    # a function that declares the name global binds the cell's own: read before, it follows every binding
    test = "def f():\n    global rate\n    rate = 2\n\n\nassert rate == 1\nrate = a(1)\n"
    assert Reach([*cells[:3], (test, True)]).can_change(test, {"b"})


def test_a_dynamic_lookup_or_code_that_does_not_parse_is_always_run():
    test = "globals()['a'](1)\n"
    assert reach(ANSWER_A, test).can_change(test, {"unrelated"})
    broken = "assert (\n"
    assert reach(ANSWER_A, broken).can_change(broken, {"unrelated"})
    assert not reach(ANSWER_A, TEST_A).can_change(TEST_A, {"unrelated"})


def test_changed_names_are_what_either_answer_binds_without_module_imports():
    assert changed("import torch\ndef a(x):\n    return x\n", "import torch\ndef a(x):\n    return y(x)\ny = abs\n") \
        == {"a", "y"}
    assert changed("def a(:\n", "def a(x): pass\n") is None
