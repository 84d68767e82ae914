"""Vectorizing one loop-body expression: each iteration's scalar (or row) expression becomes the
whole-array expression over every iteration at once.

Input: an expression of a canonical loop body and the :class:`Space` of the loop nest (its
induction variables, their ranges, the names the body assigns). Output: a :class:`VExpr`, the
rewritten AST with its *layout*: the loop axes it varies along (leading, in nesting order) and
its per-iteration rank (trailing). Raises :class:`Bail` for anything not provably elementwise
over the iterations; the loop then stays a ``Loop``.

What is accepted (everything else bails):
* names: the induction variable (a weak int64 ``arange``, as the loop's Python int), temporaries
  the body defined earlier in the same iteration, and loop-invariant values (Arrays, numpy
  arrays, Python and numpy scalars);
* ``x[c0, c1, ...]`` on an invariant or written array with components ``v + off`` (``v`` an
  induction variable, coefficient 1, ``off`` an invariant int), invariant ints, or ``:``; the
  variables in nesting order, before every ``:``. The read becomes a basic slice; its bounds are
  checked at run time (:class:`Space.checks`) because a slice clamps where indexing raises;
* arithmetic, comparisons (chains become ``&``), ``and``/``or``/``not`` on comparisons,
  ``a if c else b`` on a comparison (``np.where``), numpy ufuncs, ``np.where``, ``abs``, and the
  two-argument builtins ``max``/``min`` (as ``np.where(b > a, b, a)``: Python keeps the first
  argument unless the second compares greater, NaN included).
"""

from __future__ import annotations

import ast
import builtins
import dataclasses
import itertools
from typing import Any

import numpy as np

from pyonnx.frontend.graph.values import Array

__all__ = ["Bail", "VExpr", "Space", "Vectorizer", "NP", "name", "call"]

NP = "_pyonnx_np"  # the numpy module, bound in the environment for the rewritten statements
_ids = itertools.count(1)


class Bail(Exception):
    """The loop is not one of the vectorized forms: it stays a ``Loop``."""


@dataclasses.dataclass(frozen=True)
class VExpr:
    node: ast.expr
    axes: tuple[str, ...]  # loop variables it varies along, in nesting order
    rank: int  # per-iteration rank
    # In a nest of two loops: already laid out along both loop axes (a length-1 axis where it
    # does not vary), as combined values and the outer index (a column) are; a read is compact.
    aligned: bool = True


def name(n: str) -> ast.Name:
    return ast.Name(id=n, ctx=ast.Load())


def call(fn: str, *args: ast.expr, **kw: ast.expr) -> ast.Call:
    return ast.Call(func=ast.Attribute(value=name(NP), attr=fn, ctx=ast.Load()), args=list(args),
                    keywords=[ast.keyword(arg=k, value=v) for k, v in kw.items()])


def fresh(what: str) -> str:
    return f"_pyonnx_v{what}_{next(_ids)}"


def _binop(a: ast.expr, op: ast.operator, b: ast.expr) -> ast.expr:
    return ast.BinOp(left=a, op=op, right=b)


def _dim(base: str, axis: int) -> ast.expr:
    """``base.shape[axis]``."""
    return ast.Subscript(value=ast.Attribute(value=name(base), attr="shape", ctx=ast.Load()),
                         slice=ast.Constant(axis), ctx=ast.Load())


@dataclasses.dataclass
class Var:
    """One induction variable: ``range(start, stop, step)`` with a static nonzero step.

    ``lo`` names the smallest index, ``k`` the trip count, ``S`` is ``abs(step)``; the indices
    in ascending order are ``lo, lo + S, ..., lo + (k-1)*S``."""
    name: str
    step: int
    start: str  # names bound by the header
    lo: str
    k: str
    index: str  # the name of the weak arange (bound only when used)
    used: bool = False
    bounds: tuple = ()  # the range's (start, stop) ASTs, for bounds proved without a check

    @property
    def S(self) -> int:
        return abs(self.step)


@dataclasses.dataclass
class Space:
    """The loop nest: its variables (outer first), the names its body assigns, and what the
    rewrite needs from the header: bounds checks of every slice and the ranges used."""
    vars: list[Var]
    assigned: frozenset[str]
    env: Any  # the lowering's Env
    ctx: Any  # the Lowering (its alias state)
    aliased: Any  # (value, name) -> whether another name, view or the caller sees its memory
    written: dict[str, tuple] = dataclasses.field(default_factory=dict)  # array → index key
    temps: dict[str, VExpr] = dataclasses.field(default_factory=dict)
    # (array name, axis, start expression, Var): start + (k-1)*S must lie in [0, len) if k > 0
    checks: list[tuple[str, int, ast.expr, Var]] = dataclasses.field(default_factory=list)
    # (array name, axis, index expression): a loop-invariant int index read on every
    # iteration, in [-len, len) if the loop runs at all
    int_checks: list[tuple[str, int, ast.expr]] = dataclasses.field(default_factory=list)

    def var(self, n: str) -> Var | None:
        return next((v for v in self.vars if v.name == n), None)

    def order(self) -> tuple[str, ...]:
        return tuple(v.name for v in self.vars)


def lookup(space: Space, n: str) -> Any:
    found, value, _ = space.env.lookup(n)
    if not found:
        raise Bail(n)
    return value


def rank_of(value: Any) -> int:
    if isinstance(value, Array):
        return value.ndim
    if isinstance(value, np.ndarray):
        return value.ndim
    if isinstance(value, (bool, int, float, np.generic)):
        return 0
    raise Bail("not an array or scalar")


def _is_int(value: Any) -> bool:
    if isinstance(value, bool):
        return False
    if isinstance(value, (int, np.integer)):
        return True
    return isinstance(value, Array) and value.ndim == 0 and value.dtype.kind in "iu"


class Vectorizer:
    """Rewrites expressions of one loop nest (see the module docstring)."""

    def __init__(self, space: Space):
        self.space = space

    # ------------------------------------------------------------------ layout
    def align(self, v: VExpr, axes: tuple[str, ...], rank: int) -> ast.expr:
        """``v`` laid out as ``axes`` + ``rank`` trailing dimensions (new axes of length 1)."""
        if v.rank > rank:
            raise Bail("rank")
        if not v.axes:
            if v.rank and len(self.space.vars) > 1:
                raise Bail("invariant array in a nest")
            return v.node
        if len(self.space.vars) > 1:
            if v.rank or rank:
                raise Bail("rows in a nest")
            if v.aligned:
                return v.node
            axes = self.space.order()
        idx: list[ast.expr] = []
        for a in axes:
            idx.append(ast.Slice() if a in v.axes else ast.Constant(None))
        idx += [ast.Constant(None)] * (rank - v.rank)
        while idx and isinstance(idx[0], ast.Constant):  # leading new axes broadcast anyway
            idx.pop(0)
        if all(isinstance(i, ast.Slice) for i in idx):
            return v.node
        return ast.Subscript(value=v.node, slice=ast.Tuple(elts=idx, ctx=ast.Load()),
                             ctx=ast.Load())

    def combine(self, parts: list[VExpr]) -> tuple[tuple[str, ...], int, list[ast.expr]]:
        axes = tuple(a for a in self.space.order() if any(a in p.axes for p in parts))
        rank = max((p.rank for p in parts), default=0)
        return axes, rank, [self.align(p, axes, rank) for p in parts]  # nests: see align

    # ------------------------------------------------------------- expressions
    def vec(self, e: ast.expr) -> VExpr:
        method = getattr(self, f"_{type(e).__name__}", None)
        if method is None:
            raise Bail(type(e).__name__)
        return method(e)

    def _Constant(self, e: ast.Constant) -> VExpr:
        if type(e.value) not in (int, float, bool):
            raise Bail("constant")
        return VExpr(e, (), 0)

    def _Name(self, e: ast.Name) -> VExpr:
        sp = self.space
        v = sp.var(e.id)
        if v is not None:
            v.used = True
            return VExpr(name(v.index), (v.name,), 0)
        if e.id in sp.temps:
            return sp.temps[e.id]
        if e.id in sp.assigned:
            raise Bail(f"{e.id} is carried from one iteration to the next")
        return VExpr(e, (), rank_of(lookup(sp, e.id)))

    def _Subscript(self, e: ast.Subscript) -> VExpr:
        # x[a][b] is x[a, b] when a holds no slice (``row[0]`` of ``for row in m``).
        while isinstance(e.value, ast.Subscript):
            inner = e.value.slice.elts if isinstance(e.value.slice, ast.Tuple) else \
                [e.value.slice]
            outer = e.slice.elts if isinstance(e.slice, ast.Tuple) else [e.slice]
            if any(isinstance(c, (ast.Slice, ast.Starred)) or
                   (isinstance(c, ast.Constant) and c.value in (None, Ellipsis)) for c in inner):
                raise Bail("subscript chain through a slice")
            e = ast.Subscript(value=e.value.value, slice=ast.Tuple(elts=inner + outer,
                                                                   ctx=ast.Load()),
                              ctx=ast.Load())
        if not isinstance(e.value, ast.Name):
            raise Bail("subscript base")
        sp = self.space
        base = e.value.id
        if base in sp.assigned:
            key = sp.written.get(base)
            if key is None or key != index_key(e.slice):
                raise Bail(f"{base} is read at another index than it is written")
        value = lookup(sp, base)
        if not isinstance(value, (Array, np.ndarray)) or value.ndim == 0:
            raise Bail("subscript of a non-array")
        node, axes, rank = self.index(base, value.ndim, e.slice, read=True)
        return VExpr(node, axes, rank, aligned=False)

    def index(self, base: str, ndim: int, sl: ast.expr, read: bool = False,
              ) -> tuple[ast.expr, tuple[str, ...], int]:
        """``base[sl]`` over every iteration: the slice expression, its axes and rank.

        A read's loop-invariant int index ``c`` (``boxes[i, 5]``) is taken as the one-wide
        slice at ``c % len`` and that axis reshaped away, a write's (``y[i, 5] = v``) as the
        index ``c % len``: numpy never evaluates them when the loop runs 0 times, so the
        vectorized statement must not fail then (an int index out of range on an empty block
        would); when the loop runs, ``int_checks`` makes the model fail where numpy raises
        IndexError (``c % len`` only stands in for an index out of range on a run that fails
        anyway). A write into an axis of length 0 still fails when the loop runs 0 times."""
        sp = self.space
        comps = list(sl.elts) if isinstance(sl, ast.Tuple) else [sl]
        if len(comps) > ndim:
            raise Bail("too many indices")
        out: list[ast.expr] = []
        axes: list[str] = []
        ints: list[int] = []  # axes of int reads taken as one-wide slices
        dropped = 0
        seen_colon = False
        for axis, c in enumerate(comps):
            if isinstance(c, ast.Slice):
                if c.lower or c.upper or c.step:
                    raise Bail("slice component")
                seen_colon = True
                out.append(ast.Slice())
                continue
            aff = self.affine(c)
            if aff is None:
                if not self.invariant_int(c):
                    raise Bail("index component")
                dropped += 1
                sp.int_checks.append((base, axis, c))
                at = _binop(c, ast.Mod(), _dim(base, axis))
                if read:
                    out.append(ast.Slice(lower=at, upper=_binop(at, ast.Add(),
                                                                ast.Constant(1))))
                    ints.append(axis)
                else:  # a write's target: in range whenever the axis is not empty
                    out.append(at)
                continue
            var, off = aff
            if seen_colon or var.name in axes or (axes and sp.order().index(axes[-1]) >
                                                   sp.order().index(var.name)):
                raise Bail("index order")
            axes.append(var.name)
            var_lo = _binop(name(var.lo), ast.Add(), off)
            sp.checks.append((base, axis, var_lo, var))
            # start + (k-1)*S + 1, but never below start: with k = 0 and S > 1 it would be,
            # and a negative stop counts from the end.
            span = name(var.k) if var.S == 1 else call("maximum", _binop(_binop(
                name(var.k), ast.Mult(), ast.Constant(var.S)), ast.Sub(),
                ast.Constant(var.S - 1)), ast.Constant(0))
            stop = _binop(var_lo, ast.Add(), span)
            out.append(ast.Slice(lower=var_lo, upper=stop,
                                 step=ast.Constant(var.S) if var.S != 1 else None))
        rank = ndim - len(axes) - dropped
        node = ast.Subscript(value=name(base), slice=ast.Tuple(elts=out, ctx=ast.Load())
                             if len(out) > 1 else out[0], ctx=ast.Load())
        if ints:
            # the block's own shape without the one-wide axes (no -1: the block may be empty)
            kept = [ast.Subscript(value=ast.Attribute(value=node, attr="shape", ctx=ast.Load()),
                                  slice=ast.Constant(d), ctx=ast.Load())
                    for d in range(ndim) if d not in ints]
            node = call("reshape", node, ast.Tuple(elts=kept, ctx=ast.Load()))
        return node, tuple(axes), rank

    def affine(self, c: ast.expr) -> tuple[Var, ast.expr] | None:
        """``(v, off)`` for ``v``, ``v + off``, ``off + v``, ``v - off`` (off invariant int)."""
        sp = self.space
        if isinstance(c, ast.Name) and sp.var(c.id):
            return sp.var(c.id), ast.Constant(0)
        if isinstance(c, ast.BinOp) and isinstance(c.op, (ast.Add, ast.Sub)):
            if isinstance(c.left, ast.Name) and sp.var(c.left.id) and self.invariant_int(c.right):
                off = c.right if isinstance(c.op, ast.Add) else ast.UnaryOp(op=ast.USub(),
                                                                            operand=c.right)
                return sp.var(c.left.id), off
            if isinstance(c.op, ast.Add) and isinstance(c.right, ast.Name) and \
                    sp.var(c.right.id) and self.invariant_int(c.left):
                return sp.var(c.right.id), c.left
        if any(isinstance(n, ast.Name) and sp.var(n.id) for n in ast.walk(c)):
            raise Bail("index not affine with coefficient 1")
        return None

    def invariant_int(self, c: ast.expr) -> bool:
        """An int expression the loop does not change (literals, int names, + - * //)."""
        if isinstance(c, ast.Constant):
            return type(c.value) is int
        if isinstance(c, ast.Name):
            return (c.id not in self.space.assigned and self.space.var(c.id) is None
                    and _is_int(lookup(self.space, c.id)))
        if isinstance(c, ast.UnaryOp) and isinstance(c.op, ast.USub):
            return self.invariant_int(c.operand)
        if isinstance(c, ast.BinOp) and isinstance(c.op, (ast.Add, ast.Sub, ast.Mult,
                                                          ast.FloorDiv)):
            return self.invariant_int(c.left) and self.invariant_int(c.right)
        return False

    def _BinOp(self, e: ast.BinOp) -> VExpr:
        if isinstance(e.op, ast.MatMult):
            raise Bail("@")
        axes, rank, (a, b) = self.combine([self.vec(e.left), self.vec(e.right)])
        return VExpr(_binop(a, e.op, b), axes, rank)

    def _UnaryOp(self, e: ast.UnaryOp) -> VExpr:
        if isinstance(e.op, ast.Not):
            if not boolean(e.operand):
                raise Bail("not")
            v = self.vec(e.operand)
            return VExpr(ast.UnaryOp(op=ast.Invert(), operand=v.node), v.axes, v.rank)
        v = self.vec(e.operand)
        return VExpr(ast.UnaryOp(op=e.op, operand=v.node), v.axes, v.rank)

    def _Compare(self, e: ast.Compare) -> VExpr:
        ops = (ast.Lt, ast.LtE, ast.Gt, ast.GtE, ast.Eq, ast.NotEq)
        if not all(isinstance(o, ops) for o in e.ops):
            raise Bail("comparison")
        values = [e.left] + e.comparators
        parts = [self.vec(v) for v in values]
        axes, rank, nodes = self.combine(parts)
        pairs = [ast.Compare(left=nodes[i], ops=[op], comparators=[nodes[i + 1]])
                 for i, op in enumerate(e.ops)]
        out = pairs[0]
        for p in pairs[1:]:
            out = _binop(out, ast.BitAnd(), p)
        return VExpr(out, axes, rank)

    def _BoolOp(self, e: ast.BoolOp) -> VExpr:
        if not all(boolean(v) for v in e.values):
            raise Bail("and/or on non-booleans")
        axes, rank, nodes = self.combine([self.vec(v) for v in e.values])
        op = ast.BitAnd() if isinstance(e.op, ast.And) else ast.BitOr()
        out = nodes[0]
        for n in nodes[1:]:
            out = _binop(out, op, n)
        return VExpr(out, axes, rank)

    def _IfExp(self, e: ast.IfExp) -> VExpr:
        if not boolean(e.test):
            raise Bail("if-expression test")
        axes, rank, nodes = self.combine([self.vec(e.test), self.vec(e.body), self.vec(e.orelse)])
        return VExpr(call("where", *nodes), axes, rank)

    def _Call(self, e: ast.Call) -> VExpr:
        if e.keywords or any(isinstance(a, ast.Starred) for a in e.args):
            raise Bail("call arguments")
        fn = self.callee(e.func)
        parts = [self.vec(a) for a in e.args]
        axes, rank, nodes = self.combine(parts)
        if fn is builtins.abs and len(nodes) == 1:
            return VExpr(call("abs", *nodes), axes, rank)
        if fn in (builtins.max, builtins.min) and len(nodes) == 2:
            a, b = nodes
            op = ast.Gt() if fn is builtins.max else ast.Lt()
            return VExpr(call("where", ast.Compare(left=b, ops=[op], comparators=[a]), b, a),
                         axes, rank)
        if isinstance(fn, np.ufunc) and fn.nin == len(nodes) and fn.nout == 1:
            return VExpr(call(fn.__name__, *nodes), axes, rank)
        if fn is np.where and len(nodes) == 3 or fn is np.clip and len(nodes) == 3:
            return VExpr(call(fn.__name__, *nodes), axes, rank)
        raise Bail("call")

    def callee(self, f: ast.expr) -> Any:
        if isinstance(f, ast.Name) and f.id not in self.space.assigned:
            return lookup(self.space, f.id)
        if isinstance(f, ast.Attribute) and isinstance(f.value, ast.Name) and \
                f.value.id not in self.space.assigned and lookup(self.space, f.value.id) is np:
            return getattr(np, f.attr, None)
        raise Bail("callee")


def boolean(e: ast.expr) -> bool:
    """Whether ``e`` is syntactically a truth value (a comparison or a logic of them)."""
    if isinstance(e, ast.Compare):
        return True
    if isinstance(e, ast.BoolOp):
        return all(boolean(v) for v in e.values)
    if isinstance(e, ast.UnaryOp) and isinstance(e.op, ast.Not):
        return boolean(e.operand)
    return isinstance(e, ast.Constant) and type(e.value) is bool


def index_key(sl: ast.expr) -> str:
    """Two indices with the same key address the same element in every iteration."""
    return ast.dump(sl, annotate_fields=False)
