"""``c[k] op= v`` where ``c`` is a list or dict and its item an array: numpy's in-place operator.

Python runs ``c[k] op= v`` as ``t = c[k]; t = t.__iop__(v); c[k] = t``: for an array item the
operator writes into the array's memory, which every other name of it sees
(``g = np.zeros(3); grads = [g]; grads[0] += x`` changes ``g``), and ``c[k]`` holds the same
object after. canonicalize/augassign.py made it ``c[k] = c[k] op v`` (right for an item
assignment into an array, whose ``x[i]`` is a new value or a view written back), so for a
container the lowering runs ``t op= v`` on a temporary name bound to the item instead:
the statement lowering's in-place path (stmt.StmtLowering.stmt_Assign) writes the memory.
A number item (a numpy scalar or a Python number) is immutable: rebound, as before.

Input: the ``x = <setitem>(x, k, v)`` call (canonicalize/setitem.py) whose value is an
in-place ``BinOp`` (``pyonnx_inplace == "subscript"``). Output: the item's value after the
operator, or None where this does not apply (the call lowers the value as usual).
"""

from __future__ import annotations

import ast
import itertools
from typing import Any

import numpy as np

from pyonnx.errors import ConversionError
from pyonnx.frontend.canonicalize.templates import FLAG_PREFIX
from pyonnx.frontend.graph import complex_kinds, scalar_kinds
from pyonnx.frontend.graph.complex_values import Complex
from pyonnx.frontend.graph.values import Array

__all__ = ["item_in_place"]

_IDS = itertools.count(1)


def item_in_place(lowering, node: ast.Call) -> tuple | None:
    """``(container, the item's value after the operator)`` (see the module docstring); None
    where the target is no list or dict, or the item is no array. A dict's item is the
    written array itself afterwards (the write re-derives every holder of the memory)."""
    target_node, _, value_node = node.args
    if getattr(value_node, "pyonnx_inplace", None) != "subscript" or \
            not isinstance(value_node, ast.BinOp):
        return None
    target = lowering.expr(target_node)
    if not isinstance(target, (list, dict)):
        return None
    item = lowering.expr(value_node.left)
    if not _array(lowering.ctx, item):
        return None
    tmp = f"{FLAG_PREFIX}item_{next(_IDS)}"
    lowering.env.bind(tmp, item)
    binop = ast.BinOp(left=ast.Name(id=tmp, ctx=ast.Load()), op=value_node.op,
                      right=value_node.right)
    binop.pyonnx_inplace = True  # type: ignore[attr-defined]
    stmt = ast.Assign(targets=[ast.Name(id=tmp, ctx=ast.Store())], value=binop)
    for n in (stmt, binop, binop.left, stmt.targets[0]):
        ast.copy_location(n, value_node)
    try:
        lowering.stmt_Assign(stmt)
        return target, lowering.env.lookup(tmp)[1]
    except ConversionError as e:  # (said of the item, not of the temporary name)
        raise ConversionError(e.message.replace(tmp, ast.unparse(value_node.left)),
                              e.loc) from None
    finally:
        lowering.env.locals.pop(tmp, None)


def _array(ctx, v: Any) -> bool:
    """Whether ``v`` is an array numpy's in-place operator writes into (not a number)."""
    if isinstance(v, np.ndarray):
        return True
    if isinstance(v, Complex):
        return not v.weak and (v.ndim > 0 or complex_kinds.kind(v) == "array")
    if isinstance(v, Array):
        return not v.weak and (v.ndim > 0 or scalar_kinds.is_array0d(ctx, v))
    return False
