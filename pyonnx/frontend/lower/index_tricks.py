"""numpy's index tricks: ``np.r_[...]``, ``np.c_[...]``, ``np.s_[...]``, ``np.index_exp[...]``.

Input: the object subscripted (one of the four) and the evaluated index (a value or a tuple of
them: arrays, Python or numpy scalars, slices, lists, a leading directive string). Output: the
frontend value numpy's ``__getitem__`` returns.

``np.r_``/``np.c_`` follow ``numpy.lib._index_tricks_impl.AxisConcatenator``: each item is made
``ndmin``-dimensional (``np.c_``: 2, 1-D items become columns; ``np.r_``: 1), all are cast to
the result type of the items (Python numbers weak, as numpy's ``result_type`` takes them) and
concatenated along the axis (``np.c_``: the last; ``np.r_``: the first, or the integer of a
leading directive ``'-1'``). A slice ``a:b:s`` is ``np.arange(a, b, s)`` (``a:b:nj`` is
``np.linspace(a, b, n)``); its bounds must be known at conversion time. Refused: the matrix
directives ``'r'``/``'c'`` and ``'axis,ndmin[,trans1d]'`` strings (the message says what to
write), and items that are not numbers or arrays.

``np.s_[idx]`` is ``idx``; ``np.index_exp[idx]`` is ``idx`` as a tuple.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from pyonnx.frontend.graph.complex_values import (
    Complex, is_complex, make, real_dtype, zeros_like)
from pyonnx.frontend.graph.values import Array, is_static
from pyonnx.frontend.numpy_calls import lookup  # (loads the families)

__all__ = ["is_index_trick", "index_value", "subscript"]

_CONCATENATORS = (np.r_, np.c_)


def is_index_trick(base: Any) -> bool:
    """Whether ``base[...]`` is one of numpy's index tricks handled here."""
    return any(base is t for t in (np.r_, np.c_, np.s_, np.index_exp))


def index_value(lowering, node: Any) -> Any:
    """The index of ``node`` (an ``ast.Subscript``) evaluated by ``lowering``, except that a
    slice's imaginary step literal (``0:1:5j``, linspace's count for ``np.r_``) is kept as the
    Python complex it is (pyonnx refuses complex values elsewhere)."""
    import ast

    def item(e: Any) -> Any:
        if isinstance(e, ast.Slice) and isinstance(e.step, ast.Constant) \
                and isinstance(e.step.value, complex):
            bound = lambda b: None if b is None else lowering.expr(b)  # noqa: E731
            return slice(bound(e.lower), bound(e.upper), e.step.value)
        return lowering.expr(e)

    if isinstance(node.slice, ast.Tuple):
        return tuple(item(e) for e in node.slice.elts)
    return item(node.slice)


def subscript(ctx, base: Any, index: Any) -> Any:
    """``base[index]`` for one of the index tricks (see the module docstring)."""
    if base is np.s_:
        return index
    if base is np.index_exp:
        return index if isinstance(index, tuple) else (index,)
    name = "np.r_" if base is np.r_ else "np.c_"
    items = index if isinstance(index, tuple) else (index,)
    if is_static(items) and not any(isinstance(i, str) for i in items):
        try:
            return base[index]  # every item known: numpy builds the constant
        except Exception as e:
            raise ctx.error(f"{name}[...]: {type(e).__name__}: {e}") from None
    if any(is_complex(i) for i in items):
        return _complex_items(ctx, base, name, items)
    axis, ndmin, trans1d = base.axis, base.ndmin, base.trans1d
    objs: list[Any] = []
    kinds: list[Any] = []  # result_type's arguments: dtypes, and scalars as themselves
    for k, item in enumerate(items):
        if isinstance(item, str):
            axis = _directive(ctx, name, item, k)
            continue
        if isinstance(item, slice):
            obj = _slice_range(ctx, name, item)
            kinds.append(obj.dtype)
            obj = np.array(obj, ndmin=ndmin)
            if ndmin > 1 and trans1d != -1:
                obj = obj.swapaxes(-1, trans1d)
            objs.append(obj)
            continue
        if isinstance(item, (bool, int, float, np.generic)):
            objs.append(item)
            kinds.append(item)
            continue
        if isinstance(item, (list, tuple)) and is_static(item):
            item = np.asarray(item)
        if isinstance(item, np.ndarray):
            item = ctx.asarray(item)
        if not isinstance(item, Array):
            raise ctx.error(f"{name}[...] of {type(item).__name__} items is not supported; "
                            "pass arrays, numbers or slices")
        if item.weak:  # a Python number computed in the model: weak in result_type
            objs.append(item)
            kinds.append({"b": False, "i": 0, "u": 0}.get(item.dtype.kind, 0.0))
            continue
        objs.append(_with_ndmin(ctx, item, ndmin, trans1d))
        kinds.append(item.dtype)
    if not objs:
        raise ctx.error(f"{name}[...] needs at least one array to concatenate")
    final = np.result_type(*kinds)
    arrays = [_as_array(ctx, o, final, ndmin) for o in objs]
    concatenate = lookup(np.concatenate).fn
    return concatenate(ctx, arrays, axis=axis)


def _complex_items(ctx, base: Any, name: str, items: tuple) -> Complex:
    """``np.r_``/``np.c_`` with a complex item: the real parts and the imaginary parts (zeros
    for a real item) concatenated alike, in numpy's result type of all the items."""
    kinds: list[Any] = []
    re_items: list[Any] = []
    im_items: list[Any] = []
    for item in items:
        if isinstance(item, str):
            re_items.append(item)
            im_items.append(item)
            continue
        if isinstance(item, slice):
            item = _slice_range(ctx, name, item)
        if isinstance(item, (list, tuple)) and is_static(item):
            item = np.asarray(item)
        if isinstance(item, Complex):
            kinds.append(0j if item.weak else item.dtype)
            re_items.append(item.re if not item.weak else Array(
                item.re.value, item.re.dtype, item.re.shape, True))
            im_items.append(item.im if not item.weak else Array(
                item.im.value, item.im.dtype, item.im.shape, True))
        elif isinstance(item, Array):
            kinds.append({"b": False, "i": 0, "u": 0}.get(item.dtype.kind, 0.0)
                         if item.weak else item.dtype)
            re_items.append(item)
            im_items.append(zeros_like(ctx, Array(item.value, item.dtype, item.shape)))
        elif isinstance(item, (bool, int, float, complex, np.generic, np.ndarray)):
            kinds.append(item if not isinstance(item, np.ndarray) else item.dtype)
            value = np.asarray(item)
            re_part, im_part = (value.real, value.imag) if value.dtype.kind == "c" else \
                (value, np.zeros_like(value))
            if not isinstance(item, (np.generic, np.ndarray)):  # a Python number
                re_part, im_part = re_part.item(), im_part.item()
            re_items.append(re_part)
            im_items.append(im_part)
        else:
            raise ctx.error(f"{name}[...] of {type(item).__name__} items is not supported; "
                            "pass arrays, numbers or slices")
    final = np.result_type(*kinds)
    rd = real_dtype(final)
    re = subscript(ctx, base, tuple(re_items))
    im = subscript(ctx, base, tuple(im_items))
    return make(ctx, ctx.cast(re, rd), ctx.cast(im, rd), final)


def _directive(ctx, name: str, item: str, k: int) -> int:
    """The axis a leading directive string names; the other directives are refused."""
    if k != 0:
        raise ctx.error(f"{name}[...]: a directive string must be the first item (numpy "
                        "raises ValueError)")
    if item in ("r", "c"):
        raise ctx.error(f"{name}['{item}', ...] builds a np.matrix, which pyonnx does not "
                        "convert; drop the directive (the result is an ndarray) or use "
                        "np.concatenate(...)[None] / [:, None]")
    try:
        return int(item)
    except ValueError:
        pass
    if "," in item:
        raise ctx.error(
            f"{name}['{item}', ...]: the 'axis,ndmin[,trans1d]' directive is not supported; "
            "make the items the dimensions you need (np.expand_dims, x[:, None]) and write "
            "np.concatenate([...], axis=...)")
    raise ctx.error(f"{name}[...]: unknown directive {item!r} (numpy raises ValueError)")


def _slice_range(ctx, name: str, item: slice) -> np.ndarray:
    """``a:b:s`` as numpy's AxisConcatenator reads it (arange, or linspace for an imaginary
    step), computed at conversion time."""
    if not is_static((item.start, item.stop, item.step)):
        raise ctx.error(f"{name}[a:b:step]: the bounds of a range item must be known at "
                        "conversion time; for bounds computed from the data write "
                        "np.arange(a, b, step) and concatenate it")
    start = 0 if item.start is None else item.start
    step = 1 if item.step is None else item.step
    try:
        if isinstance(step, (complex, np.complexfloating)):
            return np.linspace(start, item.stop, num=int(abs(step)))
        return np.arange(start, item.stop, step)
    except Exception as e:
        raise ctx.error(f"{name}[a:b:step]: {type(e).__name__}: {e}") from None


def _with_ndmin(ctx, x: Array, ndmin: int, trans1d: int) -> Array:
    """``np.array(x, ndmin=ndmin)`` transposed as AxisConcatenator does for ``trans1d``."""
    if x.ndim >= ndmin:
        return x
    k2 = ndmin - x.ndim
    x = lookup(np.expand_dims).fn(ctx, x, tuple(range(k2)))
    if trans1d == -1:
        return x
    k1 = trans1d if trans1d >= 0 else trans1d + k2 + 1
    defaxes = list(range(ndmin))
    axes = defaxes[:k1] + defaxes[k2:] + defaxes[k1:k2]
    return lookup(np.transpose).fn(ctx, x, tuple(axes))


def _as_array(ctx, obj: Any, dtype: np.dtype, ndmin: int) -> Array:
    """An item cast to the result type, with at least ``ndmin`` dimensions (scalars too)."""
    if not isinstance(obj, Array):
        return ctx.asarray(np.array(obj, dtype=dtype, ndmin=ndmin))
    if obj.ndim < ndmin:  # a Python number computed in the model
        obj = lookup(np.reshape).fn(ctx, obj, (1,) * ndmin)
    if obj.dtype != dtype:
        obj = ctx.cast(Array(obj.value, obj.dtype, obj.shape), dtype)
    return obj
