"""The AST operators of ``python -m graders judge --mutate``: the small changes a mutant makes to an answer cell.

Each operator looks at one node of the answer (a :class:`Site`) and yields what may stand there instead: a node,
or, where the node is a statement, a list of statements (none of them is empty: a dropped statement becomes
``pass``). :func:`mutate` applies each of them alone to a fresh copy of the cell, so that a mutant differs from
the reference by exactly one change. Only what a student writes inside an exercise is changed: the bodies (and
default values) of the cell's functions and classes, never a docstring, a name, an annotation or a decorator,
nor the cell's imports; a cell that defines no function or class (an answer that is a value) has its top-level
statements changed instead, imports still left alone.

docs/mutants.md says why these are written here rather than taken from mutmut or cosmic-ray.
"""

from __future__ import annotations

import ast
import copy
from collections.abc import Callable, Iterator
from dataclasses import dataclass

from graders import nbtools

DEFS = (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)
FUNCTIONS = (ast.FunctionDef, ast.AsyncFunctionDef)
#: fields whose nodes are never changed: the contract's signature and the decoration around the code
SKIPPED_FIELDS = {"annotation", "returns", "decorator_list", "type_comment", "bases", "type_params"}


@dataclass(frozen=True)
class Site:
    """One node that may be changed, where it sits, and what surrounds it."""

    node: ast.AST
    parent: ast.AST
    field: str
    index: int | None        # its place in the parent's list field (None: the field holds it alone)
    first_param: str | None  # the innermost enclosing function's first parameter (a method's after self)


def _is_docstring(parent: ast.AST, field: str, index: int | None, child: ast.AST) -> bool:
    return (isinstance(parent, (*DEFS, ast.Module)) and field == "body" and index == 0
            and isinstance(child, ast.Expr) and isinstance(child.value, ast.Constant)
            and isinstance(child.value.value, str))


def _first_param(function: ast.AST, method: bool) -> str | None:
    params = [a.arg for a in function.args.posonlyargs + function.args.args]
    if method and params and params[0] in ("self", "cls"):
        params = params[1:]
    return params[0] if params else None


def sites(tree: ast.Module) -> list[Site]:
    """Every node of ``tree`` an operator may change, in a fixed order (depth first, fields in AST order)."""
    found: list[Site] = []

    def visit(node: ast.AST, first_param: str | None) -> None:
        for field, value in ast.iter_fields(node):
            if field in SKIPPED_FIELDS or (isinstance(node, ast.ClassDef) and field == "keywords"):
                continue
            for index, child in (enumerate(value) if isinstance(value, list) else [(None, value)]):
                if not isinstance(child, (ast.expr, ast.stmt, ast.keyword, ast.arguments, ast.comprehension,
                                          ast.excepthandler, ast.withitem)):
                    continue  # operators, contexts, names: no site of their own
                if _is_docstring(node, field, index, child):
                    continue
                found.append(Site(child, node, field, index, first_param))
                inner = (_first_param(child, isinstance(node, ast.ClassDef)) if isinstance(child, FUNCTIONS)
                         else first_param)
                visit(child, inner)

    defs = [node for node in tree.body if isinstance(node, DEFS)]
    for node in defs:  # the def line itself is not a site: its body and its defaults are
        visit(node, _first_param(node, False) if isinstance(node, FUNCTIONS) else None)
    if not defs:
        for index, node in enumerate(tree.body):
            if not isinstance(node, (ast.Import, ast.ImportFrom)) and not _is_docstring(tree, "body", index, node):
                found.append(Site(node, tree, "body", index, None))
                visit(node, None)
    return found


def _number(value) -> bool:
    return isinstance(value, (int, float, complex)) and not isinstance(value, bool)


def _changed_constant(value) -> Iterator[object]:
    """n -> n + 1 and n -> 0; True <-> False and -> None; a string marked as changed."""
    if isinstance(value, bool):
        yield not value
        yield None
    elif _number(value):
        yield value + 1
        if value != 0:
            yield type(value)(0)
    elif isinstance(value, str):
        yield f"XX{value}XX"  # mutmut's way: still a non-empty string, so only its text differs


def constant(site: Site) -> Iterator[ast.AST]:
    node = site.node
    # a keyword's value is kwarg-value's; a string is string's
    if isinstance(node, ast.Constant) and not isinstance(site.parent, ast.keyword) and not isinstance(node.value, str):
        for value in _changed_constant(node.value):
            yield ast.Constant(value)


def string(site: Site) -> Iterator[ast.AST]:
    node = site.node
    if isinstance(node, ast.Constant) and isinstance(node.value, str) and not isinstance(site.parent, ast.keyword):
        yield ast.Constant(f"XX{node.value}XX")


COMPARE = {ast.Lt: ast.LtE, ast.LtE: ast.Lt, ast.Gt: ast.GtE, ast.GtE: ast.Gt, ast.Eq: ast.NotEq,
           ast.NotEq: ast.Eq, ast.Is: ast.IsNot, ast.IsNot: ast.Is, ast.In: ast.NotIn, ast.NotIn: ast.In}


def compare(site: Site) -> Iterator[ast.AST]:
    if isinstance(site.node, ast.Compare):
        for i, op in enumerate(site.node.ops):
            new = copy.deepcopy(site.node)
            new.ops[i] = COMPARE[type(op)]()
            yield new


ARITH = {ast.Add: [ast.Sub], ast.Sub: [ast.Add], ast.Mult: [ast.Div], ast.Div: [ast.Mult, ast.FloorDiv],
         ast.FloorDiv: [ast.Div], ast.Mod: [ast.Mult], ast.Pow: [ast.Mult], ast.LShift: [ast.RShift],
         ast.RShift: [ast.LShift], ast.BitAnd: [ast.BitOr], ast.BitOr: [ast.BitAnd], ast.BitXor: [ast.BitAnd],
         ast.MatMult: [ast.Mult]}


def arith(site: Site) -> Iterator[ast.AST]:
    """A binary operator swapped, in an expression or an augmented assignment (``+=`` -> ``-=``)."""
    if isinstance(site.node, (ast.BinOp, ast.AugAssign)):
        for other in ARITH.get(type(site.node.op), []):
            new = copy.deepcopy(site.node)
            new.op = other()
            yield new


def boolop(site: Site) -> Iterator[ast.AST]:
    if isinstance(site.node, ast.BoolOp):
        yield ast.BoolOp(ast.Or() if isinstance(site.node.op, ast.And) else ast.And(),
                         copy.deepcopy(site.node.values))


def unary_drop(site: Site) -> Iterator[ast.AST]:
    """``not x``, ``-x`` or ``~x`` -> ``x``."""
    if isinstance(site.node, ast.UnaryOp) and not isinstance(site.node.op, ast.UAdd):
        yield copy.deepcopy(site.node.operand)


DTYPES = {"float16": "bfloat16", "bfloat16": "float16", "float32": "float16", "float64": "float32",
          "half": "bfloat16", "float": "half"}


def dtype(site: Site) -> Iterator[ast.AST]:
    """``torch.float16`` -> ``torch.bfloat16`` and the like: the course's own kind of mistake."""
    node = site.node
    if (isinstance(node, ast.Attribute) and isinstance(node.value, ast.Name) and node.value.id == "torch"
            and node.attr in DTYPES and isinstance(node.ctx, ast.Load)):
        yield ast.Attribute(ast.Name("torch", ast.Load()), DTYPES[node.attr], ast.Load())


def _statement(site: Site) -> bool:
    return isinstance(site.node, ast.stmt) and site.index is not None


def drop_statement(site: Site) -> Iterator[list[ast.stmt]]:
    if _statement(site) and not isinstance(site.node, ast.Pass):
        yield [ast.Pass()]


def repeat_statement(site: Site) -> Iterator[list[ast.stmt]]:
    """An expression statement (a call, a ``yield``) or an augmented assignment done twice in a row."""
    if _statement(site) and isinstance(site.node, (ast.Expr, ast.AugAssign)):
        yield [copy.deepcopy(site.node), copy.deepcopy(site.node)]


def _positional(call: ast.Call) -> bool:
    return not any(isinstance(a, ast.Starred) for a in call.args)


def swap_args(site: Site) -> Iterator[ast.AST]:
    """Two neighbouring positional arguments of a call swapped."""
    if isinstance(site.node, ast.Call) and _positional(site.node):
        for i in range(len(site.node.args) - 1):
            new = copy.deepcopy(site.node)
            new.args[i], new.args[i + 1] = new.args[i + 1], new.args[i]
            yield new


def drop_arg(site: Site) -> Iterator[ast.AST]:
    if isinstance(site.node, ast.Call) and _positional(site.node):
        for i in range(len(site.node.args)):
            new = copy.deepcopy(site.node)
            del new.args[i]
            yield new


def drop_kwarg(site: Site) -> Iterator[ast.AST]:
    if isinstance(site.node, ast.Call):
        for i, keyword in enumerate(site.node.keywords):
            if keyword.arg is not None:  # ``**options`` is not one argument
                new = copy.deepcopy(site.node)
                del new.keywords[i]
                yield new


def kwarg_value(site: Site) -> Iterator[ast.AST]:
    """A keyword argument's value changed: a constant as :func:`constant` changes it (``None`` -> ``True``), any
    other value replaced by ``None``, ``True`` and ``False`` (the caller's value ignored)."""
    node = site.node
    if not isinstance(node, ast.keyword) or node.arg is None:
        return
    if isinstance(node.value, ast.Constant):
        values = [True] if node.value.value is None else list(_changed_constant(node.value.value))
    else:
        values = [None, True, False]
    for value in values:
        yield ast.keyword(node.arg, ast.Constant(value))


def drop_call(site: Site) -> Iterator[ast.AST]:
    """``f(x)`` -> ``x`` (a conversion or wrapper skipped) and ``obj.method()`` -> ``obj``; a call that is a whole
    statement is drop-statement's."""
    node = site.node
    if not isinstance(node, ast.Call) or isinstance(site.parent, ast.Expr) or node.keywords:
        return
    if len(node.args) == 1 and not isinstance(node.args[0], ast.Starred):
        yield copy.deepcopy(node.args[0])
    elif not node.args and isinstance(node.func, ast.Attribute):
        yield copy.deepcopy(node.func.value)


def drop_with(site: Site) -> Iterator[list[ast.stmt]]:
    """A ``with`` block's body run without it, and, where it enters several managers, without one of them."""
    node = site.node
    if _statement(site) and isinstance(node, (ast.With, ast.AsyncWith)):
        yield copy.deepcopy(node.body)
        if len(node.items) > 1:
            for i in range(len(node.items)):
                new = copy.deepcopy(node)
                del new.items[i]
                yield [new]


def drop_try(site: Site) -> Iterator[list[ast.stmt]]:
    """``try``'s body, ``else`` and ``finally`` run in a row: nothing caught, nothing cleaned up after an error."""
    if _statement(site) and isinstance(site.node, ast.Try):
        yield copy.deepcopy(site.node.body + site.node.orelse + site.node.finalbody)


def return_input(site: Site) -> Iterator[ast.AST]:
    """``return <expr>`` -> ``return <the function's first argument>``: an input returned as it is."""
    node = site.node
    if (isinstance(node, ast.Return) and node.value is not None and site.first_param is not None
            and not (isinstance(node.value, ast.Name) and node.value.id == site.first_param)):
        yield ast.Return(ast.Name(site.first_param, ast.Load()))


def return_none(site: Site) -> Iterator[ast.AST]:
    node = site.node
    if isinstance(node, ast.Return) and node.value is not None and not (
            isinstance(node.value, ast.Constant) and node.value.value is None):
        yield ast.Return(ast.Constant(None))


#: every operator, by the name the report gives it, in the order mutants are listed (and deduplicated: where two
#: operators make the same code, the first one's name is kept)
OPERATORS: dict[str, Callable[[Site], Iterator]] = {
    "constant": constant, "string": string, "compare": compare, "arith": arith, "boolop": boolop,
    "unary-drop": unary_drop, "dtype": dtype, "drop-statement": drop_statement,
    "repeat-statement": repeat_statement, "swap-args": swap_args, "drop-arg": drop_arg, "drop-kwarg": drop_kwarg,
    "kwarg-value": kwarg_value, "drop-call": drop_call, "drop-with": drop_with, "drop-try": drop_try,
    "return-input": return_input, "return-none": return_none,
}


def _replace(tree: ast.Module, position: int, replacement) -> str:
    """``tree``'s code with the site at ``position`` (in :func:`sites` order) replaced; ``tree`` is untouched."""
    changed = copy.deepcopy(tree)
    site = sites(changed)[position]  # the copy has the same sites in the same order
    if site.index is None:
        setattr(site.parent, site.field, replacement)
    else:
        getattr(site.parent, site.field)[site.index:site.index + 1] = (
            replacement if isinstance(replacement, list) else [replacement])
    return ast.unparse(ast.fix_missing_locations(changed))


def mutate(code: str, operators: dict[str, Callable[[Site], Iterator]] | None = None) -> Iterator[tuple[str, str]]:
    """``(operator, mutated code)`` for each single change the operators make to ``code``, operator by operator,
    each in site order; the code as :func:`ast.unparse` writes it (comments and layout are not kept)."""
    tree = nbtools.parse_python(code)
    found = sites(tree)
    for name, operator in (operators or OPERATORS).items():
        for position, site in enumerate(found):
            for replacement in operator(site):
                yield name, _replace(tree, position, replacement)
