"""Small standard-library helpers numpy code uses, on conversion-time containers.

Input: a callee and evaluated arguments. Output: the value Python computes, with each element
operation lowered like the code it stands for:

* ``type(x)`` of an array value: ``np.ndarray``, the numpy scalar type, or the Python type of a
  weak scalar; ``isinstance(x, ...)`` likewise (static answers only);
* ``map(f, ...)``, ``filter(f, ...)``: lists, over iterables known at conversion time;
* ``functools.reduce(f, items[, initial])``: ``f`` applied left to right (``f`` a lambda, a
  helper, an ``operator`` function or a ufunc);
* ``operator.add`` and the other operator functions: the operators;
* ``itertools.product/combinations/permutations/repeat/accumulate/chain``: Python's own, on
  conversion-time iterables (the items may be arrays; ``accumulate`` adds with the operator).

Run-time iterables are refused at the call with what to write instead (a ``for`` loop).
"""

from __future__ import annotations

import ast
import functools
import itertools
import operator
from typing import Any, Callable

import numpy as np

from pyonnx.frontend.graph import scalar_kinds
from pyonnx.frontend.graph.iterables import DynamicIter
from pyonnx.frontend.graph.values import Array, Seq
from pyonnx.frontend.lower.iteration import LazyIterable, iterate

__all__ = ["STDLIB", "type_of"]

_OPERATORS = {
    operator.add: ast.Add, operator.sub: ast.Sub, operator.mul: ast.Mult,
    operator.truediv: ast.Div, operator.floordiv: ast.FloorDiv, operator.mod: ast.Mod,
    operator.pow: ast.Pow, operator.matmul: ast.MatMult, operator.and_: ast.BitAnd,
    operator.or_: ast.BitOr, operator.xor: ast.BitXor, operator.lshift: ast.LShift,
    operator.rshift: ast.RShift,
}
_COMPARISONS = {operator.lt: np.less, operator.le: np.less_equal, operator.gt: np.greater,
                operator.ge: np.greater_equal, operator.eq: np.equal, operator.ne: np.not_equal}


def type_of(ctx, a: Array) -> type:
    """``type(a)`` for an array value, when known at conversion time."""
    if a.weak and a.ndim == 0:
        return {"b": bool, "i": int, "u": int, "f": float}[a.dtype.kind]
    if a.ndim:
        return np.ndarray
    kind = scalar_kinds.scalar_kind(ctx, a)
    if kind == "array":
        return np.ndarray
    if kind == "scalar":
        return a.dtype.type
    raise ctx.error("type() of a 0-d value that comes out of a run-time 'if' or loop: numpy may "
                    "hold a numpy scalar or a 0-d array there; test x.ndim instead")


def _items(lowering, iterable: Any, what: str) -> list:
    items = iterate(lowering.ctx, iterable)
    if isinstance(items, DynamicIter):
        raise lowering.ctx.error(
            f"{what} over values only known at run time is not supported; write a for loop "
            "(appending to a list or accumulating)")
    return list(items)


def _call(lowering, f: Any, args: list) -> Any:
    return lowering.call_value(f, args, {})


def _type(lowering, args, kwargs):
    if len(args) == 1 and not kwargs and isinstance(args[0], Array):
        return type_of(lowering.ctx, args[0])
    if len(args) == 1 and isinstance(args[0], Seq):
        return list
    return type(*args, **kwargs)


def _map(lowering, args, kwargs):
    if kwargs or len(args) < 2:
        raise lowering.ctx.error("map() takes a function and at least one iterable")
    f, *iterables = args
    columns = [_items(lowering, it, "map()") for it in iterables]
    return [_call(lowering, f, list(row)) for row in zip(*columns)]


def _filter(lowering, args, kwargs):
    if kwargs or len(args) != 2:
        raise lowering.ctx.error("filter() takes a function and an iterable")
    f, iterable = args
    out = []
    for v in _items(lowering, iterable, "filter()"):
        keep = v if f is None else _call(lowering, f, [v])
        truth = lowering.static_truth(keep)
        if truth is None:
            raise lowering.ctx.error(
                "filter() with a condition on array values is not supported; use a boolean "
                "mask (x[cond]) or a list comprehension with an 'if'")
        if truth:
            out.append(v)
    return out


def _reduce(lowering, args, kwargs):
    if kwargs or len(args) not in (2, 3):
        raise lowering.ctx.error("reduce() takes a function, an iterable and an initial value")
    f, iterable, *initial = args
    items = _items(lowering, iterable, "functools.reduce()")
    if not items and not initial:
        raise lowering.ctx.error("TypeError: reduce() of empty iterable with no initial value")
    acc, rest = (initial[0], items) if initial else (items[0], items[1:])
    for v in rest:
        acc = _call(lowering, f, [acc, v])
    return acc


def _operator(op: type) -> Callable:
    def lower(lowering, args, kwargs):
        if kwargs or len(args) != 2:
            raise lowering.ctx.error("operator functions take two arguments here")
        return lowering.binary(op, args[0], args[1])
    return lower


def _comparison(ufunc) -> Callable:
    def lower(lowering, args, kwargs):
        a, b = args
        if isinstance(a, Array) or isinstance(b, Array):
            from pyonnx.frontend.numpy_calls import lookup
            return lookup(ufunc).fn(lowering.ctx, a, b)
        return {np.less: operator.lt, np.less_equal: operator.le, np.greater: operator.gt,
                np.greater_equal: operator.ge, np.equal: operator.eq,
                np.not_equal: operator.ne}[ufunc](a, b)
    return lower


def _neg(lowering, args, kwargs):
    (a,) = args
    return _call(lowering, np.negative, [a]) if isinstance(a, Array) else -a


def _itertool(fn: Callable, name: str) -> Callable:
    def lower(lowering, args, kwargs):
        static_args = [_items(lowering, a, f"itertools.{name}()")
                       if isinstance(a, (Array, Seq, LazyIterable, range)) or hasattr(a, "__iter__")
                       and not isinstance(a, (str, dict)) else a for a in args]
        return list(fn(*static_args, **kwargs))
    return lower


def _accumulate(lowering, args, kwargs):
    iterable, *rest = args
    func = rest[0] if rest else kwargs.get("func", operator.add)
    initial = kwargs.get("initial")
    items = _items(lowering, iterable, "itertools.accumulate()")
    out = [] if initial is None else [initial]
    acc = initial
    for v in items:
        acc = v if acc is None else _call(lowering, func, [acc, v])
        out.append(acc)
    return out


def _repeat(lowering, args, kwargs):
    if len(args) < 2 and "times" not in kwargs:
        raise lowering.ctx.error("itertools.repeat(x) without 'times' never ends; pass times=")
    return list(itertools.repeat(*args, **kwargs))


STDLIB: dict[Any, Callable] = {
    type: _type, map: _map, filter: _filter, functools.reduce: _reduce, operator.neg: _neg,
    itertools.product: _itertool(itertools.product, "product"),
    itertools.combinations: _itertool(itertools.combinations, "combinations"),
    itertools.combinations_with_replacement: _itertool(
        itertools.combinations_with_replacement, "combinations_with_replacement"),
    itertools.permutations: _itertool(itertools.permutations, "permutations"),
    itertools.chain: _itertool(itertools.chain, "chain"),
    itertools.pairwise: _itertool(itertools.pairwise, "pairwise"),
    itertools.repeat: _repeat, itertools.accumulate: _accumulate,
    **{f: _operator(op) for f, op in _OPERATORS.items()},
    **{f: _comparison(u) for f, u in _COMPARISONS.items()},
}
