"""Complex values in the frontend: a pair of real graph values.

onnxruntime has almost no kernels for ONNX's complex tensor types, so pyonnx never puts one in
a model. A complex array is carried as two real :class:`Array` of the matching float dtype
(complex64 → float32, complex128 → float64): the real and the imaginary part, always of one
static shape (and one run-time shape). Elementwise complex arithmetic is then real arithmetic on
the parts, with no packing between operations.

At the model boundary (inputs, outputs) a complex array is ONE real tensor with a trailing
dimension of 2, numpy's memory layout: ``z.view(z.real.dtype).reshape(*z.shape, 2)`` (no copy
for a C-contiguous ``z``). :func:`pack` and :func:`unpack` convert between the two forms.

Input: Arrays, Python and numpy scalars. Output: :class:`Complex` values and the dtype helpers
the complex lowering (``frontend/lower/complex_*.py``) shares.
"""

from __future__ import annotations

import itertools
from typing import Any

import numpy as np

from pyonnx.frontend.graph.values import Array, Dim

__all__ = ["Complex", "real_dtype", "complex_dtype", "is_complex", "pack", "unpack",
           "make", "parts", "TRAILING_DOC"]

# The sentence recorded in a model's doc string and input/output metadata.
TRAILING_DOC = ("complex values are real tensors with a trailing dimension of 2 (real, imag): "
                "numpy's layout, z.view(z.real.dtype).reshape(*z.shape, 2)")


class Complex:
    """A complex array as its two real parts.

    Attributes:
        re, im: Arrays of ``real_dtype(dtype)``, both of ``shape``; neither weak.
        dtype: complex64 or complex128.
        weak: True for a value that came from Python complex scalars (0-d), which promote as
            NEP 50 says.
        base: for a view numpy makes (``z[1:]``, ``z.T``, ``z.reshape``), the Complex it views
            (writes while views are alive are refused, see complex_writes).
        param: the parameter name when this is an argument's value (its memory is the caller's).
        shared: after a run-time if/loop, why the value may share memory (see ``memory_note``).
        zero_d: for a 0-d value, numpy scalar or 0-d array where not by rule (complex_kinds).
        kind_flag: for a 0-d value of kind "unknown", a 0-d bool graph value, true where it is
            a 0-d array (lower/control_flow/complex_paths), or None when not known.
        py_path: ``(where, flag)`` for a strong 0-d value that is a Python complex on some
            run-time paths (``s = 0j`` before a loop that may run 0 times); ``flag``: a 0-d
            bool graph value, true where it is the Python complex, or None when not known.
    """

    __slots__ = ("re", "im", "dtype", "weak", "base", "param", "shared", "mem", "zero_d",
                 "kind_flag", "py_path")
    pyonnx_dynamic = True  # values.is_static: a graph value

    def __init__(self, re: Array, im: Array, dtype: np.dtype, weak: bool = False):
        self.re = re
        self.im = im
        self.dtype = np.dtype(dtype)
        self.weak = weak
        self.base: Complex | None = None
        self.param: str | None = None
        # why numpy's memory of this value may be seen elsewhere, for values rebuilt from
        # If/Loop outputs (the argument or view they were on some path); "" when not
        self.shared = ""
        # numpy memory this value may be: a fresh buffer, or (after a run-time if/loop, or a
        # view) the buffers it came from; two values whose ``mem`` meet may share memory
        self.mem: frozenset[int] = frozenset((next(_BUFFERS),))
        # a 0-d value's kind where the rule of graph/complex_kinds.kind does not tell it:
        # "array", "scalar" (numpy's) or "unknown" (both on different paths); None: the rule
        self.zero_d: str | None = None
        self.kind_flag = None
        self.py_path: tuple | None = None

    @property
    def shape(self) -> tuple[Dim, ...]:
        return self.re.shape

    @property
    def ndim(self) -> int:
        return len(self.re.shape)

    @property
    def static_size(self) -> int | None:
        return self.re.static_size

    def __repr__(self) -> str:
        dims = ",".join("?" if d is None else str(d) for d in self.shape)
        return f"Complex({self.dtype}[{dims}]{' weak' if self.weak else ''})"

    def __bool__(self) -> bool:
        raise TypeError("the truth value of a complex graph value is only known at run time")


_BUFFERS = itertools.count()


def memory_note(z: Complex) -> str:
    """Why numpy's writes into ``z`` could be seen through another name in a way pyonnx does
    not follow ("" when they cannot as far as ``z`` itself tells): a view, or a view or an
    argument on some path of a run-time if/loop it came out of. (An argument itself is
    followed: its final value is written back, see complex_boundary.written_arguments.)"""
    if z.base is not None:
        return "it is a view of another array (z[1:], z.T, z.reshape(...))"
    return z.shared


def real_dtype(dtype: Any) -> np.dtype:
    """float32 for complex64, float64 for complex128 (real dtypes map to themselves)."""
    dtype = np.dtype(dtype)
    return np.dtype(np.float32) if dtype == np.complex64 else \
        np.dtype(np.float64) if dtype == np.complex128 else dtype


def complex_dtype(dtype: Any) -> np.dtype:
    """The complex dtype whose parts are ``dtype`` (numpy's promotion with complex64)."""
    return np.result_type(np.dtype(dtype), np.complex64)


def is_complex(value: Any) -> bool:
    """True for a Complex, a Python complex, a numpy complex scalar or array (static)."""
    if isinstance(value, Complex):
        return True
    if isinstance(value, complex):
        return True
    if isinstance(value, (np.generic, np.ndarray)):
        return value.dtype.kind == "c"
    return False


def _expand(ctx, a: Array, other: Array, shape: tuple[Dim, ...]) -> Array:
    if a.shape == shape and None not in shape:
        return a
    out = ctx.op("Expand", a, ctx.op("Shape", other))
    return Array(out, a.dtype, shape)


def make(ctx, re: Any, im: Any, dtype: Any, weak: bool = False) -> Complex:
    """A Complex from two real parts (frontend values: Arrays or static numbers), cast to the
    parts' dtype and broadcast to one shape (ONNX Expand broadcasts both ways)."""
    from pyonnx.frontend.graph.shapes import broadcast_shapes

    ctx.complex_used = True
    rd = real_dtype(dtype)
    re = ctx.cast(ctx.asarray(re), rd) if isinstance(re, Array) else ctx.const_array(re, rd)
    im = ctx.cast(ctx.asarray(im), rd) if isinstance(im, Array) else ctx.const_array(im, rd)
    if re.shape != im.shape or None in re.shape:
        try:
            shape = broadcast_shapes(re.shape, im.shape)
        except ValueError as e:
            raise ctx.error(str(e)) from None
        if re.shape != im.shape:
            re, im = _expand(ctx, re, im, shape), _expand(ctx, im, re, shape)
    re = Array(re.value, rd, re.shape) if re.weak else re
    im = Array(im.value, rd, im.shape) if im.weak else im
    return Complex(re, im, dtype, weak)


def zeros_like(ctx, a: Array) -> Array:
    """Zeros of ``a``'s dtype and (run-time) shape."""
    if None not in a.shape:
        return ctx.const_array(np.zeros(a.shape, a.dtype))
    from pyonnx.frontend.graph import dtypes
    import onnx_ir as ir

    zero = ir.tensor(np.zeros(1, a.dtype))
    return Array(ctx.op("ConstantOfShape", ctx.op("Shape", a), value=zero), a.dtype, a.shape)


def parts(ctx, value: Any, dtype: Any) -> tuple[Any, Any]:
    """``value``'s real and imaginary parts as operands of real dtype ``real_dtype(dtype)``:
    Arrays (cast) or static numbers/arrays (Python floats stay weak scalars)."""
    rd = real_dtype(dtype)
    ctx.complex_used = True  # (convert.py records it: differentiation refuses such models)
    if isinstance(value, Complex):
        return ctx.cast(value.re, rd), ctx.cast(value.im, rd)
    if isinstance(value, Array):
        if value.dtype.kind not in "biuf":
            raise ctx.error(f"a {value.dtype} array cannot be used as a complex value")
        re = ctx.cast(value, rd)
        return re, zeros_like(ctx, re)
    if isinstance(value, (bool, int, float, complex)) and not isinstance(value, np.generic):
        v = complex(value)
        return ctx.const_array(v.real, rd), ctx.const_array(v.imag, rd)
    try:
        arr = np.asarray(value)
    except Exception:
        raise ctx.error(f"cannot use a value of type {type(value).__name__} as a complex "
                        "array") from None
    if arr.dtype.kind not in "biufc":
        raise ctx.error(f"cannot use a {arr.dtype} value as a complex array")
    return ctx.const_array(arr.real.astype(rd)), ctx.const_array(np.imag(arr).astype(rd))


def pack(ctx, z: Complex) -> Array:
    """The boundary form: one real Array of shape ``z.shape + (2,)`` (numpy's layout)."""
    axis = ctx.const(np.array([-1], np.int64))
    re = ctx.op("Unsqueeze", z.re, axis)
    im = ctx.op("Unsqueeze", z.im, axis)
    rd = real_dtype(z.dtype)
    return Array(ctx.op("Concat", re, im, axis=-1), rd, z.shape + (2,))


def unpack(ctx, packed: Array, dtype: Any) -> Complex:
    """The Complex held by a boundary-form Array (trailing dimension 2)."""
    shape = packed.shape[:-1]
    ctx.complex_used = True
    rd = real_dtype(dtype)
    # One Split for both parts: onnxruntime copies a (N, 2) float64 tensor's columns in 88 µs
    # at N = 1e5 this way, against 190 µs for two strided Slices (what a last-axis Gather
    # becomes, passes/rewrite_idioms) and 87 µs for two Gathers.
    ones = ctx.const(np.array([1, 1], np.int64))
    last = ctx.const(np.array([-1], np.int64))
    halves = ctx.op("Split", packed, ones, axis=-1, outputs=2)
    return Complex(*(Array(ctx.op("Squeeze", v, last), rd, shape) for v in halves), dtype)


def static_dim(ctx, d: Dim, message: str) -> int:
    """A dimension the lowering needs now: with symbolic input shapes, the conversion asks for
    static ones (NeedStaticShapes: one model per input shape, as np.squeeze does); otherwise
    (a length only the data decides) a ConversionError with ``message``."""
    if d is not None:
        return d
    from pyonnx.frontend.graph.context import NeedStaticShapes

    error = ctx.error(message)
    if ctx.symbolic_params:
        raise NeedStaticShapes(error)
    raise error
