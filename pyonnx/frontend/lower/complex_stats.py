"""Statistics and selections of complex values: var/std, the NaN-ignoring reductions
(nansum/nanmean/nanprod/nancumsum/nancumprod/nanvar/nanstd), np.select, and np.array/np.asarray
of lists holding complex values.

Input: frontend values of which one is complex. Output: numpy's value.

* A complex element "is NaN" for numpy's nan-functions when either part is NaN
  (``np.isnan``): the whole element is replaced (0 for sums, 1 for products) or left out.
  Running the real nan-function on each part separately would be wrong (each part would skip
  its own NaNs), so the parts are masked together first.
* ``var(z)`` is ``mean(|z - mean(z)|^2)``, real, of the parts' dtype: the variance of the real
  part plus the variance of the imaginary part (numpy sums re^2 + im^2 of the deviations;
  the two sums round alike to an ulp).
"""

from __future__ import annotations

from typing import Any

import numpy as np

from pyonnx.frontend.graph import dtypes
from pyonnx.frontend.graph.complex_values import Complex, make, parts, real_dtype
from pyonnx.frontend.graph.values import Array
from pyonnx.frontend.lower.complex_ops import R

__all__ = ["FUNCS"]


def _masked(ctx, z: Complex, fill: Any) -> Complex:
    """``z`` with every element that has a NaN part replaced by ``fill`` (both parts), or by
    NaN in both parts for ``fill`` None."""
    r = R(ctx)
    nan = r.logical_or(r.isnan(z.re), r.isnan(z.im))
    fr, fi = (np.nan, np.nan) if fill is None else (complex(fill).real, complex(fill).imag)
    return make(ctx, r.where(nan, fr, z.re), r.where(nan, fi, z.im), z.dtype)


def _no_extras(ctx, fname: str, **kwargs: Any) -> None:
    bad = [k for k, v in kwargs.items() if v is not None]
    if bad:
        raise ctx.error(f"{fname}(..., {bad[0]}=) of a complex array is not supported yet")


def _nan_partwise(name: str, fill: Any):
    """nansum/nanmean/nancumsum: the masked parts through the real function."""
    def lower(ctx, a, axis=None, dtype=None, out=None, keepdims=False, **rest):
        _no_extras(ctx, f"np.{name}", dtype=dtype, out=out, **rest)
        z = _masked(ctx, a, fill)
        r = R(ctx)
        if name == "nanmean":  # numpy: nansum / count, a complex division (complex_reductions)
            from pyonnx.frontend.lower.complex_reductions import divide_by_count
            total = make(ctx, r.sum(z.re, axis=axis, keepdims=keepdims),
                         r.sum(z.im, axis=axis, keepdims=keepdims), z.dtype)
            kept = r.logical_not(r.logical_or(r.isnan(a.re), r.isnan(a.im)))
            return divide_by_count(ctx, total, r.sum(r.astype(kept, np.float64), axis=axis,
                                                     keepdims=keepdims))
        fn = getattr(r, name)
        kw = {} if name == "nancumsum" else {"keepdims": keepdims}
        return make(ctx, fn(z.re, axis=axis, **kw), fn(z.im, axis=axis, **kw), z.dtype)
    return lower


def _nan_product(cumulative: bool):
    def lower(ctx, a, axis=None, dtype=None, out=None, keepdims=False, **rest):
        from pyonnx.frontend.lower.complex_reductions import prod

        _no_extras(ctx, "np.nancumprod" if cumulative else "np.nanprod", dtype=dtype, out=out,
                   **rest)
        z = _masked(ctx, a, 1.0)
        return prod(ctx, z, axis, keepdims=keepdims, cumulative=cumulative)
    return lower


def _variance(name: str, nan: bool, root: bool):
    def lower(ctx, a, axis=None, dtype=None, out=None, ddof=0, keepdims=False, **rest):
        _no_extras(ctx, f"np.{name}", dtype=dtype, out=out, **{k: v for k, v in rest.items()
                                                              if k != "mean"})
        if rest.get("mean") is not None:
            raise ctx.error(f"np.{name}(..., mean=) of a complex array is not supported yet")
        z = _masked(ctx, a, None) if nan else a
        r = R(ctx)
        fn = r.nanvar if nan else r.var
        out_ = r.add(fn(z.re, axis=axis, ddof=ddof, keepdims=keepdims),
                     fn(z.im, axis=axis, ddof=ddof, keepdims=keepdims))
        return r.sqrt(out_) if root else out_
    return lower


def select(ctx, condlist, choicelist, default=0):
    """``np.select`` with complex choices or default: the first true condition's choice."""
    from pyonnx.frontend.lower.complex_functions import where

    if not isinstance(condlist, (list, tuple)) or not isinstance(choicelist, (list, tuple)):
        raise ctx.error("np.select: condlist and choicelist must be lists or tuples of arrays")
    if len(condlist) != len(choicelist):
        raise ctx.error("list of cases must be same length as list of conditions (numpy "
                        "raises ValueError)")
    if not condlist:
        raise ctx.error("select with an empty condition list is not possible (numpy raises "
                        "ValueError)")
    dt = np.result_type(*(_value_proxy(v) for v in (*choicelist, default)))
    from pyonnx.frontend.lower.control_flow import complex_paths
    complex_paths.check_operands(ctx, "np.select", (*choicelist, default), dt, lambda alt:
                                 np.result_type(*(_value_proxy(v) for v in alt)))
    conds = [c if isinstance(c, Array) else ctx.asarray(c) for c in condlist]
    for i, c in enumerate(conds):
        if c.dtype != np.bool_:
            raise ctx.error(f"invalid entry {i} in condlist: should be boolean ndarray (numpy "
                            "raises TypeError)")
    result = make(ctx, *parts(ctx, default, dt), dt)
    for cond, choice in reversed(list(zip(conds, choicelist))):
        result = where(ctx, cond, make(ctx, *parts(ctx, choice, dt), dt), result)
        result = make(ctx, result.re, result.im, dt)
    return result


def _value_proxy(v: Any) -> Any:
    """What stands for ``v`` in np.result_type: a dtype, or a Python number of the kind of a
    weak value (np.result_type treats Python numbers, not their types, as weak)."""
    if isinstance(v, Complex):
        return 0j if v.weak else v.dtype
    p = dtypes.proxy(v)
    return p(0) if isinstance(p, type) else p


def _leaf_dtype(v: Any) -> np.dtype:
    if isinstance(v, (Complex, Array)):
        return v.dtype
    return np.asarray(v).dtype  # (np.array: Python numbers are int64/float64/complex128)


def _leaves(x: Any) -> list:
    if isinstance(x, (list, tuple)):
        return [w for v in x for w in _leaves(v)]
    return [x]


def _map(x: Any, fn) -> Any:
    if isinstance(x, (list, tuple)):
        return [_map(v, fn) for v in x]
    return fn(x)



def array(ctx, obj, dtype=None, *, copy=True, order="K", subok=False, ndmin=0, like=None):
    """``np.array(obj)`` of a complex array (a copy) or of a (nested) list holding complex
    values: the parts' lists through the real np.array."""
    if ctx.static(ndmin, "ndmin") != 0 or like is not None or \
            ctx.static(order, "order") not in ("K", "A", "C", None):
        raise ctx.error("np.array(..., ndmin=/order=/like=) of complex values is not "
                        "supported yet")
    dt = None if dtype is None else np.dtype(complex if dtype is complex else
                                             ctx.static(dtype, "dtype"))
    if isinstance(obj, Complex):
        want = dt or obj.dtype
        if want.kind != "c":
            from pyonnx.frontend.lower.complex_functions import astype
            return astype(ctx, obj, want)
        if want == obj.dtype and ctx.static(copy, "copy") is not True:
            return obj  # (copy=False/None: numpy returns the array itself when it can)
        from pyonnx.frontend.lower.complex_functions import fresh_copy
        return fresh_copy(make(ctx, obj.re, obj.im, want), obj)  # a copy: memory of its own
    if not isinstance(obj, (list, tuple)):
        raise ctx.error("np.array of this complex value is not supported yet")
    if dt is None:
        dt = np.result_type(*(_leaf_dtype(v) for v in _leaves(obj)))
    if dt.kind != "c":
        raise ctx.error("np.array of complex values with a real dtype: numpy raises TypeError "
                        "(write np.real(...) of the values)")
    rd = real_dtype(dt)
    split = _map(obj, lambda v: _Pair(*parts(ctx, v, dt)))
    real_array = R(ctx).array
    re = real_array(_map(split, lambda p: p.re), dtype=rd)
    im = real_array(_map(split, lambda p: p.im), dtype=rd)
    return make(ctx, re, im, dt)


class _Pair:
    """One leaf's parts (not a tuple: _map walks tuples)."""

    __slots__ = ("re", "im")

    def __init__(self, re: Any, im: Any):
        self.re, self.im = re, im


def asarray(ctx, a, dtype=None, order=None, *, device=None, copy=None, like=None):
    """``np.asarray``: a complex array itself (numpy returns the same object), else np.array."""
    if isinstance(a, Complex) and (dtype is None or np.dtype(ctx.static(dtype, "dtype")) ==
                                   a.dtype):
        return a
    return array(ctx, a, dtype, order="K" if order is None else order, like=like)


FUNCS = {np.nansum: _nan_partwise("nansum", 0.0), np.nanmean: _nan_partwise("nanmean", 0.0),
         np.nancumsum: _nan_partwise("nancumsum", 0.0), np.nanprod: _nan_product(False),
         np.nancumprod: _nan_product(True), np.var: _variance("var", False, False),
         np.std: _variance("std", False, True), np.nanvar: _variance("nanvar", True, False),
         np.nanstd: _variance("nanstd", True, True), np.select: select, np.array: array,
         np.asarray: asarray}
METHODS = {"var": FUNCS[np.var], "std": FUNCS[np.std]}
