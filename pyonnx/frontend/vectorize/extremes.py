"""The running extreme ``acc = max(acc, e)`` (``min``) of a one-variable loop in few nodes.

Input: the FunctionLowering, the loop ``node``, its :class:`~.exprs.Space`, the accumulator's
name and start value ``a`` (a Python number known at conversion time, or a 0-d Array of
dtype ``P`` or weak: a Python number known at run time), the bound name of the
per-iteration values ``e`` (1-d, iteration ``t`` at position ``t`` of the ascending range,
reversed for a descending one), the dtype ``P`` the comparisons end in and "max"/"min".
Output: the 0-d bool "start kept" when ``acc`` was rebound to the loop's result; None (nothing
emitted) when the form does not apply (then :mod:`.emit` lowers its general form).

Python's loop keeps ``acc`` unless ``e`` compares greater, so its result is the *first* element
(in iteration order) equal to the largest ``e`` that exceeds the start value, or the start
value:

* ``W = where((e <= a) | isnan(e), ident, e)``: NaN and values not above ``a`` never win;
  ``e`` sits in Where's second branch, which keeps a -0.0 (no ``Not``: onnxruntime fuses
  ``Where(Not(c), a, b)`` into ``Where(c, b, a)``, which would lose it);
* one identity appended (an empty range still has an argmax), ``p = argmax(W)``
  (onnxruntime's ArgMax gives the first index of the maximum, ``select_last_index`` the last
  one for a descending range: iteration order), ``r = W[p]``;
* ``where(r <= a, a, r)`` for a constant start that is neither -0.0 nor NaN (the selected
  ``r`` again in the second branch), else a Gather from ``(a, r)`` at ``r > a`` (exact for
  any value, -0.0 and NaN included).

The sign of a zero result is the loop's; 8 to 13 nodes where the general form (a reduction,
its NaN test and an exact 0-d select) took about 30.
"""

from __future__ import annotations

import ast
import math
from typing import Any

import numpy as np

from pyonnx.frontend.graph.values import Array

__all__ = ["python_extreme"]

# ArgMax, ArgMin and Where kernels exist for these in onnxruntime's CPU provider.
_DTYPES = frozenset(np.dtype(t) for t in (np.float32, np.float64, np.int32, np.int64))


def _start(a: Any, P: np.dtype) -> np.ndarray | None:
    """The start value as a 0-d array of ``P`` when it is a Python number that ``P`` holds
    exactly and not -0.0 (Where's first branch would give +0.0); else None."""
    if isinstance(a, bool) or not isinstance(a, (int, float)):
        return None
    if isinstance(a, float) and (math.isnan(a) or a == 0.0 and math.copysign(1.0, a) < 0):
        return None
    try:
        with np.errstate(all="ignore"):
            v = np.array(a, P)
    except (OverflowError, ValueError):
        return None
    return v if bool(v == a) else None


# Below this many elements (all known) the If costs about what the exact form's passes do.
_SMALL = 4096


def _guarded(ctx, e: Array, P: np.dtype) -> bool:
    """Whether the plain reduction behind an ``If`` pays: floats of the comparison dtype
    (onnxruntime's int64 ReduceMax compares 32 bits), outside loop and branch bodies (an
    If per iteration), on arrays not known to be small."""
    if P.kind != "f" or e.dtype != P or len(ctx._scopes) > 1:
        return False
    return not all(isinstance(d, int) for d in e.shape) or \
        int(np.prod(e.shape, dtype=np.int64)) >= _SMALL


def python_extreme(lw, node, space, acc: str, a: Any, e_name: str, P: np.dtype, kind: str,
                   bind, lower_stmts, assign) -> Array | None:
    """Rebinds ``acc`` to the loop's ``max``/``min`` (see the module docstring).

    Returns the 0-d bool "the start value was kept" (Python's max returns the start object
    then: a Python number where it was one), or None when the form does not apply."""
    from pyonnx.frontend.vectorize.exprs import name

    P = np.dtype(P)
    start = _start(a, P)
    # (a weak start, a Python number at run time, compares in P as the loop's comparison does)
    dynamic = isinstance(a, Array) and a.ndim == 0 and (a.dtype == P or a.weak)
    e = lw.env.lookup(e_name)[1]
    if (start is None and not dynamic) or P not in _DTYPES or len(space.vars) != 1 or \
            not isinstance(e, Array) or e.ndim != 1:
        return None
    ctx = lw.ctx
    # keep = not (e > a), spelled (e <= a) | isnan(e) in numpy's promotion of e and the start
    # (as the loop compares): onnxruntime fuses Not into Where by swapping its branches, which
    # would put e in the first branch. (A NaN start: nothing is kept here, but no r passes
    # the final test r > a.)
    not_better = ast.LtE() if kind == "max" else ast.GtE()
    start_e = name(acc) if dynamic else ast.Constant(a)
    test: ast.expr = ast.Compare(left=name(e_name), ops=[not_better], comparators=[start_e])
    if P.kind == "f" or e.dtype.kind == "f":
        from pyonnx.frontend.vectorize.exprs import call
        test = ast.BinOp(left=test, op=ast.BitOr(), right=call("isnan", name(e_name)))
    if P.kind == "f":
        ident = -np.inf if kind == "max" else np.inf
    else:
        info = np.iinfo(P)
        ident = info.min if kind == "max" else info.max
    last = 1 if space.vars[0].step < 0 else 0

    def exact(ctx) -> Array | None:
        keep = bind(lw, node, test, "keep")[1]
        if not isinstance(keep, Array):
            return None
        ident_c = ctx.const(np.array(ident, P))
        w = ctx.op("Where", keep.value, ident_c, ctx.cast(e, P).value)
        wp = ctx.op("Concat", w, ctx.const(np.array([ident], P)), axis=0)
        p = ctx.op("ArgMax" if kind == "max" else "ArgMin", wp, axis=0, keepdims=0,
                   select_last_index=last)
        return Array(ctx.op("Gather", wp, p, axis=0), P, ())

    if _guarded(ctx, e, P):
        # Arrays without a NaN whose extreme is not a zero (the common case) need no
        # first-index rule: equal nonzero values are the same bits, so the plain
        # ReduceMax is the first of the largest (one pass; the exact form takes five). An
        # If runs the exact form for the rest: a NaN somewhere (the sum is NaN), a zero
        # extreme (its sign is the first zero's), an empty range.
        from pyonnx.frontend.graph.rare_case import only_if
        plain = ctx.op("ReduceMax" if kind == "max" else "ReduceMin", e.value, keepdims=0)
        total = ctx.op("ReduceSum", e.value, keepdims=0)
        empty = ctx.op("Equal", ctx.op("Size", e.value), ctx.const(np.array(0, np.int64)))
        flag = ctx.op("Or", ctx.op("Or", ctx.op("IsNaN", total), empty),
                      ctx.op("Equal", plain, ctx.const(np.array(0, P))))
        r = only_if(ctx, flag, Array(plain, P, ()), exact, "running_extreme").value
    else:
        got = exact(ctx)
        if got is None:
            return None
        r = got.value
    better = "Greater" if kind == "max" else "Less"
    if dynamic:
        # a run-time start may be -0.0: the exact select is a Gather from (start, r).
        one = ctx.const(np.array([1], np.int64))
        a1 = ctx.op("Reshape", ctx.cast(a, P).value, one)
        r1 = ctx.op("Reshape", r, one)
        won = ctx.op(better, r1, a1)
        pick = ctx.op("Cast", won, to=7)  # 1: r is better (int64)
        squeeze = ctx.const(np.array([0], np.int64))
        out = ctx.op("Squeeze", ctx.op("Gather", ctx.op("Concat", a1, r1, axis=0), pick,
                                       axis=0), squeeze)
        kept = ctx.op("Not", ctx.op("Squeeze", won, squeeze))
    else:
        start_c = ctx.const(start)  # (not NaN: r <= a is then "r is not better")
        kept = ctx.op("LessOrEqual" if kind == "max" else "GreaterOrEqual", r, start_c)
        out = ctx.op("Where", kept, start_c, r)
    tmp = "_pyonnx_extreme_" + acc
    lw.env.bind(tmp, Array(out, P, ()))
    # (a 0-d array indexed with (): the numpy scalar the loop leaves)
    lower_stmts(lw, node, [assign(acc, ast.Subscript(value=name(tmp), slice=ast.Tuple(
        elts=[], ctx=ast.Load()), ctx=ast.Load()))])
    return Array(kept, np.dtype(np.bool_), ())
