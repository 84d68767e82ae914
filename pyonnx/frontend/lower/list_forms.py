"""Python forms around lists built at run time and ``None``, for the expression lowering.

Input: evaluated operands (frontend values) and AST items. Output: folded values, the items of
tuple/list displays with ``*v`` spliced in, and the refusal messages for what a list built at
run time (an ONNX sequence) does not support — each naming the construct and what to write.
"""

from __future__ import annotations

import ast
from typing import Any

import numpy as np

from pyonnx.frontend.graph import scalar_kinds
from pyonnx.frontend.graph.iterables import DynamicIter
from pyonnx.frontend.graph.values import Array, Seq
from pyonnx.frontend.lower.iteration import iterate
from pyonnx.frontend.numpy_calls import lookup

__all__ = ["none_test", "display_items", "compare_refusal", "method_refusal",
           "BINARY_REFUSAL"]

_RUNTIME_LIST = "a list built at run time (appended to in a run-time loop or branch)"

BINARY_REFUSAL = (f"arithmetic or '+' joining with {_RUNTIME_LIST} is not supported; append the "
                  "items (lst.append(v)), or convert it first (np.array(lst), which needs it "
                  "not empty)")

_CMP_TEXT = {ast.Is: "is", ast.IsNot: "is not", ast.In: "in", ast.NotIn: "not in",
             ast.Eq: "==", ast.NotEq: "!=", ast.Lt: "<", ast.LtE: "<=", ast.Gt: ">",
             ast.GtE: ">="}


def none_test(ctx, op: type, left: Any, right: Any) -> Any:
    """``v is None``, ``v is not None``, ``v == None``, ``v != None`` where ``v`` is a run-time
    value (an array, a numpy scalar, a Python-number argument, a run-time list), folded from
    its kind: such a value is never None. numpy compares arrays elementwise (a bool array of
    the array's shape, np.True_ for a 0-d array); a numpy scalar, a Python number and a list
    give Python's bool. None when not such a test.
    """
    if (left is None) == (right is None):
        return None
    v = right if left is None else left
    if not isinstance(v, (Array, Seq)):
        return None
    if op in (ast.Is, ast.IsNot):
        return op is ast.IsNot
    if op not in (ast.Eq, ast.NotEq):
        return None
    if isinstance(v, Seq) or v.weak or (v.ndim == 0 and not scalar_kinds.is_array0d(ctx, v)):
        # a list, a Python number, a numpy scalar: Python's bool (np.int64(3) != None is True)
        return op is ast.NotEq
    return lookup(np.full_like).fn(ctx, v, op is ast.NotEq, dtype=np.bool_)


def display_items(lowering, elts: list[ast.expr]) -> list:
    """The items of a tuple or list display; ``*v`` splices the items of ``v`` (a tuple,
    list, range or ``x.shape``; an array's rows when its length is static)."""
    out: list = []
    for e in elts:
        if not isinstance(e, ast.Starred):
            out.append(lowering.expr(e))
            continue
        items = iterate(lowering.ctx, lowering.expr(e.value))
        if isinstance(items, DynamicIter):
            raise lowering.ctx.error(
                "'*v' of a value whose length is only known at run time cannot build a tuple "
                "or list (its length must be known at conversion time); use np.concatenate "
                "for arrays", lowering.loc_of(e))
        out.extend(items)
    return out


def compare_refusal(op: type) -> str:
    return (f"'{_CMP_TEXT[op]}' with {_RUNTIME_LIST} is not supported; test its length "
            "(len(lst), if lst:) or compare an array (np.isin(v, x[keep]))")


_SEQ_METHOD_HINT = {
    "pop": " (read lst[-1] and keep a shorter slice: lst = lst[:-1])",
    "sort": " (sort the array the items come from: np.sort(x[keep]))",
    "extend": " (append the items one by one)",
    "insert": " (append, or build an array with np.insert)",
    "index": " (compare an array instead: np.flatnonzero(np.array(lst) == v))",
    "count": " (compare an array instead: np.count_nonzero(np.array(lst) == v))",
    "reverse": " (lst = lst[::-1])",
    "copy": " (lst[:])",
}


def method_refusal(name: str) -> str:
    return (f"'list.{name}' on {_RUNTIME_LIST} is not supported; such a list supports append, "
            "len, truth tests, indexing, slicing, iteration and indexing an array with it"
            + _SEQ_METHOD_HINT.get(name, ""))
