"""Rewrite ``assert`` as the ``if``/``raise`` Python runs.

Input: a FunctionDef. Output: the same, where ``assert test, msg`` is
``if not test: raise AssertionError(msg)`` (``raise AssertionError`` without a message): Python
evaluates the message only when the test fails, and ``raise`` is then one construct for the
lowering (a conversion-time failure is a ConversionError, a run-time one a check the compiled
function raises after the run, :mod:`pyonnx.frontend.lower.checks`).

Requires: nothing; runs before early_return (which makes ``raise`` leave the function).
"""

from __future__ import annotations

import ast

from pyonnx.frontend.canonicalize.templates import located

__all__ = ["AssertTransformer", "transform"]


class AssertTransformer(ast.NodeTransformer):
    def visit_Assert(self, node: ast.Assert) -> ast.stmt:
        exc: ast.expr = ast.Name(id="AssertionError", ctx=ast.Load())
        if node.msg is not None:
            exc = ast.Call(func=exc, args=[node.msg], keywords=[])
        raise_ = ast.Raise(exc=exc, cause=None)
        # The location of the test: a failure at run time names the assert's line.
        test = ast.UnaryOp(op=ast.Not(), operand=node.test)
        new = ast.If(test=test, body=[raise_], orelse=[])
        return located([new], node)[0]


def transform(tree: ast.FunctionDef) -> ast.FunctionDef:
    return AssertTransformer().visit(tree)
