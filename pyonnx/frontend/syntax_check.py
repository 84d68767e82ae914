"""Refuse unsupported Python syntax up front, at the construct's own line.

Input: a function's AST (absolute locations). Output: nothing, or a ConversionError naming the
first unsupported construct and what to write instead (as pythran's ``check_syntax`` and
AutoGraph's ``unsupported_features_checker`` do). Calls that cannot be converted (I/O, other
libraries) are refused during lowering, where names are resolved.
"""

from __future__ import annotations

import ast

from pyonnx.errors import ConversionError
from pyonnx.frontend.source import FunctionSource, loc_of

__all__ = ["check_syntax"]

# node type → message; the message says what to write instead where there is something.
_REFUSED: dict[type, str] = {
    ast.AsyncWith: "'async with' is not supported",
    ast.Try: "'try' statements are not supported; an ONNX model cannot catch errors: check the "
             "condition with an 'if' instead",
    ast.TryStar: "'try' statements are not supported",
    ast.Yield: "generators ('yield') are not supported; build the values in a list or an array "
               "and return it",
    ast.YieldFrom: "generators ('yield from') are not supported",
    ast.Await: "'await' is not supported",
    ast.ClassDef: "class definitions are not supported inside a compiled function; define the "
                  "class outside it",
    ast.Global: "'global' is not supported; pass the value in as an argument and return the "
                "new value",
    ast.Nonlocal: "'nonlocal' is not supported; return the new value instead",
    ast.Match: "'match' statements are not supported; use if/elif",
    ast.AsyncFor: "'async for' is not supported",
    ast.SetComp: "set comprehensions are not supported: a set's order and contents depend on "
                 "hashing; use a list comprehension or np.unique",
    ast.NamedExpr: "the walrus operator ':=' is not supported; assign on its own line",
    ast.Starred: "starred expressions ('*args') are not supported here; pass the items "
                 "explicitly",
    ast.AsyncFunctionDef: "async functions are not supported; use 'def'",
}


class _Checker(ast.NodeVisitor):
    def __init__(self, src: FunctionSource):
        self.src = src

    def _refuse(self, node: ast.AST, message: str) -> None:
        raise ConversionError(message, loc_of(self.src, node))

    def generic_visit(self, node: ast.AST) -> None:
        message = _REFUSED.get(type(node))
        if message is not None:
            self._refuse(node, message)
        super().generic_visit(node)

    def _display(self, node: ast.Tuple | ast.List) -> None:
        """``(*shape, 1)``, ``[*a, *b]``: a starred item of a tuple or list display (not an
        assignment target) splices an iterable known at conversion time (lower/expr.py)."""
        if not isinstance(node.ctx, ast.Load):
            self.generic_visit(node)
            return
        for e in node.elts:
            self.visit(e.value if isinstance(e, ast.Starred) else e)

    visit_Tuple = visit_List = _display

    def visit_Delete(self, node: ast.Delete) -> None:
        for t in node.targets:
            if not isinstance(t, ast.Name):
                self._refuse(t, f"'del {ast.unparse(t)}' is not supported: numpy arrays cannot "
                                "delete elements (use np.delete and rebind) and a compiled "
                                "function's containers are fixed; 'del name' is supported")

    def visit_FunctionDef(self, node: ast.FunctionDef) -> None:
        if node.decorator_list:
            self._refuse(node.decorator_list[0],
                         "decorators on a nested function are not supported; call the "
                         "decorated behaviour explicitly or define the helper at module level")
        self.generic_visit(node)

    def visit_Call(self, node: ast.Call) -> None:
        if isinstance(node.func, ast.Name) and node.func.id in ("eval", "exec", "compile"):
            self._refuse(node, f"'{node.func.id}' is not supported: pyonnx converts source it can "
                               "read; write the code out")
        # f(*items) and f(**options) are unpacked at conversion time (lower/function.py)
        self.visit(node.func)
        for arg in node.args:
            self.visit(arg.value if isinstance(arg, ast.Starred) else arg)
        for kw in node.keywords:
            self.visit(kw.value)


def check_syntax(src: FunctionSource) -> None:
    """Raises ConversionError at the first unsupported construct of ``src``'s body.

    (``*args``/``**kwargs`` in the signature are bound per call: pyonnx.variadic.)
    """
    checker = _Checker(src)
    for stmt in src.tree.body:
        checker.visit(stmt)
