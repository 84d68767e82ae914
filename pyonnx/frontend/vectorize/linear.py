"""Linear first-order recurrences ``y[i] = a * y[i-1] + c(i)`` with a loop-invariant float
coefficient, as a blocked scan instead of a ``Loop`` (EWMA: ``out[i] = alpha * x[i] + (1 -
alpha) * out[i - 1]``).

Input: the FunctionLowering, the canonical ``For`` (one loop of step 1 or -1, its header bound
in ``space``). Output: a zero-argument function lowering the recurrence, None when the body is
not of the form, or :class:`~.exprs.Bail` (the loop stays a ``Loop``).

Form: one write ``y[i + w] = T1 + T2`` (or ``T1 - T2``) of a 1-d float32/float64 array (or of
the rows of a 2-d one: ``out[i] = alpha * x[i] + (1 - alpha) * out[i - 1]`` over frames), one
term ``A * y[i + w - 1]`` (either operand order), the other ``C`` without ``y``; ``A`` 0-d and
loop-invariant, ``C`` elementwise in ``i`` or invariant; ``A * y[.]`` and ``y[.] + C`` both in
``y``'s dtype (so each step is ``fl(fl(a * y) + c)`` in that dtype, with ``a`` and ``c`` the
values the loop computes; a subtraction is the same with ``-a`` or ``-c``, negation is exact).
Never: integer, bool or float16 data (exact or per-step rounding the scan cannot keep), a
coefficient that varies with ``i`` or reads ``y``, a static ``|a| > 1``, a ``y`` that shares
memory with an array the body reads (``y = x``, ``y = x[1:]``: the loop reads what it wrote);
the ``Loop`` stays.

The fast form (``c~ = [y0, c_1 .. c_k]``, zero carry in, ``B = 64``): blocks of ``B`` values
times the ``B x B`` upper-triangular Toeplitz matrix of ``a``'s powers (one MatMul) give each
block's local scan; the block ends form the same recurrence with ``a**B``, solved by a second
blocked level with ``a**(B*B)`` between its blocks and, past one level-2 block (4,096
values), a loop over the ``k / B**2`` remaining carries behind an ``If``; each level adds
``a**(r+1)`` times the carry into its block. The loops are ``Loop`` nodes with a scan output:
the gradient pass differentiates them (it has no ``Scan`` rule), LoopToScanPass then makes
them ``Scan``s for onnxruntime (element steps; row steps stay ``Loop``s).

Error bound (``|a| <= 1``, finite values): with ``u`` the dtype's unit roundoff,
``M_i = max_{j<=i} |y_j|`` and ``n_i = min(i + 1, 1 / (1 - |a|))``, the loop's own result is
within about ``u * n_i * M_i`` of the exact recurrence, and so is the blocked one (per level a
dot product of at most ``B`` terms and one product and sum, each term damped by ``|a|**d``):
they differ by at most ``4 * u * n_i * M_i`` (measured: below ``0.7 * u * n_i * M_i`` for
``a`` in [-1, 1], n up to 20,000, both dtypes). For ``n_i`` and ``M_i / |y_i|`` small (an
EWMA with ``alpha >= 0.01`` of zero-mean data) that is within the tests' default 8 ulp; near
``|a| = 1`` over long ranges it is the same order as the loop's own rounding error, and the
tests state their tolerance from this bound.

Exactness where the bound does not apply: at run time, unless ``|a| <= 1`` and every value of
the fast result is finite, nonzero and its absolute sum below ``max/4`` (so neither form can
overflow), the values come from a loop computing ``fl(fl(a * y) + c)`` step by step, as the
Python loop: numpy's NaN/inf pattern, its signs of zero and its overflow, bit for bit.

Cost (EWMA, float64, one thread): 34 µs at n = 1,000, 70 µs at 10,000, 0.4 ms at 100,000
(the Python loop: 0.19, 3-6 and 45 ms; the Loop/Scan lowering: 0.95, 22 and 226 ms); about
75 nodes, most of them per-call cost at small n. Rows (1,000 x 17): 0.13 ms (Python 1.5 ms,
the Loop lowering 8 ms).
"""

from __future__ import annotations

import ast
from typing import Any

import numpy as np
import onnx_ir as ir

from pyonnx.frontend.graph import dtypes
from pyonnx.frontend.graph.rare_case import only_if
from pyonnx.frontend.graph.values import Array
from pyonnx.frontend.vectorize import emit
from pyonnx.frontend.vectorize.exprs import Bail, Space, Vectorizer, fresh, lookup, name
from pyonnx.frontend.vectorize.forms import Step, _check_aliases, setitem_parts

__all__ = ["plan_linear", "BLOCK"]

BLOCK = 64  # values per block at both levels (a 64x64 MatMul per block of 64 elements)
_I64 = np.dtype(np.int64)
_FLOATS = (np.dtype(np.float32), np.dtype(np.float64))


def plan_linear(lw, node: ast.For, space: Space):
    """The recurrence's lowering (module docstring), None when the body is not of the form."""
    from pyonnx.frontend.vectorize.recurrences import _static_offset

    if len(space.vars) != 1 or len(node.body) != 1:
        return None
    parts = setitem_parts(node.body[0])
    if parts is None:
        return None
    y, index, value = parts
    var = space.vars[0]
    if var.S != 1:
        return None
    vz = Vectorizer(space)
    w = _static_offset(vz, index)
    if w is None:
        return None
    split = _split(vz, value, y, w[1] - var.step)
    if split is None:
        return None
    a_e, a_neg, c_e, c_neg = split
    yv = lookup(space, y)
    if not hasattr(yv, "dtype") or yv.ndim not in (1, 2):
        raise Bail("linear recurrence on an array of rank other than 1 or 2")
    rows = yv.ndim - 1  # 1: each step a row (out[i] = a * out[i-1] + x[i] of a matrix)
    yd = np.dtype(yv.dtype)
    if yd not in _FLOATS:
        raise Bail("linear recurrence on integer, bool or float16 data: stays exact as a Loop")
    # (y = x, or y a view of x: the loop reads values it wrote, the scan the old ones)
    _check_aliases(node.body, space, {y: ""})
    a_v = vz.vec(a_e)
    if a_v.axes or a_v.rank:
        raise Bail("coefficient varies with the loop variable")
    c_v = vz.vec(c_e) if c_e is not None else None
    if c_v is not None and (c_v.rank > rows or c_v.axes not in ((), (var.name,)) or
                            (c_v.axes and c_v.rank != rows)):
        raise Bail("recurrence term")
    a_name, a_val = emit.bind(lw, node, a_v.node, "a")
    c_name, c_val = emit.bind(lw, node, c_v.node, "c") if c_v is not None else (None, 0.0)
    elem = yd.type(0)
    try:
        if dtypes.ufunc_dtypes(np.multiply, a_val, elem)[1][0] != yd or \
                dtypes.ufunc_dtypes(np.add, elem, c_val)[1][0] != yd:
            raise Bail("recurrence computed in another dtype than the array's")
    except TypeError:
        raise Bail("recurrence dtypes") from None
    if rows and isinstance(c_val, Array) and c_val.ndim == 1 + bool(c_v.axes) and \
            c_val.ndim and None not in (c_val.shape[-1], yv.shape[-1]) and \
            c_val.shape[-1] not in (1, yv.shape[-1]):
        raise Bail("recurrence rows of another length than the array's")
    static_a = None
    if not isinstance(a_val, Array):
        with np.errstate(all="ignore"):
            static_a = float(np.asarray(a_val).astype(yd)) * (-1.0 if a_neg else 1.0)
        if not abs(static_a) <= 1.0:
            raise Bail("|coefficient| > 1: the blocked form would overflow differently")
    # the initial element and the written range inside y (checked once, with the reads)
    start_w = emit.expr(f"lo + {w[1]}", lo=var.lo)
    # the initial element: before the first iteration's index (the range's last for a
    # descending one); the check covers lo+w-step .. lo+w-step+k-1, which holds it
    init_start = emit.expr(f"lo + {w[1] - 1}", lo=var.lo) if var.step > 0 else \
        emit.expr(f"lo + k + {w[1]}", lo=var.lo, k=var.k)
    space.checks.append((y, 0, start_w, var))
    space.checks.append((y, 0, emit.expr(f"lo + {w[1] - var.step}", lo=var.lo), var))

    def run() -> None:
        ctx = lw.ctx
        a = ctx.cast(ctx.asarray(a_val), yd) if static_a is None else None
        if a is not None and a_neg:
            a = Array(ctx.op("Neg", a.value), yd, ())
        k = lw.env.lookup(var.k)[1]
        k_arr = ctx.cast(ctx.asarray(k), _I64)
        y_arr = ctx.asarray(lw.env.lookup(y)[1])
        c = _values(ctx, lw.env.lookup(c_name)[1] if c_name else 0.0, yd, k_arr, c_neg,
                    y_arr, c_v is not None and not c_v.axes)
        if var.step < 0:
            c = _reversed(ctx, c)  # in iteration order
        # y[s:s+1] as a Slice node: a view bound to a name would alias y (an item write)
        s_val = emit.bind(lw, node, init_start, "s")[1]
        s1 = ctx.op("Reshape", ctx.cast(ctx.asarray(s_val), _I64).value,
                    ctx.const(np.array([1], np.int64)))
        y0 = Array(ctx.op("Slice", y_arr.value, s1,
                          ctx.op("Add", s1, ctx.const(np.array([1], np.int64)))), yd, (None,))
        # (a trailing 0: never empty, also where y is; its value is not returned)
        if rows:
            v = ctx.op("Pad", ctx.op("Concat", y0.value, c, axis=0),
                       ctx.const(np.array([0, 0, 1, 0], np.int64)))
        else:
            v = ctx.op("Concat", y0.value, c, ctx.const(np.zeros(1, yd)), axis=0)
        fast = _blocked(ctx, v, a, static_a, yd, rows)
        flag = _suspect(ctx, fast, a, k_arr, yd)
        plain = Array(fast, yd, (None,) * (1 + rows))
        coef = a.value if a is not None else ctx.const(np.array(static_a, yd))
        out = only_if(ctx, flag, plain, lambda ctx: _exact(ctx, y0.value, coef, c, yd, rows),
                      "linear_recurrence")
        # (c's length, for onnxruntime's symbolic shape inference: the If's is a new symbol)
        shape = (None,) + tuple(yv.shape[1:])
        out = Array(ctx.op("Reshape", out.value, ctx.op("Shape", c)), yd, shape)
        if var.step < 0:
            out = Array(_reversed(ctx, out.value), yd, shape)  # in index order
        tmp = fresh("linear")
        lw.env.bind(tmp, out)
        first = _literal(var.bounds[0]) if var.step > 0 else None
        lower = ast.Constant(first + w[1]) if first is not None else start_w
        index = ast.Slice(lower=lower, upper=emit.expr("s + k", s=start_w, k=var.k))
        emit.run_steps(lw, node, space, [Step("write", y, value=name(tmp), index=index,
                                              op=True)])
    return run


def _literal(e: ast.expr) -> int | None:
    if isinstance(e, ast.Constant) and type(e.value) is int:
        return e.value
    if isinstance(e, ast.UnaryOp) and isinstance(e.op, ast.USub):
        v = _literal(e.operand)
        return None if v is None else -v
    return None


def _reversed(ctx, v: ir.Value) -> ir.Value:
    return ctx.op("Slice", v, ctx.const(np.array([-1], np.int64)),
                  ctx.const(np.array([-2 ** 63], np.int64)), ctx.const(np.array([0], np.int64)),
                  ctx.const(np.array([-1], np.int64)))


def _split(vz: Vectorizer, value: ast.expr, y: str, off: int):
    """``(A, a negated, C or None, c negated)`` for ``A*prev +- C``, ``C +- prev*A`` (and
    ``prev`` with either product order); None when ``value`` is not of that form."""
    from pyonnx.frontend.vectorize.recurrences import _is_prev

    if not (isinstance(value, ast.BinOp) and isinstance(value.op, (ast.Add, ast.Sub))):
        return None
    sub = isinstance(value.op, ast.Sub)
    for term, other, term_first in ((value.left, value.right, True),
                                    (value.right, value.left, False)):
        if not (isinstance(term, ast.BinOp) and isinstance(term.op, ast.Mult)):
            continue
        if _is_prev(vz, term.right, y, off):
            a = term.left
        elif _is_prev(vz, term.left, y, off):
            a = term.right
        else:
            continue
        if y in _names(a) or y in _names(other):
            return None  # y read again: not linear in the previous element alone
        # T1 - T2: the product's sign flips when it is T2, the other term's when it is T1
        return a, sub and not term_first, other, sub and term_first
    return None


def _names(e: ast.expr) -> set[str]:
    return {n.id for n in ast.walk(e) if isinstance(n, ast.Name)}


def _values(ctx, c: Any, yd: np.dtype, k: Array, neg: bool, y: Array,
            invariant: bool) -> ir.Value:
    """The k per-iteration values (rows) ``c`` in ``y``'s dtype (the add's cast: its result
    dtype is ``y``'s); an invariant one broadcast to k elements (rows of ``y``'s length)."""
    arr = ctx.cast(ctx.asarray(c), yd)
    v = arr.value
    if neg:
        v = ctx.op("Neg", v)
    if invariant or arr.ndim == 0 or y.ndim == 2:
        # (rows: also each row broadcast to y's, as the loop's item write broadcasts it; a
        # row that does not broadcast fails here where numpy's write fails)
        shape = ctx.op("Reshape", k.value, ctx.const(np.array([1], np.int64)))
        if y.ndim == 2:
            shape = ctx.op("Concat", shape, ctx.op("Shape", y.value, start=1), axis=0)
        v = ctx.op("Expand", v, shape)
    return v


def _powers(ctx, a: Array | None, static_a: float | None, yd: np.dtype, level: int,
            shift: int, rows: int = 0) -> tuple[ir.Value, ir.Value]:
    """With ``q = a**(B**level)``: the matrix ``T[j, r] = q**(r - shift - j)`` where
    ``r - shift >= j``, else 0 (``B`` rows, ``B + shift`` columns; transposed for ``rows``),
    and ``q**0 .. q**B``."""
    B = BLOCK
    d = np.arange(B + shift)[None, :] - shift - np.arange(B)[:, None]
    if rows:
        d = d.T  # (T^T @ each block of rows)
    idx = np.where(d >= 0, d, B + 1)  # B + 1: the appended zero
    if static_a is not None:
        q = np.float64(static_a) ** (B ** level)
        p = np.append(np.power(q, np.arange(B + 1, dtype=np.float64)), 0.0)
        return ctx.const(p[idx].astype(yd)), ctx.const(p[:B + 1].astype(yd))
    # q**j as a**(j * B**level): one Pow
    p = ctx.op("Pow", a.value, ctx.const(np.arange(B + 1, dtype=yd) * float(B ** level)))
    ext = ctx.op("Concat", p, ctx.const(np.zeros(1, yd)), axis=0)
    flat = ctx.op("Gather", ext, ctx.const(idx.reshape(-1)))
    return ctx.op("Reshape", flat, ctx.const(np.array(idx.shape, np.int64))), p


def _part(ctx, v: ir.Value, start: int, stop: int) -> ir.Value:
    return ctx.op("Slice", v, ctx.const(np.array([start], np.int64)),
                  ctx.const(np.array([stop], np.int64)))


def _blocks(ctx, v: ir.Value, t: ir.Value, B: int, rows: int) -> tuple[ir.Value, ir.Value]:
    """``v`` zero-padded to whole blocks of ``B`` (elements, or rows for ``rows``) times ``t``
    (``(m, B) @ T``, or ``T^T @ (m, B, d)``); and ``v``'s length (1-d)."""
    length = ctx.op("Shape", v, start=0, end=1)
    pad = ctx.op("Mod", ctx.op("Neg", length), ctx.const(np.array([B], np.int64)))
    zero = ctx.const(np.array([0] * (1 + rows), np.int64))
    pads = ctx.op("Concat", zero, pad, *([ctx.const(np.array([0], np.int64))] if rows else []),
                  axis=0)
    shape = ctx.const(np.array([-1, B], np.int64))
    if rows:
        shape = ctx.op("Concat", shape, ctx.op("Shape", v, start=1), axis=0)
    blocks = ctx.op("Reshape", ctx.op("Pad", v, pads), shape)
    return (ctx.op("MatMul", t, blocks) if rows else ctx.op("MatMul", blocks, t)), length


def _add_carry(ctx, local: ir.Value, carry: ir.Value, row: ir.Value,
               length: ir.Value, start: int, rows: int) -> ir.Value:
    """``local + carry[:, None] * row`` (``row[:, None]`` for rows), flattened to elements or
    rows, ``[start:length]``."""
    one = ctx.const(np.array([1], np.int64))
    col = ctx.op("Unsqueeze", carry, one)
    if rows:
        row = ctx.op("Unsqueeze", row, one)
    full = ctx.op("Add", local, ctx.op("Mul", col, row))
    shape = ctx.const(np.array([-1], np.int64))
    if rows:
        shape = ctx.op("Concat", shape, ctx.op("Shape", local, start=2), axis=0)
    flat = ctx.op("Reshape", full, shape)
    return ctx.op("Slice", flat, ctx.const(np.array([start], np.int64)), length)


def _blocked(ctx, v: ir.Value, a: Array | None, static_a: float | None,
             yd: np.dtype, rows: int) -> ir.Value:
    """The inclusive scan ``y_t = a*y_{t-1} + v_t`` (``y_{-1} = 0``) without its first and
    last values (``v`` is ``[y0, c_1 .. c_k, 0]``, elements or rows)."""
    B = BLOCK
    t1, p1 = _powers(ctx, a, static_a, yd, 0, 0, rows)
    local1, n1 = _blocks(ctx, v, t1, B, rows)
    ends1 = ctx.op("Gather", local1, ctx.const(np.array(B - 1, np.int64)), axis=1)
    # level 2 over the block ends (coefficient q = a**B): columns 0..B-1 the exclusive
    # scan in each block (the carry into each level-1 block), column B the block's total
    t2, p2 = _powers(ctx, a, static_a, yd, 1, 1, rows)
    local2, n2 = _blocks(ctx, ends1, t2, B, rows)
    ends2 = ctx.op("Gather", local2, ctx.const(np.array(B, np.int64)), axis=1)
    local2 = ctx.op("Slice", local2, ctx.const(np.array([0], np.int64)),
                    ctx.const(np.array([B], np.int64)), ctx.const(np.array([1], np.int64)))
    top = ctx.op("Gather", p2, ctx.const(np.array(B, np.int64)))  # a**(B*B)
    shape = (None,) * (1 + rows)

    def carried(ctx) -> Array:
        # position r of a level-2 block gets q**r times the carry into the block
        carry2 = _scan(ctx, ends2, top, yd, exclusive=True, rows=rows)
        return Array(_add_carry(ctx, local2, carry2, _part(ctx, p2, 0, B), n2, 0, rows), yd,
                     shape)

    # One level-2 block (up to B*B values): no carry into it, no loop over carries.
    target = ctx.const(np.array([-1], np.int64))
    if rows:
        target = ctx.op("Concat", target, ctx.op("Shape", local2, start=2), axis=0)
    flat = ctx.op("Reshape", local2, target)
    alone = Array(ctx.op("Slice", flat, ctx.const(np.array([0], np.int64)), n2), yd, shape)
    more = ctx.op("Squeeze", ctx.op("Greater", ctx.op("Shape", ends2, start=0, end=1),
                                    ctx.const(np.array([1], np.int64))),
                  ctx.const(np.array([0], np.int64)))
    carry1 = only_if(ctx, Array(more, np.dtype(bool), ()), alone, carried, "carries").value
    # (as m1 rows for onnxruntime's symbolic shape inference, which cannot tell that the slice
    # has local1's rows: incomplete, it leaves files in the working directory)
    carry1 = ctx.op("Reshape", carry1, ctx.op("Shape", ends1))
    # position r of a level-1 block gets a**(r+1) times the carry into the block
    last = ctx.op("Sub", n1, ctx.const(np.array([1], np.int64)))  # (the trailing 0)
    return _add_carry(ctx, local1, carry1, _part(ctx, p1, 1, B + 1), last, 1, rows)


def _scan_body(ctx, values: ir.Value, coef: ir.Value, yd: np.dtype, exclusive: bool,
               rows: int) -> ir.Graph:
    """A Loop body: one step ``y = fl(fl(coef * prev) + values[i])`` (an element or a row);
    the scan output is ``prev`` (exclusive) or ``y``."""
    t = ir.TensorType(dtypes.to_ir(yd))
    shape = [None] * rows
    i = ir.Value(name=ctx.fresh_name("i"), type=ir.TensorType(ir.DataType.INT64),
                 shape=ir.Shape([]))
    cond = ir.Value(name=ctx.fresh_name("cond"), type=ir.TensorType(ir.DataType.BOOL),
                    shape=ir.Shape([]))
    prev = ir.Value(name=ctx.fresh_name("prev"), type=t, shape=ir.Shape(shape))
    with ctx.subgraph() as nodes:
        c = ctx.op("Gather", values, i, axis=0)
        nxt = ctx.op("Add", ctx.op("Mul", coef, prev), c)
        out = ctx.op("Identity", prev if exclusive else nxt)
        cond_out = ctx.op("Identity", cond)
    for v in (nxt, out):
        v.type, v.shape = t, ir.Shape(shape)
    cond_out.type, cond_out.shape = cond.type, ir.Shape([])
    return ir.Graph([i, cond, prev], [cond_out, nxt, out], nodes=nodes,
                    name=f"{ctx.function_name}_{ctx.fresh_name('linear_steps')}")


def _scan(ctx, values: ir.Value, coef: ir.Value, yd: np.dtype, exclusive: bool,
          rows: int, init: ir.Value | None = None) -> ir.Value:
    """The steps over ``values``' first axis as a ``Loop`` with a scan output (at least one
    iteration here): LoopToScanPass makes it a ``Scan`` for onnxruntime, after the gradient
    pass, which differentiates Loops."""
    if init is None and rows:  # zeros of a row's shape
        init = ctx.op("ConstantOfShape", ctx.op("Shape", values, start=1),
                      value=ir.tensor(np.zeros(1, yd)))
        init.type, init.shape = ir.TensorType(dtypes.to_ir(yd)), ir.Shape([None])
    elif init is None:
        init = ctx.const(np.array(0, yd))
    trips = ctx.op("Squeeze", ctx.op("Shape", values, start=0, end=1),
                   ctx.const(np.array([0], np.int64)))
    _, out = ctx.op("Loop", trips, ctx.const(np.array(True)), init,
                    body=_scan_body(ctx, values, coef, yd, exclusive, rows), outputs=2)
    return out


def _exact(ctx, y0: ir.Value, coef: ir.Value, c: ir.Value, yd: np.dtype,
           rows: int) -> Array:
    """The loop's own steps (run only for k > 0: y0 is then one element or row)."""
    init = ctx.op("Squeeze", y0, ctx.const(np.array([0], np.int64)))
    # (a known rank: LoopToScanPass converts only Loops whose states' ranks it sees)
    init.type, init.shape = ir.TensorType(dtypes.to_ir(yd)), ir.Shape([None] * rows)
    return Array(_scan(ctx, c, coef, yd, exclusive=False, rows=rows, init=init), yd,
                 (None,) * (1 + rows))


def _suspect(ctx, fast: ir.Value, a: Array | None, k: Array, yd: np.dtype) -> Array:
    """True where the fast values may not be the loop's within the bound: ``|a| > 1`` or NaN,
    a value not finite, zero (its sign) or so large that either form may overflow."""
    mag = ctx.op("Abs", fast)
    big = np.array(np.finfo(yd).max / 4, yd)
    ok = ctx.op("Less", ctx.op("ReduceSum", mag, keepdims=0), ctx.const(big))
    low = ctx.op("ReduceMin", mag, keepdims=0)  # (inf when empty: then k = 0 anyway)
    ok = ctx.op("And", ok, ctx.op("Greater", low, ctx.const(np.array(0, yd))))
    if a is not None:
        ok = ctx.op("And", ok, ctx.op("LessOrEqual", ctx.op("Abs", a.value),
                                      ctx.const(np.array(1, yd))))
    ran = ctx.op("Greater", k.value, ctx.const(np.array(0, np.int64)))
    return Array(ctx.op("And", ran, ctx.op("Not", ok)), np.dtype(bool), ())
