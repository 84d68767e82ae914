"""numpy functions of complex values: parts, conj/astype/abs/angle, elementwise math, where,
products; and the partwise helper (a linear function run on each part). The table ``FUNCS`` is
what :mod:`complex_calls` dispatches to (creation with a complex dtype is
:mod:`complex_creation`; prod/mean/norm and the ufunc reductions, :mod:`complex_reductions`,
and median/unique, :mod:`complex_sorted`, use :func:`partwise` and are merged by
:mod:`complex_calls`).

Input: frontend values (Complex, Arrays, static values). Output: numpy's value (a Complex or a
real Array); a ConversionError for arguments these lowerings do not take.
"""

from __future__ import annotations

import builtins
from typing import Any

import numpy as np

from pyonnx.frontend.graph import complex_kinds
from pyonnx.frontend.graph.complex_values import Complex, make, parts, zeros_like
from pyonnx.frontend.graph.values import Array, is_static
from pyonnx.frontend.lower import complex_ops as ops
from pyonnx.frontend.numpy_calls import lookup, lookup_attribute

__all__ = ["FUNCS", "partwise", "part_view", "part_views", "dtype_of", "astype", "conj",
           "make_value"]


def _static_size(ctx, z: Complex) -> Any:
    return lookup_attribute_of(ctx, z.re, "size")


def lookup_attribute_of(ctx, a: Array, name: str) -> Any:
    return lookup_attribute(name)(ctx, a)


def part_view(ctx, z: Complex, part: Array, which: str = "") -> Array:
    """A part of ``z`` as numpy's view of it: an alias of ``z``'s part buffer when its memory
    is followed (complex_aliases.part_alias); else registered as a view pyonnx refuses to write
    through (a write into ``z`` makes it stale)."""
    from pyonnx.frontend.graph.scalar_kinds import mark_array0d
    from pyonnx.frontend.lower.aliases import UNKNOWN, register_view
    array0d = complex_kinds.kind(z) in ("array", "unknown")
    if z.ndim == 0 and not array0d:  # a numpy scalar's part is a numpy scalar (a copy)
        # (a Python complex's is a Python float, on the paths where it is one)
        from pyonnx.frontend.lower.control_flow.complex_paths import real_result
        return real_result(ctx, z, Array(part.value, part.dtype, part.shape), exact=True)
    from pyonnx.frontend.lower import complex_aliases as CA
    which = which or ("re" if part is z.re else "im")
    alias = CA.part_alias(ctx, z, which)
    if alias is not None:
        # an alias of z's part buffer (complex_aliases): writes through it reach z, writes
        # into z show through it, as numpy's strided view does
        if z.ndim == 0:
            mark_array0d(ctx, alias)
        return alias
    view = register_view(ctx, part, part, UNKNOWN)
    if z.ndim == 0:
        # the part of a 0-d *array* (an argument, a view) is a 0-d view: ``r += 1`` writes
        # into it (fuzz seed 978620), which is refused as for every part view
        mark_array0d(ctx, view)
    part_views(ctx).add(id(view))
    return view


def part_views(ctx) -> set:
    """ids of the Arrays that are ``.real``/``.imag`` views of complex values (held by the
    Arrays' registration in ctx.aliases, so the ids stay unique)."""
    found = getattr(ctx, "complex_part_views", None)
    if found is None:
        found = ctx.complex_part_views = set()
    return found


def partwise(ctx, z: Complex, fn, view: bool = False) -> Any:
    re, im = fn(z.re), fn(z.im)
    if isinstance(re, Array) and isinstance(im, Array):
        out = Complex(re, im, z.dtype, z.weak and re.ndim == 0)
        if view:
            out.base, out.mem = z, z.mem
        return out
    if isinstance(re, tuple) and isinstance(im, tuple):  # split-like results
        return tuple(Complex(a, b, z.dtype) for a, b in zip(re, im))
    raise ctx.error("pyonnx bug: a partwise complex lowering gave mismatched parts")



def dtype_of(v: Any) -> Any:
    if isinstance(v, (Complex, Array)):
        return v.dtype
    return np.asarray(v).dtype


# ------------------------------------------------------------------ functions
def conj(ctx, z: Any) -> Any:
    if not isinstance(z, Complex):
        return lookup(np.conjugate).fn(ctx, z)
    return make(ctx, z.re, ops.R(ctx).negative(z.im), z.dtype, z.weak)


def astype(ctx, a: Any, dtype: Any, order: Any = "K", casting: Any = "unsafe",
           subok: Any = True, copy: Any = True) -> Any:
    """``a.astype(dtype)``: to complex, the parts cast; from complex to a real dtype, the real
    part (numpy's ComplexWarning); to bool, whether either part is nonzero."""
    dt = np.dtype(complex if dtype is complex else ctx.static(dtype, "dtype"))
    casting = ctx.static(casting, "casting")
    src = a.dtype
    if not np.can_cast(src, dt, casting=casting):
        raise ctx.error(f"Cannot cast array data from dtype('{src}') to dtype('{dt}') "
                        f"according to the rule '{casting}'")
    if dt.kind == "c":
        if isinstance(a, Complex):
            if dt == a.dtype and not ctx.static(copy, "copy"):
                return a  # numpy returns the array itself (no cast needed, no copy asked)
            # a copy (numpy's default): never the parts of ``a`` (complex-only fuzz seed 614)
            return fresh_copy(make(ctx, a.re, a.im, dt), a)
        re, im = parts(ctx, a, dt)
        return make(ctx, re, im, dt)
    if dt.kind == "b":
        return ops.truth(ctx, a)
    return ctx.cast(a.re, dt)


def fresh_copy(out: Complex, src: Complex) -> Complex:
    """``out`` (numpy's new array made from ``src``: a copy, a cast to the same dtype) with
    part objects of its own where it reuses ``src``'s: complex_aliases may have registered
    those as ``src``'s memory, and a write into the copy then reached ``src`` (an argument:
    the caller's array; complex-only fuzz seeds 614, 870)."""
    if out.re is not src.re and out.im is not src.im:
        return out
    copy = Complex(Array(out.re.value, out.re.dtype, out.re.shape),
                   Array(out.im.value, out.im.dtype, out.im.shape), out.dtype, out.weak)
    return copy


def make_value(ctx, func: Any, args: list, kwargs: dict) -> Any:
    """``np.complex128(x)``, ``np.complex64(x)``, ``complex(re, im)``."""
    if is_static(list(args)) and is_static(list(kwargs.values())):
        try:
            return func(*args, **kwargs)  # a conversion-time number or array
        except Exception as e:
            raise ctx.error(f"{type(e).__name__}: {e}") from None
    if func is builtins.complex:
        if kwargs or not 1 <= len(args) <= 2:
            raise ctx.error("complex() takes (real, imag) here")
        re = args[0]
        im = args[1] if len(args) == 2 else 0.0
        for v in (re, im):
            if isinstance(v, Array) and v.ndim != 0:
                raise ctx.error("complex() takes numbers (0-d values); for arrays write "
                                "re + 1j * im")
        if isinstance(re, Complex) or isinstance(im, Complex):
            r = ops.R(ctx)
            rr, ri = parts(ctx, re, np.complex128)
            ir_, ii = parts(ctx, im, np.complex128)
            return make(ctx, r.subtract(rr, ii), r.add(ri, ir_), np.complex128, weak=True)
        return make(ctx, re, im, np.complex128, weak=True)
    if kwargs or len(args) != 1:
        raise ctx.error(f"np.{func.__name__}() takes one value here")
    return astype(ctx, args[0] if isinstance(args[0], (Array, Complex))
                  else ctx.asarray(args[0]), np.dtype(func))


def real(ctx, z: Any) -> Any:
    if isinstance(z, Complex):
        return part_view(ctx, z, z.re, "re")
    if isinstance(z, Array):
        from pyonnx.frontend.lower.aliases import UNKNOWN, register_view
        return register_view(ctx, z, z, UNKNOWN)
    return np.real(z)


def imag(ctx, z: Any) -> Any:
    if isinstance(z, Complex):
        return part_view(ctx, z, z.im, "im")
    if isinstance(z, Array):
        return zeros_like(ctx, z)
    return np.imag(z)


def absolute(ctx, z: Any) -> Array:
    from pyonnx.frontend.lower.complex_abs_compare import record
    # (recorded: ``abs(z) <= 2.0`` then compares re*re + im*im, complex_abs_compare)
    return record(ctx, ops.hypot(ctx, z.re, z.im), z.re, z.im)


def builtin_abs(ctx, z: Any) -> Array:
    """Python's ``abs``: of a Python complex a Python float (np.abs gives a numpy float64)."""
    from pyonnx.frontend.lower.control_flow.complex_paths import real_result
    out = absolute(ctx, z)
    return real_result(ctx, z, out, exact=False) if z.ndim == 0 else out


def angle(ctx, z: Any, deg: Any = False) -> Array:
    r = ops.R(ctx)
    if isinstance(z, Complex):
        out = r.arctan2(z.im, z.re)
    else:
        z = ctx.asarray(z)
        out = r.arctan2(zeros_like(ctx, z), z)
    if ctx.static(deg, "deg"):
        out = r.multiply(out, 180 / np.pi)
    return out


_unary = ops.unary_parts


def _square(ctx, re, im):
    return ops.mul(ops.R(ctx), re, im, re, im)


def _negative(ctx, re, im):
    r = ops.R(ctx)
    return r.negative(re), r.negative(im)


def _positive(ctx, re, im):  # new arrays: np.positive(z) never shares z's memory
    r = ops.R(ctx)
    return r.positive(re), r.positive(im)


def _binary_ufunc(op):
    import ast as _ast

    def lower(ctx, a, b, **kwargs):
        if kwargs:
            raise ctx.error("out=/where=/dtype= are not supported with complex values yet")
        return ops.binary(ctx, getattr(_ast, op), a, b)
    return lower


def _compare_ufunc(op):
    import ast as _ast

    def lower(ctx, a, b, **kwargs):
        if kwargs:
            raise ctx.error("out=/where= are not supported with complex values yet")
        return ops.compare(ctx, getattr(_ast, op), a, b)
    return lower


def _predicate(kind: str):
    def lower(ctx, z, **kwargs):
        r = ops.R(ctx)
        if not isinstance(z, Complex):
            return getattr(r, kind)(z)
        a, b = getattr(r, kind)(z.re), getattr(r, kind)(z.im)
        return r.logical_and(a, b) if kind == "isfinite" else r.logical_or(a, b)
    return lower


def where(ctx, condition, x=None, y=None):
    if isinstance(x, (tuple, list)) or isinstance(y, (tuple, list)):
        # (numpy would stack the items into one array; the loop vectorizer also selects
        # tuples of return values this way)
        raise ctx.error("np.where with a tuple or list holding complex values is not "
                        "supported; make it an array first (np.array([...]))")
    if x is None or y is None:
        raise ctx.error("np.where(condition) of a complex array is not supported; write "
                        "np.nonzero(z != 0)")
    dt = np.result_type(dtype_of(x) if isinstance(x, (Array, Complex)) else ops._proxy(x),
                        dtype_of(y) if isinstance(y, (Array, Complex)) else ops._proxy(y))
    if isinstance(condition, Complex):
        condition = ops.truth(ctx, condition)
    dt, _ = ops.result_dtype(ctx, np.add, x, y)
    xr, xi = parts(ctx, x, dt)
    yr, yi = parts(ctx, y, dt)
    w = lookup(np.where).fn
    return make(ctx, w(ctx, condition, xr, yr), w(ctx, condition, xi, yi), dt)


def _on_truth(func):
    """A function of ``z != 0`` only (nonzero, any, all, count_nonzero, bool)."""
    def lower(ctx, a, *rest, **kwargs):
        t = ops.truth(ctx, a) if isinstance(a, Complex) else a
        return lookup(func).fn(ctx, t, *rest, **kwargs)
    return lower


def _product(name, *keywords):
    def lower(ctx, a, b, *rest, **kwargs):
        from pyonnx.frontend.lower.complex_linalg import product
        if rest:
            kwargs.update(zip(keywords, rest))
        if set(kwargs) - set(keywords) or len(rest) > len(keywords):
            raise ctx.error(f"np.{name}(..., out=) with complex values is not supported yet")
        return product(ctx, name, a, b, **kwargs)
    return lower


def _vdot(ctx, a, b):
    from pyonnx.frontend.lower.complex_linalg import vdot
    return vdot(ctx, a, b)


def _iscomplexobj(ctx, x):
    return isinstance(x, Complex)


def _math_unary(name):
    from pyonnx.frontend.lower import complex_elementary as E
    return _unary(getattr(E, name, None) or getattr(ops, name))


FUNCS = {
    np.real: real, np.imag: imag, np.conj: conj, np.conjugate: conj,
    np.absolute: absolute, builtins.abs: builtin_abs, np.angle: angle,
    np.exp: _math_unary("exp"), np.log: _math_unary("log"), np.sqrt: _math_unary("sqrt"),
    np.sin: _math_unary("sin"), np.cos: _math_unary("cos"), np.sinh: _math_unary("sinh"),
    np.cosh: _math_unary("cosh"), np.log10: _math_unary("log10"), np.log2: _math_unary("log2"),
    np.sign: _math_unary("sign"),
    np.nonzero: _on_truth(np.nonzero), np.any: _on_truth(np.any), np.all: _on_truth(np.all),
    np.count_nonzero: _on_truth(np.count_nonzero), builtins.bool: _on_truth(builtins.bool),
    np.square: _unary(_square),
    np.reciprocal: _math_unary("reciprocal"), np.negative: _unary(_negative),
    np.positive: _unary(_positive),
    np.add: _binary_ufunc("Add"), np.subtract: _binary_ufunc("Sub"),
    np.multiply: _binary_ufunc("Mult"), np.divide: _binary_ufunc("Div"),
    np.power: _binary_ufunc("Pow"),
    np.equal: _compare_ufunc("Eq"), np.not_equal: _compare_ufunc("NotEq"),
    np.isnan: _predicate("isnan"), np.isinf: _predicate("isinf"),
    np.isfinite: _predicate("isfinite"), np.where: where,
    np.matmul: _product("matmul"), np.dot: _product("dot"), np.inner: _product("inner"),
    np.outer: _product("outer"), np.vdot: _vdot,
    np.tensordot: _product("tensordot", "axes"), np.kron: _product("kron"),
    np.astype: astype,
    np.iscomplexobj: _iscomplexobj, np.isrealobj: lambda ctx, x: not isinstance(x, Complex),
}
# np.iscomplex/isreal/real_if_close have their own module (this one is full).
from pyonnx.frontend.lower.complex_queries import FUNCS as _QUERIES  # noqa: E402
from pyonnx.frontend.lower.complex_math import FUNCS as _MATH  # noqa: E402
from pyonnx.frontend.lower.complex_order import FUNCS as _ORDER  # noqa: E402
from pyonnx.frontend.lower.complex_linalg import einsum as _einsum  # noqa: E402
from pyonnx.frontend.lower.complex_creation import FUNCS as _CREATION  # noqa: E402
from pyonnx.frontend.lower.complex_signal import FUNCS as _SIGNAL  # noqa: E402

FUNCS.update(_QUERIES)
FUNCS.update(_MATH)
FUNCS.update(_ORDER)
FUNCS.update(_CREATION)
FUNCS.update(_SIGNAL)
FUNCS[np.einsum] = _einsum
