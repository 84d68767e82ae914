"""numpy covariance and correlation matrices: cov, corrcoef.

Input: one or two arrays of observations (1-D or 2-D) with static flags. Output: a float64
Array (numpy's ``result_type(m, y, float64)``), squeezed as numpy squeezes it (its rank then
depends on the number of variables: one model per input shape when that is not static).

Follows numpy's ``cov`` step by step (``average`` with the weights, the centred data, ``dot``
with the transpose, the multiplication by ``1 / fact``) and ``corrcoef`` (two divisions by
the standard deviations, then ``clip`` to [-1, 1]). ``dot`` sums in another order than numpy's
BLAS: the last bits may differ.

Supported syntax:

* ``np.cov(m, y=None, rowvar=True, bias=False, ddof=None, fweights=None, aweights=None)``;
  numpy's checks of the weights (integer and non-negative ``fweights``, non-negative
  ``aweights``) fail the run when they fail on the data.
* ``np.corrcoef(x, y=None, rowvar=True)``.

Not supported: ``dtype=`` other than float64 (numpy's default), complex data.
"""

from __future__ import annotations

import numpy as np

from pyonnx.frontend.graph.values import Array
from pyonnx.frontend.numpy_calls.registry import register
from pyonnx.frontend.numpy_calls.science.compose import Np
from pyonnx.frontend.numpy_calls.shape import to_array
from pyonnx.frontend.numpy_calls.shape.common import guard, ints

_I64 = np.dtype(np.int64)
_F64 = np.dtype(np.float64)
_BOOL = np.dtype(np.bool_)


def _checked(ctx, w: Array, ok: Array) -> Array:
    """``w``, failing the run unless the bool 0-d ``ok`` holds (numpy raises)."""
    shape = Array(ctx.op("Shape", w), _I64, (w.ndim,))
    return Array(ctx.op("Reshape", w, guard(ctx, ok.value, shape)), w.dtype, w.shape)


def _ndmin2(ctx, a: Array) -> Array:
    if a.ndim == 2:
        return a
    if a.ndim == 0:
        return Array(ctx.op("Reshape", a, ints(ctx, [1, 1])), a.dtype, (1, 1))
    return Array(ctx.op("Unsqueeze", a, ints(ctx, [0])), a.dtype, (1,) + a.shape)


def _weights(ctx, N, w, n_obs, name: str, integer: bool) -> Array:
    wa = to_array(ctx, w)
    if integer and wa.dtype.kind == "f":
        # numpy: fweights must be integer (values): checked on the data
        wa = _checked(ctx, wa, N.all(N.equal(wa, N.around(wa))))
    elif integer and wa.dtype.kind not in "iub":
        raise ctx.error("np.cov: fweights must be integer (numpy raises TypeError)")
    if wa.ndim != 1:
        raise ctx.error(f"np.cov: cannot handle multidimensional {name} (numpy raises "
                        "RuntimeError)")
    if wa.shape[0] is not None and n_obs is not None and wa.shape[0] != n_obs:
        raise ctx.error(f"np.cov: incompatible numbers of samples and {name} (numpy raises "
                        "RuntimeError)")
    # numpy raises ValueError for negative weights: checked on the data
    return _checked(ctx, wa, N.all(N.greater_equal(wa, 0)))


def cov_matrix(ctx, m, y=None, rowvar=True, bias=False, ddof=None, fweights=None,
               aweights=None) -> Array:
    """numpy's ``cov`` body (the unsqueezed ``c`` before its final ``squeeze``)."""
    N = Np(ctx)
    if ddof is not None:
        ddof = ctx.static(ddof, "ddof")
        if ddof != int(ddof):
            raise ctx.error("np.cov: ddof must be integer (numpy raises ValueError)")
        ddof = int(ddof)
    rowvar = bool(ctx.static(rowvar, "rowvar"))
    bias = bool(ctx.static(bias, "bias"))
    ma = to_array(ctx, m)
    ya = None if y is None else to_array(ctx, y)
    for a, name in ((ma, "m"), (ya, "y")):
        if a is not None and a.ndim > 2:
            raise ctx.error(f"np.cov: {name} has more than 2 dimensions (numpy raises "
                            "ValueError)")
        if a is not None and a.dtype.kind not in "biuf":
            raise ctx.error(f"np.cov: dtype {a.dtype} is not supported")
    X = _ndmin2(ctx, ctx.cast(ma, _F64))
    if not rowvar and ma.ndim != 1:
        X = N.transpose(X)
    if X.shape[0] == 0:
        return ctx.const_array(np.zeros((0, 0)))
    if ya is not None:
        Y = _ndmin2(ctx, ctx.cast(ya, _F64))
        if not rowvar and Y.shape[0] != 1:
            if Y.shape[0] is None:
                raise ctx.error("np.cov(..., y, rowvar=False): y's first dimension must be "
                                "known at conversion time")
            Y = N.transpose(Y)
        X = N.concatenate((X, Y), axis=0)
    if ddof is None:
        ddof = 0 if bias else 1
    n_obs = X.shape[1]
    w = None
    fw = aw = None
    if fweights is not None:
        fw = ctx.cast(_weights(ctx, N, fweights, n_obs, "fweights", True), _F64)
        w = fw
    if aweights is not None:
        aw = ctx.cast(_weights(ctx, N, aweights, n_obs, "aweights", False), _F64)
        w = aw if w is None else N.multiply(w, aw)
    avg, w_sum = N.average(X, axis=1, weights=w, returned=True)
    w_sum = N.getitem(w_sum, 0)
    if w is None:
        n = ctx.dim(X, 1)
        fact = N.subtract(n, ddof) if isinstance(n, Array) else n - ddof
    elif ddof == 0:
        fact = w_sum
    elif aw is None:
        fact = N.subtract(w_sum, ddof)
    else:
        fact = N.subtract(w_sum, N.true_divide(N.multiply(ddof, N.sum(N.multiply(w, aw))),
                                               w_sum))
    # numpy: fact <= 0 warns and uses 0.0
    if isinstance(fact, Array):
        fact_f = ctx.cast(fact, _F64) if fact.dtype != _F64 else fact
        fact = Array(ctx.op("Where", N.less_equal(fact, 0).value, ctx.const(np.float64(0.0)),
                            fact_f), _F64, (), weak=fact.weak)
    elif fact <= 0:
        fact = 0.0
    X = N.subtract(X, N.getitem(avg, (slice(None), None)))
    X_T = N.transpose(X) if w is None else N.transpose(N.multiply(X, w))
    c = N.dot(X, X_T)
    if not isinstance(fact, Array) and fact == 0:
        # c * (1/0): ±inf by sign, NaN for 0 and NaN. Selected, not multiplied: onnxruntime
        # fuses MatMul * constant (or / constant) into a FusedMatMul whose alpha must be finite.
        inf = ctx.const(np.float64(np.inf))
        signed = ctx.op("Where", N.less(c, 0).value, ctx.const(np.float64(-np.inf)),
                        ctx.const(np.float64(np.nan)))
        return Array(ctx.op("Where", N.greater(c, 0).value, inf, signed), _F64, c.shape)
    return N.multiply(c, N.true_divide(1, fact))


@register(np.cov)
def cov(ctx, m, y=None, rowvar=True, bias=False, ddof=None, fweights=None, aweights=None, *,
        dtype=None):
    """``np.cov(m, y=None, rowvar=True, bias=False, ddof=None, fweights=None,
    aweights=None)``: float64, squeezed."""
    if dtype is not None and np.dtype(ctx.static(dtype, "dtype")) != _F64:
        raise ctx.error("np.cov(..., dtype=...) other than float64 is not supported")
    c = cov_matrix(ctx, m, y, rowvar, bias, ddof, fweights, aweights)
    return Np(ctx).squeeze(c)


@register(np.corrcoef)
def corrcoef(ctx, x, y=None, rowvar=True, *, dtype=None):
    """``np.corrcoef(x, y=None, rowvar=True)``: float64, clipped to [-1, 1]."""
    N = Np(ctx)
    c = cov(ctx, x, y, rowvar, dtype=dtype)
    if c.ndim == 0:  # numpy: diag raises ValueError for a scalar, then c / c
        return N.true_divide(c, c)
    stddev = N.sqrt(N.diag(c))
    c = N.true_divide(c, N.getitem(stddev, (slice(None), None)))
    c = N.true_divide(c, N.getitem(stddev, (None, slice(None))))
    return N.clip(c, -1, 1)
