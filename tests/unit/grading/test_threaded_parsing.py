"""The grader's static scans parse student code from several threads (--jobs) at once.

CPython 3.11 keeps the AST converter's recursion depth in interpreter-wide state, so concurrent
``ast.parse`` calls can fail with "SystemError: AST constructor recursion depth mismatch" (seen
here under ``--jobs 2``; CPython gh-106905). The failure is rare and cannot be provoked on demand,
so these tests check the remedy instead: every parse goes through one lock.
"""

from __future__ import annotations

import ast
import re
import threading
import time
from concurrent.futures import ThreadPoolExecutor

from graders import nbtools


def test_parse_python_lets_one_thread_parse_at_a_time(monkeypatch):
    inside, most = 0, 0
    count_lock = threading.Lock()
    real_parse = ast.parse

    def slow_parse(source, *args, **kwargs):
        nonlocal inside, most
        with count_lock:
            inside += 1
            most = max(most, inside)
        time.sleep(0.01)  # hand the GIL over: without the lock another thread would enter here
        with count_lock:
            inside -= 1
        return real_parse(source, *args, **kwargs)

    monkeypatch.setattr(ast, "parse", slow_parse)
    with ThreadPoolExecutor(max_workers=8) as pool:
        trees = list(pool.map(nbtools.parse_python, [f"x = {i}" for i in range(40)]))
    assert most == 1
    assert [tree.body[0].value.value for tree in trees] == list(range(40))


def test_the_grader_never_calls_ast_parse_directly(repo):
    direct = []
    for path in sorted((repo / "graders").rglob("*.py")):
        for number, line in enumerate(path.read_text().splitlines(), 1):
            if re.search(r"\bast\.parse\(", line) and path.name != "nbtools.py":
                direct.append(f"{path.relative_to(repo)}:{number}")
    assert not direct, "use graders.nbtools.parse_python (thread-safe) instead of ast.parse: " + ", ".join(direct)
