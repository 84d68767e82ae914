"""numpy reductions with numpy 2's result dtypes, NaN rules and errors.

Input: an Array (or anything ``np.asarray`` takes, holding Arrays) and numpy's keywords, with
``axis``, ``keepdims``, ``ddof`` and ``dtype`` known at conversion time. Output: an Array whose
dtype and static shape are numpy's (a 0-d Array where numpy returns a scalar).

Supported syntax (functions, and the array methods where numpy has them)::

    np.sum(a, axis=None, dtype=None, keepdims=False, initial=...)       a.sum(...)
    np.prod(a, axis=None, dtype=None, keepdims=False, initial=...)      a.prod(...)
    np.mean(a, axis=None, dtype=None, keepdims=False)                   a.mean(...)
    np.var / np.std(a, axis=None, dtype=None, ddof=0, keepdims=False, mean=..., correction=...)
    np.max / np.amax / np.min / np.amin(a, axis=None, keepdims=False, initial=...)
    np.argmax / np.argmin(a, axis=None, keepdims=False)                 a.argmax(...)
    np.any / np.all(a, axis=None, keepdims=False)                       a.any(...)
    np.cumsum / np.cumprod(a, axis=None, dtype=None)                    a.cumsum(...)
    np.count_nonzero(a, axis=None, keepdims=False)
    np.average(a, axis=None, weights=None, returned=False, keepdims=False)
    np.ptp(a, axis=None, keepdims=False)
    np.nansum(a, axis=None, dtype=None, keepdims=False, initial=...)
    np.nanmean(a, axis=None, dtype=None, keepdims=False)
    np.median(a, axis=None, keepdims=False)

``axis`` is None, an int (negative counts from the end) or a tuple of ints; ``out=`` is
refused with a hint. ``where=`` (a bool mask broadcasting to the array) is supported by sum,
prod, nansum, max/min (with ``initial=``, as numpy requires), mean, any and all
(:mod:`.masked`), refused elsewhere.

Modules: :mod:`.common` (argument handling and float16-safe building blocks shared by every
reduction), :mod:`.exact` (exact integer reductions along one axis), :mod:`.sums` (sum, prod,
nansum), :mod:`.extrema` (max, min, ptp, argmax, argmin), :mod:`.statistics` (mean, nanmean,
var, std, median, average), :mod:`.logical` (any, all, count_nonzero) and :mod:`.cumulative`
(cumsum, cumprod), :mod:`.masked` (``where=``). Each says how it reproduces numpy where onnxruntime's kernels differ
(measured with onnxruntime 1.31.1).

Errors numpy raises: bad axes, ``max``/``min``/``argmax`` of an empty reduction known at
conversion time → ConversionError. When the emptiness is only known at run time the model fails
instead of returning a value (onnxruntime refuses ``ArgMax`` and bool ``ReduceMax`` over an empty
axis, and float ``max`` checks NaN with the bool one), with an ExecutionError at the user's line.
``np.average`` with weights summing to zero fails at run time the same way (a ``Range`` with
step 0).
"""

from __future__ import annotations

# Importing each module runs its registrations.
from pyonnx.frontend.numpy_calls.reductions import (  # noqa: F401
    cumulative,
    extrema,
    logical,
    statistics,
    sums,
)
from pyonnx.frontend.numpy_calls.reductions.common import (
    binary_ufunc,
    emit,
    reduce_any,
    select,
    widen_f16,
)
from pyonnx.frontend.numpy_calls.reductions.sums import reduce_sum

__all__ = ["reduce_sum", "reduce_any", "emit", "binary_ufunc", "widen_f16", "select"]
