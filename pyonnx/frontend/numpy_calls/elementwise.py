"""numpy ufuncs and the Python operators that map to them.

Every entry resolves dtypes with numpy's own ``ufunc.resolve_dtypes`` (NEP 50 weak scalars
included), converts the operands to the loop dtype, and emits ONNX ops through
:mod:`pyonnx.frontend.lower.kernels` so dtypes onnxruntime lacks are computed exactly in a wider
one. Supported syntax: ``np.<ufunc>(a, b)``, the matching operators (``a + b`` → ``np.add``),
and array methods where numpy has them.
"""

from __future__ import annotations

from collections.abc import Callable

import numpy as np

from pyonnx.frontend.lower import dtypes, kernels
from pyonnx.frontend.lower.values import Array
from pyonnx.frontend.numpy_calls import register

__all__ = ["ufunc_call", "UFUNC_EMITTERS"]

# ufunc → emitter(ctx, operands as Arrays in the loop dtypes, loop dtype, out dtype) → Array
UFUNC_EMITTERS: dict[np.ufunc, Callable[..., Array]] = {}


def ufunc_call(ctx, ufunc: np.ufunc, *operands, out=None, where=True, dtype=None,
               casting="same_kind", order="K", subok=True, signature=None) -> Array:
    """Lowers ``ufunc(*operands)`` with numpy's promotion.

    Args:
        ctx: the Lowering.
        ufunc: a numpy ufunc with a registered emitter.
        operands: frontend values (Arrays or static scalars/arrays).
        dtype: numpy's ``dtype=`` argument (the loop is resolved for it).

    Returns:
        An Array; ``weak`` when every operand was a Python scalar.

    Raises:
        ConversionError: numpy has no loop for these dtypes, or an unsupported keyword is given.
    """
    if out is not None:
        raise ctx.error(f"np.{ufunc.__name__}(..., out=...) is not supported; assign the result")
    if where is not True:
        raise ctx.error(f"np.{ufunc.__name__}(..., where=...) is not supported; use np.where")
    try:
        if dtype is not None:
            dt = np.dtype(ctx.static(dtype, "dtype"))
            ins, outs = ufunc.resolve_dtypes(tuple(dtypes.proxy(o) for o in operands)
                                             + (dt,) * ufunc.nout, casting="unsafe")[:ufunc.nin], \
                (dt,) * ufunc.nout
            weak = False
        else:
            ins, outs, weak = dtypes.ufunc_dtypes(ufunc, *operands)
    except TypeError as e:
        names = ", ".join(str(dtypes.proxy(o).__name__ if isinstance(dtypes.proxy(o), type)
                               else dtypes.proxy(o)) for o in operands)
        raise ctx.error(f"numpy has no '{ufunc.__name__}' for ({names}): {e}") from None
    arrays = [ctx.asarray(o, dt) if not isinstance(o, Array) else ctx.cast(o, dt)
              for o, dt in zip(operands, ins)]
    emitter = UFUNC_EMITTERS.get(ufunc)
    if emitter is None:
        raise ctx.error(f"np.{ufunc.__name__} is not supported yet")
    result = emitter(ctx, arrays, ins[0], outs[0])
    if result.dtype != outs[0]:
        result = ctx.cast(result, outs[0])
    result.weak = weak
    return result


def _simple(op: str, out_bool: bool = False) -> Callable[..., Array]:
    def emitter(ctx, arrays, loop, out):
        return kernels.emit(ctx, op, arrays, loop, out_dtype=out)
    return emitter


def _register_ufunc(ufunc: np.ufunc, emitter: Callable[..., Array], methods: tuple[str, ...] = ()):
    UFUNC_EMITTERS[ufunc] = emitter

    def lower(ctx, *args, **kwargs):
        return ufunc_call(ctx, ufunc, *args, **kwargs)

    lower.__name__ = ufunc.__name__
    register(ufunc, methods=methods)(lower)


for _uf, _op in [(np.add, "Add"), (np.subtract, "Sub"), (np.multiply, "Mul"),
                 (np.equal, "Equal"), (np.less, "Less"), (np.less_equal, "LessOrEqual"),
                 (np.greater, "Greater"), (np.greater_equal, "GreaterOrEqual")]:
    _register_ufunc(_uf, _simple(_op))


def _true_divide(ctx, arrays, loop, out):
    return kernels.emit(ctx, "Div", arrays, loop)


def _not_equal(ctx, arrays, loop, out):
    eq = kernels.emit(ctx, "Equal", arrays, loop, out_dtype=np.dtype(bool))
    return Array(ctx.op("Not", eq), np.dtype(bool), eq.shape)


def _negative(ctx, arrays, loop, out):
    (a,) = arrays
    if loop.kind == "u":  # numpy wraps: -x == 0 - x modulo 2**bits
        return kernels.emit(ctx, "Sub", [ctx.const_array(0, loop), a], loop)
    return kernels.emit(ctx, "Neg", arrays, loop)


_register_ufunc(np.true_divide, _true_divide)
_register_ufunc(np.not_equal, _not_equal)
_register_ufunc(np.negative, _negative)
