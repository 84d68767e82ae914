"""Read a Python function's source into an AST whose locations are absolute in the user's file.

Input: a plain Python function. Output: a :class:`FunctionSource` holding its ``ast.FunctionDef``
(every node's ``lineno``/``col_offset`` absolute, as AutoGraph's ``origin_info`` resolves them),
and the namespaces its free names resolve in (globals, closure cells, builtins).
"""

from __future__ import annotations

import ast
import builtins
import dataclasses
import inspect
import linecache
import textwrap
import types
from typing import Any

from pyonnx.errors import ConversionError
from pyonnx.loc import SourceLoc

__all__ = ["FunctionSource", "parse_function", "loc_of"]


@dataclasses.dataclass
class FunctionSource:
    """A parsed function with what is needed to resolve its names.

    Attributes:
        fn: the Python function.
        tree: its ``ast.FunctionDef`` with absolute line numbers and columns.
        filename: the file the source came from.
        globals: the function's module namespace.
        closure: free variable name → value of its closure cell.
    """

    fn: types.FunctionType
    tree: ast.FunctionDef
    filename: str
    globals: dict[str, Any]
    closure: dict[str, Any]

    @property
    def name(self) -> str:
        return self.fn.__name__

    def resolve_free(self, name: str) -> tuple[bool, Any]:
        """Looks a free name up as Python would: closure, then globals, then builtins."""
        if name in self.closure:
            return True, self.closure[name]
        if name in self.globals:
            return True, self.globals[name]
        if hasattr(builtins, name):
            return True, getattr(builtins, name)
        return False, None


# Bounded: each entry holds its function and globals, and a process that converts functions
# made on the fly (a fuzzer, a notebook redefining them) must not keep them all.
_CACHE: dict[types.CodeType, FunctionSource] = {}
_CACHE_SIZE = 1024


def parse_function(fn: Any) -> FunctionSource:
    """Parses ``fn``'s source; cached per code object.

    Raises:
        ConversionError: the source is unavailable, or ``fn`` is a lambda or not a function.
    """
    fn = inspect.unwrap(fn)
    if isinstance(fn, types.MethodType):
        raise ConversionError(
            f"cannot convert bound method {fn.__qualname__}; pass a plain function")
    if not isinstance(fn, types.FunctionType):
        raise ConversionError(f"pyonnx converts Python functions, not {type(fn).__name__}")
    code = fn.__code__
    cached = _CACHE.get(code)
    if cached is not None and cached.fn is fn:
        return cached
    try:
        lines, first_line = inspect.getsourcelines(fn)
    except (OSError, TypeError) as e:
        raise ConversionError(
            f"cannot read the source of {fn.__qualname__} ({e}); pyonnx converts functions "
            "defined in files, not in an interactive prompt or exec'd strings") from None
    filename = inspect.getsourcefile(fn) or code.co_filename
    text = "".join(lines)
    dedented = textwrap.dedent(text)
    indent = _indent_width(lines[0]) - _indent_width(dedented.splitlines()[0] if dedented else "")
    if fn.__name__ == "<lambda>":
        # (its source lines are the expression around it, which may not parse on their own:
        # a dict literal's item; the lambda is found in its file's tree, already absolute)
        tree = _lambda_tree(fn, filename, first_line, indent)
    else:
        try:
            module = ast.parse(dedented)
        except SyntaxError as e:
            raise ConversionError(f"cannot parse the source of {fn.__qualname__}: "
                                  f"{e.msg}") from None
        defs = [n for n in module.body if isinstance(n, (ast.FunctionDef, ast.AsyncFunctionDef))]
        if not defs:
            raise ConversionError("pyonnx cannot read a 'def' at the source of "
                                  f"{fn.__qualname__}; define the function with 'def'",
                                  SourceLoc(filename, first_line, indent, fn.__name__,
                                            linecache.getline(filename, first_line)))
        tree = defs[0]
        for node in ast.walk(tree):
            if "lineno" in node._attributes and hasattr(node, "lineno"):
                node.lineno += first_line - 1
                node.end_lineno = (node.end_lineno or node.lineno) + first_line - 1
                node.col_offset += indent
                if node.end_col_offset is not None:
                    node.end_col_offset += indent
    closure = {}
    if fn.__closure__:
        for name, cell in zip(code.co_freevars, fn.__closure__):
            try:
                closure[name] = cell.cell_contents
            except ValueError:  # an empty cell: a name assigned later in the enclosing scope
                pass
    src = FunctionSource(fn, tree, filename, fn.__globals__, closure)
    if isinstance(tree, ast.AsyncFunctionDef):
        raise ConversionError("async functions are not supported; use 'def'", loc_of(src, tree))
    if len(_CACHE) >= _CACHE_SIZE:
        _CACHE.pop(next(iter(_CACHE)))  # the oldest (dicts keep insertion order)
    _CACHE[code] = src
    return src


def _lambda_tree(fn: types.FunctionType, filename: str, first_line: int,
                 indent: int) -> ast.FunctionDef:
    """The ``lambda`` expression ``fn`` was made from, as ``def <lambda>(args): return body``
    with absolute locations: the Lambda node of its file's tree on its first line whose span
    holds every instruction position of ``fn``'s code (the innermost such, with its
    parameter names).

    Raises:
        ConversionError: the file does not parse, or the lambda is not found in it (two
            lambdas of one line that the positions cannot tell apart).
    """
    code = fn.__code__
    refusal = ConversionError(
        "pyonnx cannot find this lambda in its source; define the function with 'def'",
        SourceLoc(filename, first_line, indent, fn.__name__,
                  linecache.getline(filename, first_line)))
    try:
        module = ast.parse("".join(linecache.getlines(filename)))
    except SyntaxError:
        raise refusal from None
    # (the instructions of the body: RESUME and the like have an empty span at column 0)
    spots = [(line, col) for line, _, col, end in code.co_positions()
             if line is not None and col is not None and end is not None and end > col]
    params = list(code.co_varnames[:code.co_argcount + code.co_kwonlyargcount])

    def holds(n: ast.Lambda) -> bool:
        start, end = (n.lineno, n.col_offset), (n.end_lineno, n.end_col_offset)
        args = n.args
        names = [a.arg for a in (*args.posonlyargs, *args.args, *args.kwonlyargs)]
        return all(start <= p <= end for p in spots) and names == params
    found = [n for n in ast.walk(module) if isinstance(n, ast.Lambda)
             and n.lineno == code.co_firstlineno and holds(n)]
    if not found:
        raise refusal
    lam = min(found, key=lambda n: (n.end_lineno - n.lineno, n.end_col_offset - n.col_offset))
    ret = ast.Return(value=lam.body)
    tree = ast.FunctionDef(name="<lambda>", args=lam.args, body=[ret], decorator_list=[],
                           returns=None, type_comment=None)
    if "type_params" in ast.FunctionDef._fields:  # (Python 3.12)
        tree.type_params = []
    for node in (ret, tree):
        ast.copy_location(node, lam)
    return tree


def _indent_width(line: str) -> int:
    return len(line) - len(line.lstrip())


def loc_of(src: FunctionSource, node: ast.AST) -> SourceLoc:
    """The absolute :class:`SourceLoc` of an AST node of ``src``."""
    lineno = getattr(node, "lineno", src.tree.lineno)
    col = getattr(node, "col_offset", 0)
    return SourceLoc(src.filename, lineno, col, src.name, linecache.getline(src.filename, lineno))
