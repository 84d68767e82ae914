"""Facts of int and bool values for :mod:`pyonnx.passes.fold_rules.ranges` (see its docstring):
dtype, static shape, an interval holding for every run, a linear form ``base + off``, and which
dims of which array a value's dims are.

Input: values of an ``ir.Model`` being folded. Output: :class:`Fact` per value, derived from
producers on demand and remembered for one run of the folding pass.
"""

from __future__ import annotations

from typing import Any

import numpy as np
import onnx_ir as ir

from pyonnx.passes.fold_rules.common import _attr, _ints, const_of

__all__ = ["Fact", "Facts", "COMPARE", "LOGIC", "DIM_MAX", "ONNX"]

DIM_MAX = 1 << 62
_I64 = (int(np.iinfo(np.int64).min), int(np.iinfo(np.int64).max))
_BOOL = np.dtype(np.bool_)
_INT64 = np.dtype(np.int64)
COMPARE = {"Less": np.less, "LessOrEqual": np.less_equal, "Greater": np.greater,
            "GreaterOrEqual": np.greater_equal, "Equal": np.equal}
LOGIC = {"And": np.logical_and, "Or": np.logical_or, "Xor": np.logical_xor}
ONNX = ("", "ai.onnx")


class Fact:
    """What is known of one int or bool value (see the module docstring)."""

    __slots__ = ("dtype", "shape", "lo", "hi", "base", "off", "shape_of")

    def __init__(self, dtype: np.dtype | None, shape: tuple | None, lo: int | None = None,
                 hi: int | None = None, base: Any = None, off: int = 0,
                 shape_of: tuple | None = None):
        self.dtype, self.shape, self.lo, self.hi = dtype, shape, lo, hi
        self.base, self.off, self.shape_of = base, off, shape_of

    @property
    def point(self) -> int | None:
        return self.lo if self.lo is not None and self.lo == self.hi else None

    @property
    def static(self) -> bool:
        return self.shape is not None and all(isinstance(d, int) for d in self.shape)


_UNKNOWN = Fact(None, None)


def _interval(lo: int, hi: int) -> tuple[int | None, int | None]:
    """``(lo, hi)``, or no interval when it leaves int64 (the run time would wrap)."""
    return (lo, hi) if _I64[0] <= lo and hi <= _I64[1] else (None, None)


def _broadcast(*shapes: tuple | None) -> tuple | None:
    if any(s is None for s in shapes):
        return None
    rank = max(len(s) for s in shapes)
    out = []
    for k in range(rank):
        dims = {s[k - rank + len(s)] for s in shapes if k - rank + len(s) >= 0} - {1}
        if len(dims) > 1:
            return None
        out.append(dims.pop() if dims else 1)
    return tuple(out)


class Facts:
    """Facts of values, computed from their producers on demand and remembered (one run of
    the folding pass: a replaced value computes what the value it replaced did)."""

    def __init__(self):
        self._memo: dict[ir.Value, Fact] = {}

    def of(self, value: ir.Value | None) -> Fact:
        if value is None:
            return _UNKNOWN
        fact = self._memo.get(value)
        if fact is None:
            self._memo[value] = _UNKNOWN  # (cycles cannot happen in a graph; be safe anyway)
            fact = self._derive(value)
            if fact.base is None and fact.point is None and fact.dtype is not None and \
                    fact.dtype.kind in "iu" and fact.static and int(np.prod(fact.shape)) == 1:
                fact.base = ("value", value)  # its own base: (v + 1) - v == 1
            self._memo[value] = fact
        return fact

    def dim(self, value: ir.Value, k: int) -> Any:
        """A key naming dimension ``k`` of ``value``, equal for dimensions known to be equal."""
        for _ in range(32):
            node = value.producer()
            if node is None or node.domain not in ONNX:
                break
            op = node.op_type
            if (op == "ConstantOfShape" or op == "Reshape" and _attr(node, "allowzero", 0))\
                    and node.inputs and node.inputs[-1] is not None:
                # Filled or reshaped to Shape(x): x's dims (a Reshape without allowzero
                # copies the input's dim where the shape holds a 0).
                of = self.of(node.inputs[-1]).shape_of
                if of is None or of[1] != 0 or of[2] is not None:
                    break
                value = of[0]
            elif op in ("Identity", "Cast", "Neg", "Abs", "ScatterND", "ScatterElements") \
                    and node.inputs and node.inputs[0] is not None:
                value = node.inputs[0]
            elif op == "Transpose" and node.inputs:
                perm = _attr(node, "perm")
                if perm is None or not 0 <= k < len(perm):
                    break
                value, k = node.inputs[0], perm[k]
            else:
                break
        return ("dim", value, k)

    # ------------------------------------------------------------------ derivation
    def _derive(self, value: ir.Value) -> Fact:
        arr = const_of(value)
        if arr is not None:
            return _const_fact(arr)
        node = value.producer()
        shape = _declared(value)
        dtype = value.dtype.numpy() if value.dtype is not None else None
        if node is None or node.domain not in ONNX or len(node.outputs) != 1:
            return Fact(dtype, shape, *((0, 1) if dtype == _BOOL else (None, None)))
        fact = self._by_op(node)
        if fact.shape is None and shape is not None:
            fact.shape = shape
        if fact.dtype is None:
            fact.dtype = dtype
        return fact

    def _by_op(self, node: ir.Node) -> Fact:
        op, ins = node.op_type, node.inputs
        f = [self.of(v) for v in ins]
        if op in ("Shape", "Size"):
            return self._shape(node, op)
        if op in ("Squeeze", "Unsqueeze", "Reshape", "Identity"):
            return self._move(node, f)
        if op == "Gather" and len(ins) == 2:
            return self._gather(node, f)
        if op in ("Add", "Sub") and len(f) == 2:
            return self._add(op, f[0], f[1])
        if op in ("Max", "Min") and len(f) == 2 and f[0].dtype is not None:
            lo = [f[0].lo, f[1].lo]
            hi = [f[0].hi, f[1].hi]
            pick = max if op == "Max" else min
            both = None not in lo and None not in hi
            return Fact(f[0].dtype, _broadcast(f[0].shape, f[1].shape),
                        pick(lo) if both else None, pick(hi) if both else None)
        if op == "Where" and len(f) == 3:
            return self._where(ins, f)
        if op in COMPARE and len(f) == 2:
            decided = self.compare(op, ins[0], ins[1])
            shape = _broadcast(f[0].shape, f[1].shape)
            return Fact(_BOOL, shape, *((decided, decided) if decided is not None else (0, 1)))
        if op in LOGIC and len(f) == 2:
            shape = _broadcast(f[0].shape, f[1].shape)
            a, b = f[0].point, f[1].point
            out = None
            if a is not None and b is not None:
                out = int(LOGIC[op](a, b))
            elif op == "And" and 0 in (a, b):
                out = 0
            elif op == "Or" and 1 in (a, b):
                out = 1
            return Fact(_BOOL, shape, *((out, out) if out is not None else (0, 1)))
        if op == "Not" and f:
            p = f[0].point
            return Fact(_BOOL, f[0].shape, *((1 - p, 1 - p) if p is not None else (0, 1)))
        if op == "Cast" and f:
            to = _attr(node, "to")
            dtype = ir.DataType(to).numpy() if to is not None else None
            if dtype is None or dtype.kind not in "biu" or f[0].dtype is None \
                    or f[0].dtype.kind not in "biu" or f[0].lo is None:
                return Fact(dtype, f[0].shape)
            info = np.iinfo(dtype) if dtype.kind != "b" else None
            if dtype == _BOOL:
                lo, hi = (0, 1) if f[0].point is None else (int(f[0].point != 0),) * 2
            elif info.min <= f[0].lo and f[0].hi <= info.max:
                lo, hi = f[0].lo, f[0].hi
            else:
                lo = hi = None
            return Fact(dtype, f[0].shape, lo, hi)
        if op == "ReduceSum" and f and f[0].shape == () and len(ins) == 1:
            # A 0-d input: the sum of its one element (keepdims or not, the shape stays ()).
            return Fact(f[0].dtype, (), f[0].lo, f[0].hi, f[0].base, f[0].off)
        return Fact(f[0].dtype if f and op in ("Slice", "Concat", "Expand") else None, None)

    def _shape(self, node: ir.Node, op: str) -> Fact:
        x = node.inputs[0]
        if op == "Size":
            return Fact(_INT64, (), 0, DIM_MAX)
        rank = self.rank(x)
        start, end = _attr(node, "start", 0), _attr(node, "end")
        if rank is None:
            length = None
            if start == 0 and end is None:
                return Fact(_INT64, (None,), 0, DIM_MAX, shape_of=(x, 0, None))
        else:
            lo, hi, _ = slice(start, end).indices(rank)
            start, length = lo, max(0, hi - lo)
        fact = Fact(_INT64, (length,), 0, DIM_MAX, shape_of=(x, start, end))
        if length == 1:
            fact.base = self.dim(x, start)
        return fact

    def rank(self, x: ir.Value) -> int | None:
        for _ in range(32):
            declared = _declared(x)
            if declared is not None:
                return len(declared)
            node = x.producer()
            if node is None or node.domain not in ONNX or not node.inputs:
                break
            op = node.op_type
            if op == "ConstantOfShape":
                s = self.of(node.inputs[0]).shape
                return s[0] if s is not None and len(s) == 1 and isinstance(s[0], int) \
                    else None
            if op == "Transpose":
                perm = _attr(node, "perm")
                return len(perm) if perm is not None else None
            if op in ("Identity", "Cast", "Neg", "Abs", "ScatterND", "ScatterElements") and \
                    node.inputs[0] is not None:
                x = node.inputs[0]
                continue
            break
        fact = self.of(x)
        return len(fact.shape) if fact.shape is not None else None

    def _move(self, node: ir.Node, f: list[Fact]) -> Fact:
        """Squeeze/Unsqueeze/Reshape/Identity: values unchanged, the shape per op."""
        x = f[0]
        shape = None
        if node.op_type == "Identity":
            shape = x.shape
        elif node.op_type == "Squeeze" and len(f) == 1 and x.static:
            shape = tuple(d for d in x.shape if d != 1)
        elif x.static and len(f) > 1:
            target = const_of(node.inputs[1])
            size = int(np.prod(x.shape))
            if node.op_type == "Reshape" and target is not None and size == 1 and \
                    all(d in (1, -1) for d in target.reshape(-1).tolist()):
                shape = (1,) * target.size
            elif node.op_type == "Squeeze" and size == 1:
                axes = _ints(target)
                if axes is not None and len(axes) == len(x.shape):
                    shape = ()
            elif node.op_type == "Unsqueeze" and x.shape == ():
                axes = _ints(target)
                if axes is not None:
                    shape = (1,) * len(axes)
        single = shape is not None and all(d == 1 for d in shape)
        return Fact(x.dtype, shape, x.lo, x.hi, x.base if single else None, x.off)

    def _gather(self, node: ir.Node, f: list[Fact]) -> Fact:
        data, idx = node.inputs
        k = const_of(idx)
        arr = const_of(data)
        if arr is not None and arr.dtype.kind in "iu" and arr.size and arr.size <= 4096:
            shape = f[1].shape if arr.ndim == 1 and _attr(node, "axis", 0) in (0, -1) else None
            return Fact(arr.dtype, shape, int(arr.min()), int(arr.max()))
        of = f[0].shape_of
        if of is not None and k is not None and k.size == 1 and of[1] == 0 and \
                of[2] is None and _attr(node, "axis", 0) == 0 and int(k.reshape(())) >= 0:
            fact = Fact(_INT64, tuple(k.shape), 0, DIM_MAX)
            fact.base = self.dim(of[0], int(k.reshape(())))
            return fact
        return Fact(f[0].dtype, None, f[0].lo, f[0].hi)

    def _add(self, op: str, a: Fact, b: Fact) -> Fact:
        sign = 1 if op == "Add" else -1
        shape = _broadcast(a.shape, b.shape)
        dtype = a.dtype or b.dtype
        if dtype is None or dtype.kind not in "iu":
            return Fact(dtype, shape)
        lo = hi = None
        if None not in (a.lo, a.hi, b.lo, b.hi):
            lo, hi = _interval(a.lo + (b.lo if sign > 0 else -b.hi),
                               a.hi + (b.hi if sign > 0 else -b.lo))
            if dtype != _INT64:
                info = np.iinfo(dtype)
                lo, hi = (lo, hi) if lo is not None and info.min <= lo and hi <= info.max \
                    else (None, None)
        base, off = None, 0
        if a.base is not None and b.point is not None:
            base, off = a.base, a.off + sign * b.point
        elif b.base is not None and a.point is not None and sign > 0:
            base, off = b.base, b.off + a.point
        elif sign < 0 and a.base is not None and a.base == b.base and dtype == _INT64:
            lo = hi = a.off - b.off  # exact even if base + off wraps (modular arithmetic)
        return Fact(dtype, shape, lo, hi, base, off)

    def _where(self, ins, f: list[Fact]) -> Fact:
        c, x, y = f
        shape = _broadcast(c.shape, x.shape, y.shape)
        taken = self.where_taken(ins)
        if taken is not None:
            t = f[taken]
            return Fact(t.dtype, shape, t.lo, t.hi, t.base, t.off)
        lo = hi = None
        if None not in (x.lo, x.hi, y.lo, y.hi):
            lo, hi = min(x.lo, y.lo), max(x.hi, y.hi)
        return Fact(x.dtype or y.dtype, shape, lo, hi)

    # ------------------------------------------------------------------ decisions
    def compare(self, op: str, a: ir.Value, b: ir.Value) -> int | None:
        """1/0 when ``a op b`` holds/fails for every element of every run, else None."""
        fa, fb = self.of(a), self.of(b)
        if fa.dtype is None or fa.dtype.kind not in "iu" or fa.dtype != fb.dtype:
            return None
        if None in (fa.lo, fa.hi, fb.lo, fb.hi):
            return None
        if fa.base is not None and fa.base == fb.base:
            d = fa.off - fb.off  # both bounded: neither wraps, so a - b == d
            return int(COMPARE[op](d, 0))
        lo, hi = fa.lo - fb.hi, fa.hi - fb.lo  # the range of a - b (Python ints)
        if op == "Less":
            return 1 if hi < 0 else 0 if lo >= 0 else None
        if op == "LessOrEqual":
            return 1 if hi <= 0 else 0 if lo > 0 else None
        if op == "Greater":
            return 1 if lo > 0 else 0 if hi <= 0 else None
        if op == "GreaterOrEqual":
            return 1 if lo >= 0 else 0 if hi < 0 else None
        return 0 if lo > 0 or hi < 0 else (1 if lo == hi == 0 else None)

    def where_taken(self, ins) -> int | None:
        """1 or 2: the input a ``Where`` gives for every element of every run, else None."""
        c = self.of(ins[0]).point
        if c is not None:
            return 1 if c else 2
        node = ins[0].producer() if ins[0] is not None else None
        if node is None or node.op_type not in COMPARE or node.op_type == "Equal" or \
                node.domain not in ONNX or len(node.inputs) != 2:
            return None
        # Where(p > q, p, q) is max(p, q), Where(p > q, q, p) min(p, q): the branches are the
        # compared values, so where the comparison's strictness matters (p == q) both give
        # the same value. When p >= q always the condition holds (or p == q): the first
        # input; when p <= q always it fails (or p == q): the second. (Swapped operands took
        # the other input: Where(0 >= a, a, 0) of a bool 0-d a folded to a, fuzz seed
        # 26004776.)
        p, q = node.inputs
        if {id(p), id(q)} != {id(ins[1]), id(ins[2])} or p is q:
            return None
        greater = node.op_type.startswith("Greater")
        # (Greater: the condition holds where p >= q minus equality; Less: where p <= q)
        order = self.compare("GreaterOrEqual" if greater else "LessOrEqual", p, q)
        if order == 1:
            return 1
        reverse = self.compare("LessOrEqual" if greater else "GreaterOrEqual", p, q)
        return 2 if reverse == 1 else None


def _const_fact(arr: np.ndarray) -> Fact:
    shape = tuple(arr.shape)
    if arr.dtype.kind not in "biu" or arr.size == 0 or arr.size > 4096:
        return Fact(arr.dtype, shape)
    lo, hi = int(arr.min()), int(arr.max())
    return Fact(arr.dtype, shape, lo, hi)


def _declared(value: ir.Value) -> tuple | None:
    shape = value.shape
    if shape is None:
        return None
    return tuple(d if isinstance(d, int) else None for d in shape.dims)
