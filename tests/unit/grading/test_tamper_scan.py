"""The static scan and the guard's choice of names, rule by rule: ordinary code gives no finding,
an attack on the grading gives one (fast: nothing is run).

Each rule has both sides here. The scan judges what code does to what the tests rely on, not the
names it uses: a student's own ``_helper`` or ``_model``, ``globals()``, ``from time import time`` and
the switches the notebooks teach are ordinary; patching torch, builtins, gpucourse or ``Check``,
trace functions, ``gc`` searches, frames, ctypes and the hidden tests' own variables are not.
"""

from __future__ import annotations

import textwrap

import pytest

from graders import nbtools
from graders.alternatives import for_notebook as alternatives_for
from graders.authoring.samples import reference_answers, submission, with_mistakes
from graders.grading import cell_names, guard_cells
from graders.grading import scan as scan_mod
from graders.paths import NOTEBOOKS, SOLUTIONS, notebook_names

NAME = "01_devices"


def _context(name: str = NAME):
    release = nbtools.read(NOTEBOOKS / f"{name}.ipynb")
    trusted = {guard_cells.source_hash(c.source) for c in release.cells if c.cell_type == "code"
               and not nbtools.is_solution_cell(c)}
    tests = [c.source for c in nbtools.read(SOLUTIONS / f"{name}.ipynb").cells if nbtools.is_test_cell(c)]
    return trusted, tests


def scan(code: str, name: str = NAME) -> list[str]:
    """The findings for the reference answers plus one cell holding ``code``."""
    import nbformat
    nb = submission(name, reference_answers(name))
    nb.cells.append(nbformat.v4.new_code_cell(textwrap.dedent(code).strip() + "\n"))
    trusted, tests = _context(name)
    return [f.what for f in scan_mod.static_scan(nb, trusted, tests)]


# (rule, ordinary code that must give no finding, an attack that must, a fragment of its finding)
RULES = [
    ("attribute of torch: a switch or a function",
     "torch.backends.cudnn.benchmark = True\ntorch.backends.cuda.matmul.allow_tf32 = False",
     "torch.allclose = lambda *a, **k: True", "replaces torch.allclose"),
    ("torch._dynamo.config switches (07 teaches them)",
     "import torch._dynamo\ntorch._dynamo.config.recompile_limit = 64\n"
     "torch._dynamo.config.cache_size_limit = max(64, torch._dynamo.config.cache_size_limit)\n"
     "torch._dynamo.config.cache_size_limit += 8",
     "import torch._dynamo\ntorch._dynamo.reset = lambda: None", "replaces torch._dynamo.reset"),
    ("a switch set from a variable, a function set from a variable",
     "use_tf32 = True\ntorch.backends.cuda.matmul.allow_tf32 = use_tf32\ntorch.backends.cudnn.enabled = use_tf32",
     "def always(*a, **k):\n    return True\ntorch.equal = always", "replaces torch.equal"),
    ("torch's own setters",
     "torch.set_float32_matmul_precision('high')\ntorch.manual_seed(0)\ntorch.set_num_threads(2)",
     "import torch as T\nT.Tensor.__eq__ = lambda *a: True", "replaces T.Tensor.__eq__"),
    ("setattr on torch: a switch or a patch",
     "setattr(torch.backends.cudnn, 'benchmark', True)",
     "setattr(torch, 'equal', lambda *a: True)", "calls setattr on torch"),
    ("deleting from torch",
     "x = torch.ones(2)\ndel x",
     "del torch.testing.assert_close", "replaces torch.testing.assert_close"),
    ("gpucourse and Check",
     "from gpucourse.checks import Check\nprint(Check)",
     "from gpucourse.checks import Check\nCheck.that = lambda *a: None", "replaces Check.that"),
    ("builtins",
     "import builtins\nprint(builtins.len([1, 2]))",
     "import builtins\nbuiltins.isinstance = lambda *a: True", "replaces builtins.isinstance"),
    ("a built-in's name: a local is the student's own, a global misleads the tests",
     "def f(xs):\n    all = sum(xs)\n    any = max(xs)\n    return all, any\nmax = 3\nprint(max)\n"
     "class Options:\n    all = True",
     "def isinstance(a, b):\n    return True", "redefines the built-in isinstance"),
    ("AssertionError",
     "class MyError(AssertionError):\n    pass",
     "AssertionError = Exception", "redefines the built-in AssertionError"),
    ("the name torch",
     "def f():\n    import torch as t\n    return t.ones(1)",
     "torch = None", "rebinds the name torch"),
    ("globals(): reading is ordinary, the tests' variables by name are not",
     "if 'model' not in globals():\n    print('no model yet')\nnames = sorted(globals())",
     "def evaluate(model, loader, device):\n    return float(globals().get('_expected', 0.5))",
     "reads the hidden tests' variable _expected"),
    ("strings that name the tests' variables (getattr, eval, a namespace's keys)",
     "label = '_my_plot'\nprint(label, getattr(torch, 'float16'))",
     "import sys\nvalue = getattr(sys.modules['__main__'], '_expected')\nother = eval('_ref')",
     "reads the hidden tests' variable _expected"),
    ("globals()[...] writes",
     "globals()['scratch'] = 3",
     "globals()['isinstance'] = lambda *a: True", "writes into globals()[...]"),
    ("sys.modules writes",
     "import sys\nprint('torch' in sys.modules)",
     "import sys\nsys.modules['gpucourse.checks'] = None", "writes into sys.modules"),
    ("the hidden tests' variables: a student's own locals and helpers are theirs",
     "def _helper(_model, _x):\n    _out = _model(_x)\n    return _out\n"
     "def f(loader):\n    _n = 0\n    for _x, _y in loader:\n        _n += len(_y)\n"
     "    return [_seed for _seed in range(_n)]",
     "def f():\n    return _expected", "reads the hidden tests' variable _expected"),
    ("module-level names the student binds",
     "_model = torch.nn.Linear(2, 2)\nprint(_model)\ndef g():\n    return _model",
     "print(_rng.random())", "reads the hidden tests' variable _rng"),
    ("attributes named like the tests' variables: an object's own, or __main__'s",
     "class Net(torch.nn.Module):\n    def __init__(self):\n        super().__init__()\n        self._model = None\n"
     "    def forward(self, x):\n        return self._model",
     "import sys\ndef f():\n    return sys.modules['__main__']._expected", "reads the hidden tests' variable"),
    ("from time import time",
     "from time import time\nstart = time()\nprint(time() - start)",
     "import sys\nsys.settrace(lambda *a: None)", "installs a trace function"),
    ("threading and profile hooks",
     "import threading\nlock = threading.Lock()",
     "import threading\nthreading.setprofile(lambda *a: None)", "installs a profile function"),
    ("gc",
     "import gc\ngc.collect()",
     "import gc\nobjs = gc.get_objects()", "searches every object"),
    ("frames",
     "import traceback\ntry:\n    1 / 0\nexcept ZeroDivisionError as error:\n    print(type(error).__name__)",
     "import inspect\nframe = inspect.currentframe().f_back", "inspects the caller's frames"),
    ("sys._getframe",
     "import sys\nprint(sys.version_info >= (3, 8))",
     "import sys\ncaller = sys._getframe(1).f_locals", "inspects the caller's frames"),
    ("ctypes and native code",
     "import numpy as np\nx = np.zeros(3)\nx[0] = 1",
     "import ctypes", "imports ctypes"),
    ("cpp extensions",
     "import torch.utils.data as tud",
     "from torch.utils.cpp_extension import load_inline", "native code"),
    ("the tests' reference code",
     "from gpucourse.fakes import fake_accelerators\nwith fake_accelerators(cuda=False):\n    print(pick_device())",
     "from gpucourse.testing import ModeProbe", "imports the tests' probes"),
    ("unittest.mock",
     "import warnings\nwarnings.warn('a note for myself')",
     "from unittest import mock\nmock.patch.object(torch, 'equal', lambda *a: True).start()", "patches objects"),
    ("own model code",
     "model = torch.nn.Linear(2, 2)\nmodel.weight.data.zero_()\nwith torch.no_grad():\n    model.bias.fill_(1.0)",
     "torch.nn.Module.train = lambda self, mode=True: self", "replaces torch.nn.Module.train"),
]


@pytest.mark.parametrize("rule,ordinary,attack,says", RULES, ids=[r[0] for r in RULES])
def test_ordinary_code_gives_no_finding(rule, ordinary, attack, says):
    assert scan(ordinary) == [], rule


@pytest.mark.parametrize("rule,ordinary,attack,says", RULES, ids=[r[0] for r in RULES])
def test_attack_is_found(rule, ordinary, attack, says):
    found = scan(attack)
    assert any(says in f for f in found), (rule, found)


@pytest.mark.parametrize("name", notebook_names())
def test_no_alternative_answer_is_flagged(name):
    """Every correct answer of the corpus (graders/alternatives) passes the scan."""
    trusted, tests = _context(name)
    for alternative in alternatives_for(name):
        nb = with_mistakes(name, [alternative])
        assert scan_mod.static_scan(nb, trusted, tests) == [], alternative.key


def test_guard_restores_only_the_names_the_tests_read():
    """``from time import time`` stays the student's: no test reads the notebook's ``time``. ``torch`` is
    put back before each test (they all read it), and so are the built-ins the tests call."""
    for name in notebook_names():
        nb = nbtools.read(SOLUTIONS / f"{name}.ipynb")
        course = [c.source for c in nb.cells if c.cell_type == "code" and not nbtools.is_solution_cell(c)]
        tests = [c.source for c in nb.cells if nbtools.is_test_cell(c)]
        assert cell_names.namespace_modules(course, tests) == {"torch": "torch"}, name
        names = set(cell_names.test_names(tests))
        assert {"isinstance", "len", "all"} <= names and "compile" not in names and "time" not in names, name
    assert "time" in cell_names.namespace_modules(["import time\nimport torch"])  # without tests: every import
