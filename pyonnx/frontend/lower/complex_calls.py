"""Calls, attributes and subscripts on complex values: the dispatch of :class:`Complex`.

Input: a call (function or :class:`ComplexMethod`, frontend arguments) that involves a complex
value, or that makes one (``np.complex128(x)``, ``x.astype(complex)``, ``complex(a, b)``).
Output: numpy's value as a Complex or a real Array. A function with no complex lowering is a
ConversionError naming it: never a real-only result.

Linear functions that only move or combine elements (reshape, transpose, sum, concatenate...)
run the registry's real lowering on each part ("partwise"); the rest are in
:mod:`complex_ops`, :mod:`complex_linalg` and :mod:`complex_fft`.
"""

from __future__ import annotations

import builtins
import functools
from typing import Any

import numpy as np

from pyonnx.frontend.graph import complex_kinds
from pyonnx.frontend.graph.complex_values import (
    Complex, complex_dtype, is_complex, parts)
from pyonnx.frontend.graph.records import ComplexSeq
from pyonnx.frontend.graph.values import Array, ArrayMethod, is_static
from pyonnx.frontend.lower import complex_creation as C
from pyonnx.frontend.lower import complex_functions as F
from pyonnx.frontend.lower import complex_ops as ops
from pyonnx.frontend.lower.complex_call_kinds import hashable as _hashable
from pyonnx.frontend.lower.complex_call_kinds import with_kind
from pyonnx.frontend.lower.complex_state import scalar_copies
from pyonnx.frontend.numpy_calls import lookup, lookup_method

__all__ = ["ComplexMethod", "attribute", "getitem", "flat_getitem", "involved", "call"]


class ComplexMethod:
    """``z.name`` for a method of a complex array, before it is called."""

    __slots__ = ("array", "name")

    def __init__(self, array: Complex, name: str):
        self.array = array
        self.name = name


# Functions that move or add elements only: each part separately (first argument complex).
_PARTWISE_FIRST = frozenset({
    "reshape", "ravel", "flatten", "transpose", "permute_dims", "swapaxes", "moveaxis",
    "squeeze", "expand_dims", "flip", "fliplr", "flipud", "roll", "broadcast_to", "copy",
    "sum", "mean", "cumsum", "trace", "diagonal", "diag", "tile", "repeat", "atleast_1d",
    "atleast_2d", "atleast_3d", "triu", "tril", "take", "rot90", "matrix_transpose",
    "sliding_window_view",
})
# Their results are views of the argument in numpy (complex_aliases.view_call).
_VIEWS = frozenset({"reshape", "ravel", "transpose", "permute_dims", "swapaxes", "moveaxis",
                    "squeeze", "expand_dims", "flip", "fliplr", "flipud", "broadcast_to",
                    "diagonal", "atleast_1d", "atleast_2d", "atleast_3d", "rot90",
                    "matrix_transpose", "sliding_window_view"})
# Functions over a list of arrays: every item promoted to the common complex dtype.
_PARTWISE_LIST = frozenset({"concatenate", "stack", "hstack", "vstack", "column_stack",
                            "dstack", "concat"})
_ATTRS_STATIC = ("shape", "ndim", "size")
# Conversions whose dtype= may make a real array complex.
_CONVERSIONS = frozenset({np.array, np.asarray, np.asanyarray, np.ascontiguousarray})
_METHODS = _PARTWISE_FIRST | {"conj", "conjugate", "astype", "dot", "prod", "item", "any",
                              "all", "nonzero", "cumprod", "max", "min", "argmax", "argmin",
                              "argsort", "var", "std", "clip", "round", "ptp",
                              "fill", "put"}  # (the writers: complex_fill)
_LIKES = (np.zeros_like, np.ones_like, np.full_like)  # (any dtype: complex_creation.create)
_MAKERS = (np.complex64, np.complex128, np.cdouble, np.csingle, builtins.complex)


def involved(func: Any, args: list, kwargs: dict) -> bool:
    """Whether this call is the complex lowering's (see the module docstring)."""
    if isinstance(func, ComplexMethod):
        return True
    values = list(args) + list(kwargs.values())
    flat = _flatten(values)
    if any(isinstance(v, (Complex, ComplexSeq)) for v in flat):
        return not _user_function(func)
    if _hashable(func) and func in _MAKERS:
        return True
    if _hashable(func) and func in _CONVERSIONS and not is_static(values) and \
            _is_complex_dtype(args[1] if len(args) > 1 else kwargs.get("dtype")):
        return True  # np.asarray(x, dtype=complex) of a real array
    if isinstance(func, ArrayMethod) and func.name == "astype":
        dt = args[0] if args else kwargs.get("dtype")
        return _is_complex_dtype(dt)
    from pyonnx.frontend.lower.complex_fill import receiver
    hit = receiver(func) if not isinstance(func, ComplexMethod) else None
    if hit is not None and hit[1] in ("fill", "put"):
        return True  # o = np.zeros(3, complex); o.fill(1j): complex_fill
    if _hashable(func) and func in _FFT_FUNCS():
        return True
    if _hashable(func) and func in C.CREATION:
        dt = C.creation_dtype(func, args, kwargs)
        return (_is_complex_dtype(dt) or (dt is None and _any_complex(args, kwargs))) \
            and not (is_static(values))
    if func in (np.iscomplex, np.isreal, np.real_if_close, np.sort_complex) \
            if _hashable(func) else False:
        return True  # (complex_queries: constant arguments too)
    if func in (np.real, np.imag, np.angle, np.iscomplexobj, np.isrealobj) \
            if _hashable(func) else False:
        return not is_static(values)
    if any(is_complex(v) for v in flat) and not is_static(values):
        return not _user_function(func)
    return False


def _FFT_FUNCS():
    from pyonnx.frontend.lower.complex_fft import FUNCS
    return FUNCS


@functools.cache
def _STATS_FUNCS():
    # (complex_stats, complex_reductions and complex_sorted use complex_functions: they are
    # merged here, not into F.FUNCS)
    from pyonnx.frontend.lower import (complex_calculus, complex_extremes, complex_gradient,
                                       complex_more, complex_reductions, complex_sorted,
                                       complex_stats)
    return {**complex_stats.FUNCS, **complex_reductions.FUNCS, **complex_sorted.FUNCS,
            **complex_calculus.FUNCS, **complex_extremes.FUNCS, **complex_gradient.FUNCS,
            **complex_more.FUNCS}


def _ORDER_METHODS():
    from pyonnx.frontend.lower import (complex_more, complex_order, complex_reductions,
                                       complex_stats)
    return {**complex_order.METHODS, **complex_stats.METHODS, **complex_reductions.METHODS,
            **complex_more.METHODS}


def _user_function(func: Any) -> bool:
    import types

    module = getattr(func, "__module__", None) or ""
    return isinstance(func, (types.FunctionType, types.MethodType)) and \
        not module.startswith("numpy")


def _flatten(values: Any) -> list:
    out = []
    for v in values:
        if isinstance(v, (list, tuple)):
            out.extend(_flatten(v))
        else:
            out.append(v)
    return out


def _is_complex_dtype(dt: Any) -> bool:
    try:
        return dt is complex or np.dtype(dt).kind == "c"
    except TypeError:
        return False


# ------------------------------------------------------------------ attributes
def attribute(ctx, z: Complex, name: str) -> Any:
    """``z.name``: .real/.imag (parts, views numpy can write through: refused), .T, shape."""
    if name in ("real", "imag"):
        return F.part_view(ctx, z, z.re if name == "real" else z.im,
                           "re" if name == "real" else "im")
    if name == "dtype":
        return z.dtype
    if name in ("itemsize", "nbytes"):
        n = z.dtype.itemsize
        return n if name == "itemsize" else F.lookup_attribute_of(ctx, z.re, "size") * n
    if name in _ATTRS_STATIC:
        return F.lookup_attribute_of(ctx, z.re, name)
    if name in ("T", "mT"):
        from pyonnx.frontend.lower.complex_aliases import view_call
        out = view_call(ctx, z, "transpose", lambda p: F.lookup_attribute_of(ctx, p, name))
        # (a numpy scalar's .T is the scalar: graph/complex_kinds)
        return complex_kinds.mark(out, complex_kinds.kind(z)) if out is not z else out
    if name in _METHODS:
        return ComplexMethod(z, name)
    raise ctx.error(f"the attribute or method '.{name}' of a complex array is not supported yet")


# ------------------------------------------------------------------ subscripts
def getitem(ctx, z: Complex, index: Any) -> Complex:
    from pyonnx.frontend.graph.indexing import getitem as real_getitem
    from pyonnx.frontend.graph import sequences

    if any(isinstance(i, Complex) for i in _flatten([index])):
        raise ctx.error("arrays used as indices must be of integer (or boolean) type (numpy "
                        "raises IndexError for a complex index)")
    index = sequences.lists_as_arrays(ctx, index)
    out = F.partwise(ctx, z, lambda p: real_getitem(ctx, p, index))
    if _basic(index):
        if out.ndim == 0 and not any(i is Ellipsis or i is None for i in (
                index if isinstance(index, tuple) else (index,))):
            # a numpy scalar (every axis taken by an integer): a copy, which numpy's
            # 'v += 1' rebinds; as a view its writes are refused (not followed). Its memory
            # is its own (``mem`` fresh): writes into z do not reach it, nor it z.
            out.base = z
            scalar_copies(ctx)[id(out)] = out  # (complex_writes.inplace_binary: rebinds v)
            out.zero_d = "scalar"
            return out
        # numpy's view: followed where complex_aliases can, else writes are refused
        from pyonnx.frontend.lower.aliases import GetItem
        from pyonnx.frontend.lower.complex_aliases import view
        return view(ctx, z, out, GetItem(index))
    return out


def flat_getitem(ctx, z: Complex, index: Any) -> Complex:
    """``z.flat[index]`` (read): the C-order flattening indexed; numpy's flat iterator gives a
    copy (a scalar or a new array), never a view."""
    from pyonnx.frontend.graph.indexing import getitem as real_getitem

    if any(isinstance(i, Complex) for i in _flatten([index])):
        raise ctx.error("arrays used as indices must be of integer (or boolean) type (numpy "
                        "raises IndexError for a complex index)")
    flat = ops.new_copy(ctx, F.partwise(ctx, z, lambda p: lookup(np.ravel).fn(ctx, p)))
    return F.partwise(ctx, flat, lambda p: real_getitem(ctx, p, index))


def _basic(index: Any) -> bool:
    """Whether numpy indexes with ``index`` by basic indexing (a view): ints, slices, ``...``,
    None and 0-d integer arrays (a run-time ``z[i]`` is a view of a row: writes through it
    reach ``z``; as a copy they were lost), as expr._basic for real arrays."""
    items = index if isinstance(index, tuple) else (index,)
    for i in items:
        if isinstance(i, Array):
            if i.ndim or i.dtype.kind not in "iu":
                return False
        elif isinstance(i, (list, np.ndarray, bool, np.bool_)):
            return False
    return True


# ------------------------------------------------------------------ calls
def call(lowering, func: Any, args: list, kwargs: dict) -> Any:
    """numpy's ``func(*args, **kwargs)`` with a complex value involved; a 0-d complex result
    carries numpy's kind (scalar or 0-d array: complex_call_kinds)."""
    method = (func.array, func.name) if isinstance(func, ComplexMethod) else None
    result = with_kind(lowering.ctx, func, args, _call(lowering, func, args, kwargs), method)
    if isinstance(func, np.ufunc):
        # np.add(s, 1j) is a numpy scalar on every path, also of Python complex numbers (the
        # operators keep a Python complex: complex_paths.derive)
        for r in result if isinstance(result, tuple) else (result,):
            if isinstance(r, Complex) and not any(r is a for a in args):
                r.weak, r.py_path = False, None
    return result


def _call(lowering, func: Any, args: list, kwargs: dict) -> Any:
    ctx = lowering.ctx
    from pyonnx.frontend.lower import complex_fill, complex_out
    from pyonnx.frontend.lower.control_flow.complex_paths import check_call
    check_call(ctx, func, list(args) + list(kwargs.values()))
    if complex_fill.handles(func, args):  # z.fill(v), np.copyto(z, v, where=m), np.put...
        return complex_fill.call(lowering, func, args, kwargs)
    if complex_out.handles(func, args, kwargs):  # np.sum(z, axis=0, out=o): a write into o
        return complex_out.call_with_out(lowering, func, args, kwargs,
                                         lambda f, a, k: call(lowering, f, a, k))
    if isinstance(func, ComplexMethod):
        return _method(ctx, func.array, func.name, args, kwargs)
    if args and isinstance(args[0], ComplexSeq):  # a run-time list of complex values
        from pyonnx.frontend.lower import complex_lists
        return complex_lists.call(ctx, func, args, kwargs)
    if any(isinstance(v, ComplexSeq) for v in _flatten(list(args) + list(kwargs.values()))):
        raise ctx.error("a list of complex values built at run time is supported as the first "
                        "argument of len/np.array/np.stack/np.concatenate only; make it an "
                        "array first (np.array(lst))")
    if isinstance(func, ArrayMethod):  # x.astype(complex) on a real array
        return F.astype(ctx, func.array, *args, **kwargs)
    if func in _MAKERS:
        return F.make_value(ctx, func, args, kwargs)
    if _hashable(func) and func in _CONVERSIONS and args and not _any_complex(args, kwargs) \
            and _is_complex_dtype(args[1] if len(args) > 1 else kwargs.get("dtype")):
        # np.array/asarray(x, dtype=complex) of real values: the real array, made complex
        # (a new array either way: the dtype differs)
        dt = args[1] if len(args) > 1 else kwargs["dtype"]
        rest = {k: v for k, v in kwargs.items() if k != "dtype"}
        return F.astype(ctx, lookup(func).fn(ctx, args[0], *args[2:], **rest), dt)
    if func in _FFT_FUNCS():
        return _FFT_FUNCS()[func](ctx, *args, **kwargs)
    if func in C.CREATION and (_is_complex_dtype(C.creation_dtype(func, args, kwargs))
                                or C.creation_dtype(func, args, kwargs) is None
                                or func in _LIKES and args and isinstance(args[0], Complex)):
        return C.create(ctx, func, args, kwargs)
    if isinstance(func, type) and issubclass(func, np.generic) and len(args) == 1 and \
            not kwargs and isinstance(args[0], Complex):
        return F.astype(ctx, args[0], np.dtype(func))  # np.float64(z): the real part
    if func is builtins.len and len(args) == 1 and not kwargs:
        return _len(ctx, args[0])
    if func in (builtins.enumerate, builtins.zip, builtins.reversed):
        # iterated by the for loop that asks for them (complex_iteration)
        from pyonnx.frontend.lower.iteration import LazyIterable
        return LazyIterable(func.__name__, tuple(args), kwargs)
    name = getattr(func, "__name__", None)
    fn = F.FUNCS.get(func) or _STATS_FUNCS().get(func)
    if fn is not None:
        out = fn(ctx, *args, **kwargs)
        if isinstance(func, np.ufunc) and isinstance(out, Complex) and out.weak:
            # a ufunc of Python numbers gives a numpy scalar (np.minimum(3j, 0.75) is
            # np.complex128), where the operator on them gives a Python complex
            out = Complex(out.re, out.im, out.dtype)
        return out
    if name in _PARTWISE_FIRST and lookup(func) is not None and args and \
            isinstance(args[0], Complex) and not _any_complex(args[1:], kwargs):
        if kwargs.get("dtype") is not None:
            raise ctx.error(f"np.{name}(..., dtype=...) of a complex array is not supported yet")
        entry = lookup(func)
        if name in _VIEWS:
            from pyonnx.frontend.lower.complex_aliases import view_call
            return view_call(ctx, args[0], name, lambda p: entry.fn(ctx, p, *args[1:], **kwargs))
        return F.partwise(ctx, args[0], lambda p: entry.fn(ctx, p, *args[1:], **kwargs))
    if name in _PARTWISE_LIST and lookup(func) is not None and args:
        return _list_call(ctx, lookup(func), args, kwargs)
    shown = getattr(func, "__qualname__", None) or repr(func)
    module = getattr(func, "__module__", None) or ""
    prefix = "np." if module.startswith("numpy") else ""
    raise ctx.error(f"{prefix}{shown}() of complex values is not supported yet; pyonnx "
                    "converts complex arithmetic, abs/angle/conj/real/imag, the elementwise math "
                    "functions, sums, products, einsum, max/min/sort, var/std, reshapes and "
                    "np.fft (see README, 'complex numbers')")


def _len(ctx, x: Any) -> Any:
    """``len(x)`` of a list holding complex values or of a complex array."""
    if isinstance(x, (list, tuple)):
        return len(x)
    if isinstance(x, Complex):
        if x.ndim == 0:
            raise ctx.error("len() of unsized object (numpy raises TypeError for a 0-d array)")
        return lookup(builtins.len).fn(ctx, x.re)
    raise ctx.error(f"len() of a {type(x).__name__} is not supported here")


def _any_complex(args: Any, kwargs: dict) -> bool:
    return any(is_complex(v) for v in _flatten(list(args) + list(kwargs.values())))


def _method(ctx, z: Complex, name: str, args: list, kwargs: dict) -> Any:
    if name in ("conj", "conjugate"):
        return F.conj(ctx, z)
    if name == "astype":
        return F.astype(ctx, z, *args, **kwargs)
    if name == "dot":
        from pyonnx.frontend.lower.complex_linalg import product
        return product(ctx, "dot", z, *args)
    if name in ("prod", "cumprod"):
        from pyonnx.frontend.lower.complex_reductions import prod
        return prod(ctx, z, *args, cumulative=name == "cumprod", **kwargs)
    if name in _ORDER_METHODS():
        return _ORDER_METHODS()[name](ctx, z, *args, **kwargs)
    if name in ("any", "all"):
        entry = lookup_method(name)
        return entry.fn(ctx, ops.truth(ctx, z), *args, **kwargs)
    if name == "nonzero":
        return lookup_method(name).fn(ctx, ops.truth(ctx, z))
    if name in _PARTWISE_FIRST:
        if kwargs.get("dtype") is not None:
            raise ctx.error(f"z.{name}(..., dtype=...) of a complex array is not supported yet")
        entry = lookup_method(name)
        if entry is None:
            raise ctx.error(f"the method '.{name}()' of a complex array is not supported yet")
        if name in _VIEWS:
            from pyonnx.frontend.lower.complex_aliases import view_call
            return view_call(ctx, z, name, lambda p: entry.fn(ctx, p, *args, **kwargs))
        return F.partwise(ctx, z, lambda p: entry.fn(ctx, p, *args, **kwargs))
    raise ctx.error(f"the method '.{name}()' of a complex array is not supported yet")


def _list_call(ctx, entry, args: list, kwargs: dict) -> Any:
    items = args[0]
    if not isinstance(items, (list, tuple)):
        raise ctx.error("a sequence of arrays is expected here")
    if kwargs.get("dtype") is not None:
        raise ctx.error("dtype= with complex arrays is not supported yet")
    dt = np.result_type(*(F.dtype_of(v) for v in items))
    if dt.kind != "c":
        dt = complex_dtype(dt)
    ps = [parts(ctx, v, dt) for v in items]
    re = entry.fn(ctx, [p[0] for p in ps], *args[1:], **kwargs)
    im = entry.fn(ctx, [p[1] for p in ps], *args[1:], **kwargs)
    return Complex(re, im, dt)

