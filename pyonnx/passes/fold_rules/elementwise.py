"""Folding rules for elementwise numpy: arithmetic (with neutral elements dropped), integer
division and Mod with ONNX's rules, comparisons and logic, unary ops, Where."""

from __future__ import annotations

from collections.abc import Callable

import numpy as np
import onnx_ir as ir

from pyonnx.passes.fold_rules.common import _attr, _size
from pyonnx.passes.fold_rules.registry import Inputs, Result, Rule, register


# ------------------------------------------------------------------- elementwise numpy
def _broadcast_ok(f: Inputs, *arrays: np.ndarray) -> bool:
    try:
        shape = np.broadcast_shapes(*(a.shape for a in arrays))
    except ValueError:
        return False
    return _size(shape) <= f.limit


def _binary(fn: Callable[[np.ndarray, np.ndarray], np.ndarray], out_bool: bool = False,
            kinds: str = "biuf") -> Rule:
    def rule(node: ir.Node, f: Inputs) -> Result:
        args = f.consts()
        if args is None or len(args) != 2 or args[0] is None or args[1] is None:
            return None
        a, b = args
        if a.dtype != b.dtype or a.dtype.kind not in kinds or not _broadcast_ok(f, a, b):
            return None
        with np.errstate(all="ignore"):  # integers wrap, floats give inf/nan as IEEE does
            out = np.asarray(fn(a, b))
        return [out.astype(np.bool_ if out_bool else a.dtype, copy=False)]
    return rule


# Which input may be a neutral constant, its value, and whether only integers are exact
# (x + 0.0 turns -0.0 into +0.0; x - 0.0, x * 1.0 and x / 1.0 are exact for every float).
_NEUTRAL = {"Add": ((0, 1), 0, "iu"), "Sub": ((1,), 0, "iuf"), "Mul": ((0, 1), 1, "iuf"),
            "Div": ((1,), 1, "iuf")}


def _drop_neutral(node: ir.Node) -> Result:
    """``x + 0``, ``x - 0``, ``x * 1``, ``x / 1`` with a 0-d constant → ``x`` (a 0-d operand
    cannot change the other's shape, and ONNX makes both operands one dtype)."""
    inputs = node.inputs
    if len(inputs) != 2 or inputs[0] is None or inputs[1] is None:
        return None
    positions, neutral, kinds = _NEUTRAL[node.op_type]
    for i in positions:
        c = inputs[i].const_value
        if c is None or c.size != 1 or len(c.shape) != 0 or inputs[i].is_graph_input():
            continue
        arr = c.numpy()
        if arr.dtype.kind in kinds and arr == neutral and not np.signbit(arr):
            return [inputs[1 - i]]
    return None


def _arithmetic(fn: Callable[[np.ndarray, np.ndarray], np.ndarray]) -> Rule:
    fold = _binary(fn, kinds="iuf")

    def rule(node: ir.Node, f: Inputs) -> Result:
        inputs = node.inputs
        if len(inputs) != 2 or inputs[0] is None or inputs[1] is None:
            return None
        a, b = inputs[0].const_value, inputs[1].const_value
        if a is None and b is None:
            return None  # the common case, decided in a few attribute reads
        if a is not None and b is not None:
            return fold(node, f)
        return _drop_neutral(node)
    return rule


for _op, _fn in [("Add", np.add), ("Sub", np.subtract), ("Mul", np.multiply)]:
    register(_op, partial=True)(_arithmetic(_fn))
for _op, _fn in [("Equal", np.equal), ("Less", np.less), ("LessOrEqual", np.less_equal),
                 ("Greater", np.greater), ("GreaterOrEqual", np.greater_equal)]:
    register(_op)(_binary(_fn, out_bool=True))
for _op, _fn in [("And", np.logical_and), ("Or", np.logical_or), ("Xor", np.logical_xor)]:
    register(_op)(_binary(_fn, out_bool=True, kinds="b"))


def _int_division_ok(a: np.ndarray, b: np.ndarray) -> bool:
    """No division by zero and no ``INT_MIN / -1`` (both fault at run time in onnxruntime)."""
    if np.any(b == 0):
        return False
    if a.dtype.kind == "i":
        lo = np.iinfo(a.dtype).min
        if np.any((a == lo) & (b == -1)):
            return False
    return True


@register("Div", partial=True)
def div(node: ir.Node, f: Inputs) -> Result:
    inputs = node.inputs
    if len(inputs) != 2 or inputs[1] is None or inputs[1].const_value is None:
        return None  # the common case: a computed divisor
    args = f.consts()
    if args is None or len(args) != 2 or args[0] is None or args[1] is None:
        return _drop_neutral(node)
    a, b = args
    if a.dtype != b.dtype or not _broadcast_ok(f, a, b):
        return None
    if a.dtype.kind == "f":
        with np.errstate(all="ignore"):
            return [np.asarray(np.true_divide(a, b)).astype(a.dtype, copy=False)]
    if a.dtype.kind not in "iu" or not _int_division_ok(a, b):
        return None
    # ONNX integer Div truncates toward zero (C semantics); numpy's // floors.
    q = np.floor_divide(a, b)
    if a.dtype.kind == "i":
        r = a - q * b
        q = q + ((r != 0) & ((a < 0) != (b < 0))).astype(a.dtype)
    return [np.asarray(q, dtype=a.dtype)]


@register("Mod")
def mod(node: ir.Node, f: Inputs) -> Result:
    args = f.consts()
    if args is None or len(args) != 2 or args[0] is None or args[1] is None:
        return None
    a, b = args
    if a.dtype != b.dtype or not _broadcast_ok(f, a, b):
        return None
    fmod = _attr(node, "fmod", 0)
    if a.dtype.kind == "f":
        if not fmod:  # ONNX requires fmod=1 for floats
            return None
        with np.errstate(all="ignore"):
            return [np.asarray(np.fmod(a, b)).astype(a.dtype, copy=False)]
    if a.dtype.kind not in "iu" or not _int_division_ok(a, b):
        return None
    # fmod=0: the result has the divisor's sign (numpy's %); fmod=1: the dividend's (C's %).
    out = np.fmod(a, b) if fmod else np.mod(a, b)
    return [np.asarray(out, dtype=a.dtype)]


def _unary(fn: Callable[[np.ndarray], np.ndarray], kinds: str) -> Rule:
    def rule(node: ir.Node, f: Inputs) -> Result:
        a = f.const(0)
        if a is None or a.dtype.kind not in kinds:
            return None
        with np.errstate(all="ignore"):
            return [np.asarray(fn(a)).astype(a.dtype, copy=False)]
    return rule


register("Neg")(_unary(np.negative, "if"))  # ONNX Neg is defined for signed types only
register("Abs")(_unary(np.abs, "iuf"))
register("Not")(_unary(np.logical_not, "b"))


@register("Where")
def where(node: ir.Node, f: Inputs) -> Result:
    args = f.consts()
    if args is None or len(args) != 3 or any(a is None for a in args):
        return None
    c, x, y = args
    if c.dtype != np.bool_ or x.dtype != y.dtype or not _broadcast_ok(f, c, x, y):
        return None
    return [np.where(c, x, y).astype(x.dtype, copy=False)]
