"""``np.poly1d`` objects and ``np.poly``: polynomials as values of the conversion.

Input: coefficient arrays (highest power first) or roots. Output: :class:`Poly1d`, a frontend
value holding the trimmed coefficient Array (numpy's ``poly1d.coeffs``: leading zeros removed,
``[0]`` for the zero polynomial), whose operations follow numpy's ``poly1d`` methods through
the registered ``poly*`` lowerings (``science/polynomials.py``).

Supported syntax:

* ``p = np.poly1d(c)`` (``c`` a number or a 1-D array; a Poly1d copies), ``np.poly1d(r,
  r=True)`` from roots of static length; ``variable=`` a static string;
* ``p(x)`` (numpy's ``polyval``), ``p.coeffs`` / ``p.c`` / ``p.coef`` / ``p.coefficients``,
  ``p.order`` / ``p.o``, ``len(p)``, ``p[k]`` (static ``k``), ``p.variable``,
  ``p.deriv(m=1)``, ``p.integ(m=1, k=0)``, ``np.asarray(p)`` and any numpy function of ``p``
  (its coefficient array, as numpy's ``__array__``);
* ``p + q``, ``p - q``, ``p * q`` (``q`` a Poly1d, a number or an array: numpy's
  ``polyadd``/``polysub``/``polymul``; ``p * number`` scales), ``p / number``, ``-p``, ``+p``,
  ``p ** n`` (static ``n >= 0``); a number on the left as numpy's reflected methods; an
  array (not a Python number) on the left of ``p`` computes with ``p``'s coefficient array
  elementwise, as ``ndarray`` operators do in numpy.

Not supported: ``p.roots`` / ``np.roots`` (eigenvalues of the companion matrix: onnxruntime has
no eigenvalue solver), ``p(q)`` with a Poly1d ``q`` (composition), ``p / q`` (``polydiv``),
comparisons of polynomials, ``p / q`` unless both coefficient counts are known at
conversion time, and a Poly1d as a function's result (return ``p.coeffs``).
"""

from __future__ import annotations

import ast
import numbers
from typing import Any

import numpy as np

from pyonnx.frontend.graph.complex_values import static_dim
from pyonnx.frontend.graph.values import Array, is_static
from pyonnx.frontend.numpy_calls.registry import refuse, register
from pyonnx.frontend.numpy_calls.science import polynomials
from pyonnx.frontend.numpy_calls.science.compose import Np
from pyonnx.frontend.numpy_calls.shape import to_array
from pyonnx.frontend.numpy_calls.shape.common import ints

__all__ = ["Poly1d"]

_I64 = np.dtype(np.int64)


class _Method:
    """``p.deriv`` before it is called: the call lowers ``fn(*args, **kwargs)``."""

    def __init__(self, fn):
        self.fn = fn

    def __pyonnx_call__(self, lowering, args, kwargs):
        try:
            return self.fn(*args, **kwargs)
        except TypeError as e:
            if e.__traceback__ is not None and e.__traceback__.tb_next is None:
                raise lowering.ctx.error(f"poly1d: {e}") from None
            raise


class Poly1d:
    """A ``np.poly1d`` in the conversion: ``coeffs`` is a 1-D Array, already trimmed."""

    pyonnx_dynamic = True  # holds a graph value: never run by numpy at conversion time

    def __init__(self, ctx, coeffs: Array, variable: str = "x"):
        self.ctx = ctx
        self.coeffs = coeffs
        self.variable = variable

    def __repr__(self) -> str:
        return "poly1d(<coefficients computed in the model>)"

    # ------------------------------------------------------------------ protocols
    def __pyonnx_array__(self) -> Array:
        return self.coeffs

    def __pyonnx_call__(self, lowering, args, kwargs):
        if kwargs or len(args) != 1:
            raise self.ctx.error("poly1d(...) takes one argument, the points to evaluate at")
        if isinstance(args[0], Poly1d):
            raise self.ctx.error("p(q) of two poly1d (composition) is not supported; evaluate "
                                 "p(q(x)) at the points instead")
        return polynomials.polyval(self.ctx, self.coeffs, args[0])

    def __pyonnx_binary__(self, op: type, other: Any, reflected: bool) -> Any:
        """``self <op> other`` (or ``other <op> self`` when ``reflected``), as numpy."""
        ctx = self.ctx
        if reflected and isinstance(other, Array) and other.weak:
            # A Python number computed at run time: Python calls poly1d's reflected method.
            pass
        elif reflected and isinstance(other, Array):
            # ndarray / numpy-scalar operators take p as its coefficient array (the ufunc path)
            return NotImplemented
        N = Np(ctx)
        if reflected and isinstance(other, (np.ndarray, np.generic)):  # the same, static
            name = _UFUNC_NAMES.get(op)
            if name is None:
                raise ctx.error(f"the operator {op.__name__} between a numpy value and a "
                                "poly1d is not supported")
            return getattr(N, name)(ctx.asarray(other), self.coeffs)
        if op is ast.Add:
            return _make(ctx, polynomials.polyadd(ctx, self.coeffs, _coeffs(ctx, other)))
        if op is ast.Sub:
            a, b = self.coeffs, _coeffs(ctx, other)
            return _make(ctx, polynomials.polysub(ctx, *((b, a) if reflected else (a, b))))
        if op is ast.Mult:
            if _is_scalar(other):
                return _make(ctx, N.multiply(self.coeffs, other))
            return _make(ctx, polynomials.polymul(ctx, self.coeffs, _coeffs(ctx, other)))
        if op is ast.Div and not reflected and _is_scalar(other):
            return _make(ctx, N.true_divide(self.coeffs, other))
        if op is ast.Div:
            other = other if isinstance(other, Poly1d) else poly1d(ctx, other)
            a, b = (other, self) if reflected else (self, other)
            if None in (a.coeffs.shape[0], b.coeffs.shape[0]):
                raise ctx.error("p / q of polynomials whose coefficients are computed in the "
                                "model: np.polydiv's loop needs their (trimmed) lengths at "
                                "conversion time; divide by a number, or use np.polydiv on "
                                "coefficient arrays of known length")
            q, r = polydiv(ctx, a.coeffs, b.coeffs)
            return _make(ctx, q), _make(ctx, r)
        if op is ast.Pow and not reflected:
            n = other if is_static(other) else None
            if isinstance(n, (bool, np.bool_)) or not isinstance(n, numbers.Integral) or n < 0:
                raise ctx.error("Power to non-negative integers only (numpy raises ValueError);"
                                " the exponent must be known at conversion time")
            res = Array(ctx.const(np.array([1])), _I64, (1,))
            for _ in range(int(n)):
                res = polynomials.polymul(ctx, self.coeffs, res)
            return _make(ctx, res)
        raise ctx.error(f"the operator {op.__name__} is not supported between poly1d and "
                        f"{type(other).__name__}")

    def __eq__(self, other):
        if isinstance(other, (Poly1d, Array, numbers.Number, list, tuple, np.ndarray)):
            raise self.ctx.error("comparing poly1d objects is not supported; compare their "
                                 "coefficients: np.array_equal(p.coeffs, q.coeffs)")
        return NotImplemented

    __ne__ = __eq__
    __hash__ = object.__hash__

    def __neg__(self):
        return _make(self.ctx, Np(self.ctx).negative(self.coeffs), self.variable)

    def __pos__(self):
        return self

    # ------------------------------------------------------------------ attributes
    @property
    def c(self) -> Array:
        return self.coeffs

    coef = coefficients = c

    @property
    def order(self) -> Any:
        n = self.coeffs.shape[0]
        if n is not None:
            return n - 1
        length = polynomials._len(self.ctx, self.coeffs)
        return Array(self.ctx.op("Sub", length, self.ctx.const(np.array(1, np.int64))), _I64,
                     (), weak=True)

    o = order

    def __pyonnx_len__(self) -> Any:
        return self.order  # numpy's poly1d.__len__

    def __iter__(self):
        n = self.coeffs.shape[0]
        if n is None:
            raise self.ctx.error("iterating over a poly1d whose coefficients are computed in "
                                 "the model: their number is a run-time value; use p.coeffs")
        return iter([Np(self.ctx).getitem(self.coeffs, i) for i in range(n)])

    def __getitem__(self, val: Any) -> Any:
        ctx = self.ctx
        if not is_static(val) or not isinstance(val, numbers.Integral):
            raise ctx.error("p[k] of a poly1d takes an int known at conversion time")
        val = int(val)
        if val < 0:
            return 0
        order, dt = self.order, self.coeffs.dtype
        if not isinstance(order, Array):
            if val > order:
                return Array(ctx.const(np.zeros((), dt)), dt, ())
            return Np(ctx).getitem(self.coeffs, order - val)
        k = ctx.op("Max", ctx.op("Sub", order, ctx.const(np.array(val, np.int64))),
                   ctx.const(np.array(0, np.int64)))
        got = ctx.op("Gather", self.coeffs, k, axis=0)
        above = ctx.op("Less", order, ctx.const(np.array(val, np.int64)))
        return Array(ctx.op("Where", above, ctx.const(np.zeros((), dt)), got), dt, ())

    @property
    def roots(self):
        raise self.ctx.error(_ROOTS)

    r = roots

    @property
    def deriv(self) -> _Method:
        return _Method(lambda m=1: _make(self.ctx, polynomials.polyder(self.ctx, self.coeffs,
                                                                       m)))

    @property
    def integ(self) -> _Method:
        return _Method(lambda m=1, k=0: _make(self.ctx, polynomials.polyint(
            self.ctx, self.coeffs, m, k)))

    def __getattr__(self, name: str):
        raise AttributeError(f"'poly1d' object has no attribute '{name}' (or pyonnx does not "
                             "support it)")


_ROOTS = ("the roots of a polynomial (np.roots, poly1d.roots) are eigenvalues of its companion "
          "matrix: onnxruntime has no eigenvalue solver; compute them outside the compiled "
          "function")


_UFUNC_NAMES = {ast.Add: "add", ast.Sub: "subtract", ast.Mult: "multiply",
                ast.Div: "true_divide", ast.Pow: "power"}


def _is_scalar(v: Any) -> bool:
    """numpy's ``isscalar`` for a frontend value (a 0-d Array counts: scaling and ``polymul``
    by a one-element polynomial give the same values)."""
    if isinstance(v, Array):
        return v.ndim == 0
    return isinstance(v, (numbers.Number, np.generic))


def _coeffs(ctx, other: Any) -> Array:
    return other.coeffs if isinstance(other, Poly1d) else polynomials._poly1d_coeffs(ctx, other)


def _make(ctx, coeffs: Array, variable: str = "x") -> Poly1d:
    """``np.poly1d(coeffs)`` of an array computed in the model: leading zeros trimmed."""
    return Poly1d(ctx, polynomials._poly1d_coeffs(ctx, coeffs), variable)


@register(np.poly1d, static_eval=False, limits={
    "c_or_r": "the object's .roots and p(q) (composition) are refused, p / q needs "
              "coefficient counts known at conversion time; a poly1d cannot be a result "
              "(return p.coeffs)"})
def poly1d(ctx, c_or_r, r=False, variable=None):
    """``np.poly1d(c_or_r, r=False, variable=None)``: a :class:`Poly1d` (module doc)."""
    variable = ctx.static(variable, "variable")
    if variable is not None and not isinstance(variable, str):
        raise ctx.error("poly1d: variable must be a string")
    variable = variable or "x"
    if isinstance(c_or_r, Poly1d):
        return Poly1d(ctx, c_or_r.coeffs, variable if variable != "x" else c_or_r.variable)
    r = bool(ctx.static(r, "r"))
    if is_static(c_or_r):  # coefficients known now: numpy trims them (static length)
        try:
            coeffs = np.poly1d(c_or_r, r=r).coeffs
        except Exception as e:
            raise ctx.error(f"np.poly1d: {type(e).__name__}: {e}") from None
        return Poly1d(ctx, to_array(ctx, coeffs), variable)
    a = to_array(ctx, poly(ctx, c_or_r) if r else c_or_r)
    if a.ndim > 1:
        raise ctx.error("Polynomial must be 1d only (numpy raises ValueError)")
    if a.dtype.kind not in "biuf":
        raise ctx.error(f"poly1d: coefficients of dtype {a.dtype} are not supported")
    return _make(ctx, a, variable)


@register(np.poly, limits={"seq_of_zeros": "1-D roots of static length (a square matrix "
                                            "needs its eigenvalues: refused)"})
def poly(ctx, seq_of_zeros):
    """``np.poly(roots)``: numpy's ``a = convolve(a, [1, -zero])`` per root, in float64
    (float32 roots stay float32, as numpy's ``mintypecode``)."""
    z = to_array(ctx, seq_of_zeros)
    if z.ndim == 0:
        z = Array(ctx.op("Reshape", z, ints(ctx, [1])), z.dtype, (1,))
    if z.ndim == 2:
        raise ctx.error("np.poly of a square matrix: the characteristic polynomial needs the "
                        "matrix's eigenvalues, which onnxruntime cannot compute")
    if z.ndim != 1:
        raise ctx.error("np.poly: input must be 1d or non-empty square 2d array (numpy raises "
                        "ValueError)")
    if z.dtype.kind not in "biuf":
        raise ctx.error(f"np.poly: roots of dtype {z.dtype} are not supported")
    # the result has one more coefficient than there are roots: with symbolic input shapes,
    # one model per input shape
    n = static_dim(ctx, z.shape[0], "np.poly: the number of roots must be known at conversion "
                   "time (the loop over them is unrolled)")
    if n == 0:
        return 1.0
    dt = np.dtype(np.float32) if z.dtype == np.float32 else np.dtype(np.float64)
    z = ctx.cast(z, dt)
    N = Np(ctx)
    a = Array(ctx.const(np.ones(1, dt)), dt, (1,))
    for k in range(n):
        kernel = N.concatenate((Array(ctx.const(np.ones(1, dt)), dt, (1,)),
                                N.negative(N.getitem(z, slice(k, k + 1)))))
        a = N.convolve(a, kernel)
    return a


@register(np.polydiv)
def polydiv(ctx, u, v):
    """``q, r = np.polydiv(u, v)``: numpy's long division (unrolled: the lengths must be known
    at conversion time), then leading remainder terms within 1e-8 of zero dropped (numpy's
    ``allclose(r[0], 0, rtol=1e-14)``, a run-time length)."""
    fname = "np.polydiv"
    if isinstance(u, Poly1d) or isinstance(v, Poly1d):
        q, r = Poly1d.__pyonnx_binary__(u if isinstance(u, Poly1d) else poly1d(ctx, u),
                                        ast.Div, v, False)
        return q, r
    N = Np(ctx)
    ua, va = (N.add(polynomials._one_d(ctx, t, fname), 0.0) for t in (u, v))
    m = static_dim(ctx, ua.shape[0], f"{fname}: the coefficient counts must be known at "
                   "conversion time (the division is unrolled)") - 1
    n = static_dim(ctx, va.shape[0], f"{fname}: the coefficient counts must be known at "
                   "conversion time (the division is unrolled)") - 1
    if m < 0 or n < 0:
        raise ctx.error(f"{fname}: empty coefficient arrays (numpy raises IndexError)")
    wdt = np.result_type(ua.dtype, va.dtype)
    scale = N.true_divide(1.0, N.getitem(va, 0))
    scale = Array(scale.value, scale.dtype, (), weak=False)
    r = ctx.cast(ua, wdt)
    qs = []
    for k in range(m - n + 1):
        d = N.multiply(scale, N.getitem(r, k))
        qs.append(ctx.cast(d, wdt))
        part = ctx.cast(N.subtract(N.getitem(r, slice(k, k + n + 1)), N.multiply(d, va)), wdt)
        r = N.concatenate((N.getitem(r, slice(0, k)), part, N.getitem(r, slice(k + n + 1, None))))
    if qs:
        q = N.stack(qs)
    else:
        q = Array(ctx.const(np.zeros(1, wdt)), wdt, (1,))
    # drop leading terms with |r_i| <= 1e-8 while more than one is left (NaN is kept)
    big = ctx.op("Not", ctx.op("LessOrEqual", ctx.op("Abs", r), ctx.const(np.array(1e-8, wdt))))
    big = ctx.op("Concat", ctx.op("Cast", big, to=7), ints(ctx, [1]), axis=0)
    first = ctx.op("ArgMax", big, axis=0, keepdims=1, select_last_index=0)
    start = ctx.op("Min", first, ints(ctx, [m]))
    r = Array(ctx.op("Slice", r, start, ints(ctx, [m + 1]), ints(ctx, [0])), wdt, (None,))
    return q, r


refuse(np.roots, reason=_ROOTS)
