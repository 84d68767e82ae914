"""More numpy functions of complex arrays, each exact part by part or on a complex value's
truth (issue 11): ``round/around`` (and ``z.round``: numpy rounds the real and the imaginary
part alike), ``delete``, ``resize``, ``nan_to_num`` (numpy treats each part as a real array),
``sum(..., dtype=complex)``, ``flatnonzero``/``argwhere`` (nonzero: either part nonzero),
``ptp`` (``maximum.reduce - minimum.reduce``, numpy's lexicographic order and complex
subtraction) and ``average`` without weights (numpy's ``mean``).

Input: a Complex first argument and numpy's other (real, conversion-time or index) arguments.
Output: numpy's value; anything numpy would make of a complex other argument is refused.
"""

from __future__ import annotations

import ast
from typing import Any

import numpy as np

from pyonnx.frontend.graph.complex_values import Complex, is_complex, make
from pyonnx.frontend.graph.values import Array
from pyonnx.frontend.lower import complex_ops as ops
from pyonnx.frontend.lower.complex_functions import partwise
from pyonnx.frontend.numpy_calls import lookup

__all__ = ["FUNCS", "METHODS"]


def _first(ctx, name: str, a: Any, rest: tuple, kwargs: dict) -> Complex:
    if not isinstance(a, Complex):
        raise ctx.error(f"np.{name} with a complex argument other than the array is not "
                        "supported yet")
    if any(is_complex(v) for v in list(rest) + list(kwargs.values())):
        raise ctx.error(f"np.{name} with complex values other than the array is not "
                        "supported yet")
    return a


def _parts(func, name: str):
    """``func(z, *rest, **kwargs)`` as the real lowering of each part (a new array)."""
    def lower(ctx, a, *rest, **kwargs):
        z = _first(ctx, name, a, rest, kwargs)
        entry = lookup(func)
        out = partwise(ctx, z, lambda p: entry.fn(ctx, p, *rest, **kwargs))
        return ops.new_copy(ctx, out) if out.re.value is z.re.value else out
    return lower


def _nan_to_num(ctx, x, copy=True, nan=0.0, posinf=None, neginf=None):
    if not ctx.static(copy, "copy"):
        raise ctx.error("np.nan_to_num(z, copy=False) writes into z; write z = "
                        "np.nan_to_num(z) instead")
    return _parts(np.nan_to_num, "nan_to_num")(ctx, x, nan=nan, posinf=posinf, neginf=neginf)


def _sum(ctx, a, axis=None, dtype=None, out=None, keepdims=False, initial=np._NoValue,
         where=np._NoValue):
    """``np.sum(z, ...)`` / ``z.sum(...)``: each part summed (numpy's complex sum adds the
    parts), ``dtype=`` a complex dtype (the parts cast first), ``initial=`` split into its
    real part (for the real parts) and its imaginary part (a real ``initial`` adds to the real
    parts only: the same number added to both parts was wrong)."""
    from pyonnx.frontend.graph.complex_values import parts
    if out is not None:
        raise ctx.error("np.sum(..., out=) of a complex array is not supported; assign the "
                        "result")
    z = _first(ctx, "sum", a, (), {"where": where} if where is not np._NoValue else {})
    dt = np.dtype(ctx.static(dtype, "dtype")) if dtype is not None else z.dtype
    if dt.kind != "c":
        raise ctx.error(f"Cannot cast ufunc 'add' input from dtype('{z.dtype}') to "
                        f"dtype('{dt}') with casting rule 'same_kind' (numpy raises "
                        "TypeError); take np.real(z) or np.abs(z) first")
    z = make(ctx, z.re, z.im, dt) if dt != z.dtype else z
    kw: dict = {"axis": axis, "keepdims": keepdims}
    if where is not np._NoValue:
        kw["where"] = where
    entry = lookup(np.sum)
    if initial is np._NoValue or initial is None:
        return partwise(ctx, z, lambda p: entry.fn(ctx, p, **kw))
    if (initial.ndim if isinstance(initial, (Complex, Array)) else np.ndim(initial)) != 0:
        raise ctx.error("np.sum(z, initial=...): initial must be a number")
    if isinstance(initial, (Complex, Array)):
        ir, ii = parts(ctx, initial, dt)
    else:  # a conversion-time number: its parts as numbers
        c = complex(initial)
        ir, ii = c.real, c.imag
    re = entry.fn(ctx, z.re, initial=ir, **kw)
    im = entry.fn(ctx, z.im, initial=ii, **kw)
    return make(ctx, re, im, dt)


def _truth(func, name: str):
    def lower(ctx, a, *rest, **kwargs):
        z = _first(ctx, name, a, rest, kwargs)
        return lookup(func).fn(ctx, ops.truth(ctx, z), *rest, **kwargs)
    return lower


def _ptp(ctx, a, axis=None, out=None, keepdims=False):
    from pyonnx.frontend.lower.complex_order import FUNCS as ORDER
    if out is not None:
        raise ctx.error("np.ptp(..., out=) is not supported; assign the result")
    z = _first(ctx, "ptp", a, (), {})
    hi = ORDER[np.max](ctx, z, axis=axis, keepdims=keepdims)
    lo = ORDER[np.min](ctx, z, axis=axis, keepdims=keepdims)
    return ops.binary(ctx, ast.Sub, hi, lo)


def _average(ctx, a, axis=None, weights=None, returned=False, *, keepdims=np._NoValue):
    from pyonnx.frontend.lower.complex_reductions import mean
    if weights is not None or ctx.static(returned, "returned"):
        raise ctx.error("np.average(z, weights=/returned=) of a complex array is not supported "
                        "yet; write (z * w).sum() / w.sum()")
    z = _first(ctx, "average", a, (), {})
    return mean(ctx, z, axis=axis, keepdims=False if keepdims is np._NoValue else keepdims)


def _round(ctx, a, decimals=0, out=None):
    if out is not None:
        raise ctx.error("np.round(..., out=) of a complex array is not supported; assign the "
                        "result")
    return _parts(np.round, "round")(ctx, a, decimals)


def _isclose(ctx, a, b, rtol=1e-05, atol=1e-08, equal_nan=False):
    """numpy's ``isclose`` with complex values: ``abs(x - y) <= atol + rtol * abs(y)`` where
    ``y`` is finite (both parts), or ``x == y``; ``equal_nan``: NaN (either part) on both."""
    from pyonnx.frontend.lower import complex_functions as F
    rtol, atol = ctx.static(rtol, "rtol"), ctx.static(atol, "atol")
    if not all(isinstance(v, (int, float)) and not isinstance(v, bool) for v in (rtol, atol)):
        raise ctx.error("np.isclose of complex values takes real numbers known at conversion "
                        "time as rtol/atol")
    equal_nan = bool(ctx.static(equal_nan, "equal_nan"))
    from pyonnx.frontend.graph.complex_values import parts

    def as_complex(v):  # a conversion-time complex number as a (weak for Python's) Complex
        if is_complex(v) and not isinstance(v, Complex):
            dt = np.dtype(v.dtype if hasattr(v, "dtype") else np.complex128)
            return make(ctx, *parts(ctx, v, dt), dt, not hasattr(v, "dtype"))
        return v
    a, b = as_complex(a), as_complex(b)
    if isinstance(b, Array) and b.dtype.kind in "biu":  # numpy makes y inexact first
        b = ctx.cast(b, np.float64)
    elif not isinstance(b, (Complex, Array)) and not is_complex(b):
        b = float(b) if isinstance(b, (int, float, np.integer, np.floating)) else b

    def fn(name, v):
        if isinstance(v, Complex):
            return F.FUNCS[getattr(np, name)](ctx, v)
        return lookup(getattr(np, name)).fn(ctx, v)
    r = ops.R(ctx)
    diff = ops.binary(ctx, ast.Sub, a, b) if (isinstance(a, Complex) or isinstance(
        b, Complex) or is_complex(a) or is_complex(b)) else r.subtract(a, b)
    close = r.less_equal(fn("absolute", diff), r.add(atol, r.multiply(rtol, fn("absolute", b))))
    result = r.logical_or(r.logical_and(close, fn("isfinite", b)),
                          ops.compare(ctx, ast.Eq, a, b))
    if equal_nan:
        result = r.logical_or(result, r.logical_and(fn("isnan", a), fn("isnan", b)))
    return result


def _allclose(ctx, a, b, rtol=1e-05, atol=1e-08, equal_nan=False):
    """``np.allclose``: ``bool(np.all(np.isclose(...)))``, a Python bool."""
    import builtins
    close = _isclose(ctx, a, b, rtol, atol, equal_nan)
    return lookup(builtins.bool).fn(ctx, lookup(np.all).fn(ctx, close))


def _dtype_of(v: Any) -> np.dtype:
    if isinstance(v, (Complex, Array)):
        return v.dtype
    return np.asarray(v).dtype if not isinstance(v, complex) else np.dtype(np.complex128)


def _split_parts(ctx, v: Any, dt: np.dtype) -> tuple:
    """``v``'s real and imaginary parts in ``dt``'s real dtype (conversion-time values stay
    numpy values, so the real lowering sees constants)."""
    from pyonnx.frontend.graph.complex_values import parts, real_dtype
    if isinstance(v, (Complex, Array)):
        return parts(ctx, v, dt)
    c = np.asarray(v).astype(dt)
    rd = real_dtype(dt)
    return c.real.astype(rd), c.imag.astype(rd)


def _values_call(func, name: str, array_pos: int, value_names: tuple):
    """``func(arr, ..., values)`` (append/insert/pad) where the array or a value is complex:
    the real lowering on the real parts and on the imaginary parts, in numpy's result dtype
    (a real value's imaginary parts are zeros)."""
    def lower(ctx, *args, **kwargs):
        args = list(args)
        params = {k: kwargs[k] for k in value_names if k in kwargs}
        positions = [i for i in range(len(args)) if i == array_pos or i > array_pos and
                     i - array_pos in _VALUE_POS.get(name, ())]
        vals = [args[i] for i in positions] + list(params.values())
        dt = np.result_type(*[_dtype_of(v) for v in vals])
        if dt.kind != "c":
            dt = np.result_type(dt, np.complex64)
        if name == "insert" or name == "pad":
            dt = _dtype_of(args[array_pos])  # (numpy casts the values into the array's dtype)
            if dt.kind != "c":
                raise ctx.error(f"np.{name} of complex values into a real array is not "
                                "supported (numpy casts them, dropping the imaginary parts, "
                                "or raises); make the array complex")
        split = {i: _split_parts(ctx, args[i], dt) for i in positions}
        split_kw = {k: _split_parts(ctx, v, dt) for k, v in params.items()}
        entry = lookup(func)
        out = []
        for part in (0, 1):
            a = [split[i][part] if i in split else v for i, v in enumerate(args)]
            kw = dict(kwargs)
            kw.update({k: p[part] for k, p in split_kw.items()})
            out.append(entry.fn(ctx, *a, **kw))
        return make(ctx, out[0], out[1], dt)
    return lower


# positions (after the array) of value arguments: np.append(arr, values), np.insert(arr, obj,
# values)
_VALUE_POS = {"append": (1,), "insert": (2,)}


def _pad(ctx, array, pad_width, mode="constant", **kwargs):
    mode = ctx.static(mode, "mode")
    if mode not in ("constant", "edge", "wrap", "reflect", "symmetric", "empty"):
        raise ctx.error(f"np.pad(..., mode={mode!r}) of a complex array is not supported yet")
    if mode == "empty":
        raise ctx.error("np.pad(..., mode='empty') leaves numpy's uninitialized memory; use "
                        "mode='constant'")
    if set(kwargs) - {"constant_values", "reflect_type"}:
        raise ctx.error("np.pad of a complex array takes constant_values= and reflect_type= "
                        "only")
    return _values_call(np.pad, "pad", 0, ("constant_values",))(
        ctx, array, pad_width, mode=mode, **kwargs)


FUNCS = {np.round: _round, np.isclose: _isclose, np.allclose: _allclose,
         np.append: _values_call(np.append, "append", 0, ("values",)),
         np.insert: _values_call(np.insert, "insert", 0, ("values",)), np.pad: _pad, np.around: _round,
         np.delete: _parts(np.delete, "delete"), np.resize: _parts(np.resize, "resize"),
         np.nan_to_num: _nan_to_num, np.sum: _sum,
         np.flatnonzero: _truth(np.flatnonzero, "flatnonzero"),
         np.argwhere: _truth(np.argwhere, "argwhere"), np.ptp: _ptp, np.average: _average,
         # (numpy's rint of a complex value rounds each part half to even, as np.round)
         np.rint: lambda ctx, z, out=None: _round(ctx, z, 0, out)}
METHODS = {"round": lambda ctx, z, decimals=0, out=None: _round(ctx, z, decimals, out),
           "sum": lambda ctx, z, *a, **k: _sum(ctx, z, *a, **k),
           "ptp": lambda ctx, z, *a, **k: _ptp(ctx, z, *a, **k)}
