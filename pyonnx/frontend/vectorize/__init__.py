"""Loop vectorization: a ``for`` loop over ``range`` whose iterations a dependence analysis
proves independent (or a reduction, a prefix recurrence, a first-index search) is lowered as the
equivalent whole-array numpy code instead of an ONNX ``Loop``.

Input: a canonical ``For`` statement (liveness-annotated) about to be lowered, and the
FunctionLowering (its environment gives every name's value: rank, dtype, aliasing). Output:
True when the loop was lowered as whole-array steps, False (nothing user-visible bound) when
it must stay a ``Loop``; the caller then lowers it as before.

Forms (the dependence rules are in :mod:`.forms`, expressions in :mod:`.exprs`):
* maps and stencils, one loop or a perfect nest of two (``y[i] = f(x[i-1], x[i+1], i)``,
  ``out[i, :] = g(a[i])``, ``u[i, j] = ...``), ``if``/``else`` on comparisons as masks;
* reductions, counts, flags and arg-extrema (:mod:`.forms`, :mod:`.emit`; a running
  ``m = max(m, x[i])`` in few nodes: :mod:`.extremes`);
* prefix recurrences ``y[i] = y[i-1] + e`` / ``* e``, ascending or descending
  (:mod:`.recurrences`);
* first-index searches ``if cond: hit = i; break`` (:mod:`.recurrences`);
* linear recurrences ``y[i] = a * y[i-1] + c(i)`` on floats, ``a`` loop-invariant (EWMA), as a
  blocked scan with an exact step-by-step fallback at run time (:mod:`.linear`).

Never vectorized: writes at an index that misses a loop variable or reads of a written array at
another index (a cross-iteration dependence), writes into arrays that share memory with a read
array, accumulators read elsewhere in the body, temporaries or the inner loop variable live
after the loop, anything not in the forms above. Every slice the rewrite reads or writes is
checked at run time to lie inside its array (a slice clamps where ``x[i]`` raises or wraps), so
an out-of-range index fails at run time, never silently; ``x[i + off]`` over
``range(a, len(x) - d)`` with literal ``a``, ``off``, ``d`` is proved in range instead. A
negative start known at conversion time (``x[i - 1]`` from ``i = 0``: Python wraps) keeps the
``Loop``. The check covers every iteration of the range, also those a ``break`` or a false
``if`` would skip: such a loop reading out of range there fails at run time where Python
would not (the one case where vectorizing refuses a loop the ``Loop`` runs). A zero-trip loop
keeps every initial value; the loop variable gets Python's value after the loop.

Writes: into a 1-d array no other name, view or caller sees, ``y[s:e] = v`` is lowered as
``y = concatenate(y[:s], v, y[e:])`` (cheaper than an item write); otherwise as the item write.

``PYONNX_VECTORIZE=0`` in the environment (read at each conversion) keeps every loop a ``Loop``:
for comparing both lowerings, and for the tests of the ``Loop`` lowering itself;
``PYONNX_VECTORIZE=debug`` prints why each loop that stays a ``Loop`` was not vectorized.
"""

from __future__ import annotations

import ast
import builtins
import copy
import os

import numpy as np

from pyonnx.frontend.analysis import assigned, uses
from pyonnx.frontend.graph.checks import runtime_check
from pyonnx.frontend.graph.values import Array
from pyonnx.frontend.graph import path_weak
from pyonnx.frontend.vectorize import emit, forms, kinds, linear, recurrences
from pyonnx.frontend.vectorize.exprs import NP, Bail, Space, Var, fresh

__all__ = ["vectorize_loop"]

_I64 = np.dtype(np.int64)


def _range_args(lw, node: ast.For) -> tuple[list[ast.expr], int] | None:
    it = node.iter
    if not (isinstance(it, ast.Call) and isinstance(it.func, ast.Name) and not it.keywords
            and 1 <= len(it.args) <= 3 and isinstance(node.target, ast.Name) and not node.orelse):
        return None
    found, fn, _ = lw.env.lookup(it.func.id)
    if not found or fn is not builtins.range:
        return None
    args = list(it.args)
    step = 1
    if len(args) == 3:
        s = args[2]
        if isinstance(s, ast.UnaryOp) and isinstance(s.op, ast.USub) and \
                isinstance(s.operand, ast.Constant):
            step = -s.operand.value
        elif isinstance(s, ast.Constant):
            step = s.value
        else:
            return None
        if type(step) is not int or step == 0:
            return None
    if len(args) == 1:
        args = [ast.Constant(0)] + args
    if not all(_pure(lw, a) for a in args):
        return None  # the bounds are evaluated here and again if the loop stays a Loop
    return args[:2], step


_PURE_CALLS = (builtins.len, builtins.min, builtins.max, builtins.int, builtins.abs)


def _pure(lw, e: ast.expr) -> bool:
    """Bounds evaluated twice when vectorization gives up must not have side effects: names,
    constants, arithmetic, ``.shape``/``.size``/``.ndim``, subscripts and a few builtins."""
    for n in ast.walk(e):
        if isinstance(n, ast.Call):
            if not (isinstance(n.func, ast.Name) and
                    any(lw.env.lookup(n.func.id)[1] is f for f in _PURE_CALLS)):
                return False
        elif not isinstance(n, (ast.Name, ast.Constant, ast.BinOp, ast.UnaryOp, ast.Attribute,
                                ast.Subscript, ast.Tuple, ast.Slice, ast.operator,
                                ast.unaryop, ast.expr_context, ast.keyword)):
            return False
    return True


def _as_range(lw, node: ast.For) -> ast.For:
    """``for v in x`` (``x`` an array) and ``for i, v in enumerate(x)`` as the equivalent
    ``for i in range(len(x))`` with ``x[i]`` for ``v``; any other loop unchanged. ``x`` may not
    be assigned in the body, nor ``v`` assigned or live after the loop (its last row)."""
    it, target = node.iter, node.target
    index = None
    if isinstance(it, ast.Call) and isinstance(it.func, ast.Name) and len(it.args) == 1 \
            and not it.keywords and isinstance(target, ast.Tuple) and len(target.elts) == 2 \
            and all(isinstance(t, ast.Name) for t in target.elts) \
            and lw.env.lookup(it.func.id)[1] is builtins.enumerate:
        it, (index, target) = it.args[0], target.elts
    if not (isinstance(it, ast.Name) and isinstance(target, ast.Name)) or node.orelse:
        return node
    found, x, _ = lw.env.lookup(it.id)
    body_names = assigned(node.body)
    if not found or not isinstance(x, (Array, np.ndarray)) or x.ndim == 0 or \
            {it.id, target.id} & body_names or target.id in node.pyonnx_live_out or \
            (index is not None and index.id == target.id):
        return node
    i = index.id if index is not None else fresh("it")
    lw.env.bind(_RANGE, builtins.range)
    lw.env.bind(_LEN, builtins.len)
    body = [_substitute(copy.deepcopy(s), target.id, it.id, i) for s in node.body]
    loop = ast.For(target=ast.Name(id=i, ctx=ast.Store()), iter=ast.Call(
        func=ast.Name(id=_RANGE, ctx=ast.Load()), args=[ast.Call(
            func=ast.Name(id=_LEN, ctx=ast.Load()), args=[ast.Name(id=it.id, ctx=ast.Load())],
            keywords=[])], keywords=[]), body=body, orelse=[])
    ast.copy_location(loop, node)
    loop.pyonnx_live_out = node.pyonnx_live_out  # type: ignore[attr-defined]
    extra = getattr(node, "pyonnx_extra_test", None)
    if extra is not None:
        loop.pyonnx_extra_test = _substitute(copy.deepcopy(extra), target.id, it.id, i)  # type: ignore[attr-defined]
    return loop


_RANGE, _LEN = "_pyonnx_range", "_pyonnx_len"


def _substitute(tree: ast.AST, v: str, x: str, i: str) -> ast.AST:
    class Sub(ast.NodeTransformer):
        def visit_Name(self, n: ast.Name) -> ast.expr:
            if n.id == v and isinstance(n.ctx, ast.Load):
                return ast.copy_location(ast.Subscript(
                    value=ast.Name(id=x, ctx=ast.Load()), slice=ast.Name(id=i, ctx=ast.Load()),
                    ctx=ast.Load()), n)
            return n
    return Sub().visit(tree)


def _nest(lw, node: ast.For) -> list[tuple[ast.For, list[ast.expr], int]] | None:
    node = _as_range(lw, node)
    outer = _range_args(lw, node)
    if outer is None:
        return None
    nest = [(node, *outer)]
    body = node.body
    if len(body) == 1 and isinstance(body[0], ast.For) and \
            getattr(body[0], "pyonnx_extra_test", None) is None:
        inner_loop = _as_range(lw, body[0])  # a new node when converted: the tree is shared
        inner = _range_args(lw, inner_loop)
        if inner is None:
            return None
        if uses(ast.Tuple(elts=inner[0], ctx=ast.Load())) & (assigned(node.body) |
                                                             {node.target.id}):
            return None
        nest.append((inner_loop, *inner))
    return nest


def _header(lw, loop: ast.For, args: list[ast.expr], step: int) -> Var:
    """Binds start, trip count and lowest index of one range; refuses non-int bounds."""
    v = Var(loop.target.id, step, fresh("start"), fresh("lo"), fresh("k"), fresh("i"),
            bounds=tuple(args))
    for n, a in zip((v.start, v.start + "_stop"), args):
        lw.block([emit.assign(n, a)])
        value = lw.env.lookup(n)[1]
        if not (type(value) is int or isinstance(value, np.integer) or (
                isinstance(value, Array) and value.ndim == 0 and value.dtype.kind in "iu")):
            raise Bail("range bound is not an int")
    S = abs(step)
    span = "stop - start" if step > 0 else "start - stop"
    stmts = [emit.assign(v.k, emit.expr(f"np.maximum(({span} + {S - 1}) // {S}, 0)",
                                        np=NP, start=v.start, stop=v.start + "_stop"))]
    lo = "start" if step > 0 else f"start - (k - 1) * {S}"
    stmts.append(emit.assign(v.lo, emit.expr(lo, start=v.start, k=v.k)))
    emit.lower_stmts(lw, loop, stmts)
    k = lw.env.lookup(v.k)[1]
    if not isinstance(k, Array) and int(k) == 0:
        # no iteration, known now: the Loop lowering leaves every name as it was (a sum()'s
        # start value stays the Python 0 it is, where a vectorized sum is 0.0)
        raise Bail("0 trips known at conversion time")
    return v


def _checks(lw, node: ast.For, space: Space) -> None:
    """Every slice start..start+(k-1)*S inside its array, or a run-time failure (one check for
    all slices: the first variable's ``lo``, which every vectorized statement uses, carries
    it)."""
    ctx = lw.ctx
    bad_values = []

    def add(bad: ast.expr) -> None:
        """Keeps a failure condition known only at run time; a known one bails or drops."""
        value = emit.bind(lw, node, bad, "bad")[1]
        if isinstance(value, (bool, np.bool_)):
            if value:
                raise Bail("index out of range at conversion time")
            return
        bad_values.append(value)

    for base, axis, start, var in space.checks:
        if _proved(lw, base, axis, start, var):
            continue
        # A negative start known now: Python wraps x[-1] where a slice would not; the Loop does.
        low = emit.bind(lw, node, emit.expr("s < 0", s=start), "low")[1]
        if isinstance(low, (bool, np.bool_)) and low:
            raise Bail("negative index")
        add(emit.expr(f"(k > 0) & ((s < 0) | (s + (k - 1) * {var.S} >= x.shape[{axis}]))",
                      k=var.k, s=start, x=base))
    runs = " & ".join(f"({v.k} > 0)" for v in space.vars)
    for base, axis, c in space.int_checks:
        # numpy reads base[..., c, ...] on every iteration: IndexError if the loop runs at all
        add(emit.expr(f"{runs} & ((c >= x.shape[{axis}]) | (c < -x.shape[{axis}]))",
                      c=c, x=base))
    if not bad_values:
        return
    bad = bad_values[0]
    for b in bad_values[1:]:
        bad = Array(ctx.op("Or", bad, b), np.dtype(bool), ())
    var = space.vars[0]
    lo = lw.env.lookup(var.lo)[1]
    if not isinstance(lo, Array):
        lo = Array(ctx.const(np.asarray(lo, _I64)), _I64, (), weak=True)
    lo = runtime_check(ctx, bad, lo, "vectorized_loop_index_out_of_range",
                       "IndexError: an index the loop reads or writes is out of bounds for its "
                       "array (on the iteration that uses it)")
    lw.env.bind(var.lo, Array(lo.value, _I64, (), weak=True))


def _static_int(e: ast.expr) -> int | None:
    if isinstance(e, ast.Constant) and type(e.value) is int:
        return e.value
    if isinstance(e, ast.UnaryOp) and isinstance(e.op, ast.USub):
        v = _static_int(e.operand)
        return None if v is None else -v
    return None


def _proved(lw, base: str, axis: int, start: ast.expr, var: Var) -> bool:
    """``x[i + off]`` for ``i in range(a, len(x) - d)`` (or ``x.shape[axis] - d``) with ``a``,
    ``off``, ``d`` literal, ``a + off >= 0`` and ``off <= d``: in range without a check."""
    if var.step < 0 or not (isinstance(start, ast.BinOp) and isinstance(start.op, ast.Add)
                            and isinstance(start.left, ast.Name) and start.left.id == var.lo):
        return False
    off, first = _static_int(start.right), _static_int(var.bounds[0])
    stop, d = var.bounds[1], 0
    if isinstance(stop, ast.BinOp) and isinstance(stop.op, ast.Sub):
        stop, d = stop.left, _static_int(stop.right)
    if off is None or first is None or d is None or first + off < 0 or off > d:
        return False
    if isinstance(stop, ast.Call) and isinstance(stop.func, ast.Name) and axis == 0 and \
            len(stop.args) == 1 and isinstance(stop.args[0], ast.Name) and \
            stop.args[0].id == base and lw.env.lookup(stop.func.id)[1] is builtins.len:
        return True
    return (isinstance(stop, ast.Subscript) and isinstance(stop.value, ast.Attribute)
            and stop.value.attr == "shape" and isinstance(stop.value.value, ast.Name)
            and stop.value.value.id == base and _static_int(stop.slice) == axis)


def _indices(lw, node: ast.For, space: Space) -> None:
    """The used induction variables as weak int64 aranges (the loop's Python ints)."""
    nested = len(space.vars) > 1
    for pos, var in enumerate(space.vars):
        if not var.used:
            continue
        n, value = emit.bind(lw, node, emit.expr(f"np.arange(lo, lo + k * {var.S}, {var.S})",
                                                 np=NP, lo=var.lo, k=var.k), "idx")
        if not isinstance(value, Array):  # a static range: the arange is a conversion-time array
            value = lw.ctx.asarray(value)
        if nested and pos == 0:  # the outer variable: a column (see exprs.VExpr.aligned)
            lw.env.bind(n, Array(value.value, _I64, value.shape))  # strong: subscriptable
            n, value = emit.bind(lw, node, emit.expr("a[:, None]", a=n), "idx")
        lw.env.bind(var.index, Array(value.value, _I64, value.shape, weak=True))


def _final_index(lw, node: ast.For, space: Space) -> None:
    """The loop variable after the loop, as Python leaves it (unchanged after zero trips)."""
    var = space.vars[0]
    if var.name not in node.pyonnx_live_out:
        return
    before = path_weak.python_kind(lw.env.lookup(var.name)[1])
    last = emit.expr(f"np.where(k > 0, start + (k - 1) * {var.step}, i)[()]", np=NP, k=var.k,
                     start=var.start, i=var.name)
    emit.lower_stmts(lw, node, [emit.assign(var.name, last)])
    # a Python int after any iteration (range's), the value it had before after none
    ran = emit.bind(lw, node, emit.expr("k > 0", k=var.k), "ran")[1]
    kinds.settle(lw, node, var.name, before, "i", ran)


def vectorize_loop(lw, node: ast.For, aliased) -> bool:
    """Lowers ``node`` as whole-array code when it is one of the vectorized forms.

    ``aliased(value, name)`` tells whether an array's memory is seen by another name, a view
    or the caller (the lowering's alias analysis): only such arrays need an item write."""
    if os.environ.get("PYONNX_VECTORIZE", "1") == "0":
        return False
    nest = _nest(lw, node)
    if nest is None:
        return False
    node = nest[0][0]  # the loop as a range loop (for v in x: a new node, same location)
    extra = getattr(node, "pyonnx_extra_test", None)
    if extra is not None and len(nest) > 1:
        return False
    inner = nest[-1][0]
    live_out = node.pyonnx_live_out
    names = [loop.target.id for loop, _, _ in nest]
    if any(n in live_out for n in names[1:]) or (names[0] in live_out and
                                                 not lw.env.lookup(names[0])[0]):
        return False
    lw.env.bind(NP, np)
    try:
        vars_ = [_header(lw, loop, args, step) for loop, args, step in nest]
        space = Space(vars_, assigned(inner.body), lw.env, lw.ctx, aliased)
        if set(names) & space.assigned:
            raise Bail("loop variable assigned in the body")
        if extra is not None:
            run = recurrences.plan_search(lw, node, extra, space, live_out)
        else:
            run = recurrences.plan_prefix(lw, node, space)
            if run is None:
                run = linear.plan_linear(lw, node, space)
            if run is None:
                steps = forms.plan_body(inner.body, space, live_out)
                run = lambda: emit.run_steps(lw, node, space, steps)  # noqa: E731
        _checks(lw, node, space)
    except Bail as e:
        if os.environ.get("PYONNX_VECTORIZE") == "debug":
            print(f"vectorize: line {node.lineno}: kept as a Loop: {e}")
        return False
    _indices(lw, node, space)
    run()
    _final_index(lw, node, space)
    return True
