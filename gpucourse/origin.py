"""Where a graded answer comes from: the student's notebook, or this package.

A few exercises have an equivalent here, because later notebooks need it: ``gpucourse.timing`` holds
notebook 03's ``synchronize`` and ``time_ms`` (generated from 03's reference), and the environment
report picks the best device as 01's ``pick_device`` does. The tests of those exercises call
:func:`borrowed` so that taking the answer from here earns nothing: an import, an alias, a
``functools.partial``, or a function written in the notebook that only calls the package's answer.
"""

from __future__ import annotations

import functools
import os
import sys
import types

_PACKAGE = os.path.dirname(os.path.realpath(__file__))


def _in_package(code: types.CodeType) -> bool:
    return os.path.realpath(code.co_filename).startswith(_PACKAGE + os.sep)


def _chain(fn, limit: int = 10):
    """``fn`` and what it stands for: ``__wrapped__``, a partial's ``func``, a method's function, ``__call__``."""
    seen = []
    todo = [fn]
    while todo and len(seen) < limit:
        obj = todo.pop()
        if any(obj is s for s in seen):
            continue
        seen.append(obj)
        for attr in ("__wrapped__", "__func__"):
            inner = getattr(obj, attr, None)
            if inner is not None:
                todo.append(inner)
        if isinstance(obj, functools.partial):
            todo.append(obj.func)
        elif not isinstance(obj, (types.FunctionType, types.BuiltinFunctionType, type)) and callable(obj):
            todo.append(type(obj).__call__)  # callable(obj): its type has one
    return [s for s in seen if s is not None]


def _names(code: types.CodeType) -> set[str]:
    """Every global or attribute name the code (and the functions defined inside it) refers to."""
    names = set(code.co_names)
    for const in code.co_consts:
        if isinstance(const, types.CodeType):
            names |= _names(const)
    return names


def _reachable(fn: types.FunctionType, names: set[str]) -> list:
    """Objects the function can reach by those names: globals, modules and their attributes, defaults, closures."""
    found = []
    modules = []
    for name in names:
        value = fn.__globals__.get(name, getattr(fn.__globals__.get("__builtins__"), name, None))
        if name.startswith("gpucourse") and name in sys.modules:   # ``import gpucourse.timing`` inside the body
            value = sys.modules[name]
        if isinstance(value, types.ModuleType):
            modules.append(value)
        elif value is not None:
            found.append(value)
    for _ in range(3):   # gpucourse.timing.synchronize: package, module, function
        deeper = []
        for module in modules:
            if not module.__name__.startswith("gpucourse"):
                continue
            for name in names:
                value = getattr(module, name, None)
                (deeper if isinstance(value, types.ModuleType) else found).append(value)
        modules = deeper
    found += list(fn.__defaults__ or ()) + list((fn.__kwdefaults__ or {}).values())
    for cell in fn.__closure__ or ():
        try:
            found.append(cell.cell_contents)
        except ValueError:   # an empty cell
            pass
    return found


def borrowed(fn, answers=()) -> str | None:
    """The gpucourse module ``fn`` was taken from when it is not the student's own work, else None.

    ``fn`` is borrowed when it, or what it wraps, was defined in a file of this package, or when its
    code refers to one of ``answers`` (this package's callables that answer the exercise).
    """
    for obj in _chain(fn):
        if any(obj is a for a in answers):
            return _name(obj)
        code = getattr(obj, "__code__", None)
        if code is None:
            module = getattr(obj, "__module__", None) or ""
            if module == "gpucourse" or module.startswith("gpucourse."):
                return _name(obj)
            continue
        if _in_package(code):
            return _name(obj)
        if isinstance(obj, types.FunctionType):
            for value in _reachable(obj, _names(code)):
                if any(value is a for a in answers):
                    return _name(value)
    return None


def _name(obj) -> str:
    """The module that defined ``obj`` (the package itself when it does not say)."""
    module = getattr(obj, "__module__", None)
    return module if isinstance(module, str) and module.startswith("gpucourse") else "gpucourse"
