"""numpy ufuncs, the Python operators that map to them, and elementwise helpers.

Input: frontend values (Arrays, static scalars and arrays). Output: Arrays with numpy's value,
dtype and broadcast shape. Every ufunc resolves its loop with numpy's own
``ufunc.resolve_dtypes`` (NEP 50 weak Python scalars included), converts the operands to the
loop dtypes and computes as numpy's loop does:

* integers wrap as numpy's C loops do (``int8 127 + 1 == -128``, ``abs(int8 -128) == -128``);
  ``//``, ``%`` and ``np.fmod`` give 0 for a zero divisor, as numpy does (with a warning), and
  never run onnxruntime's Div/Mod on 0 or ``MIN // -1`` (which would crash the process);
  ``**`` on integers is exact repeated squaring modulo 2**bits (onnxruntime's integer Pow goes
  through double); shifts by >= the bit width give 0 (or -1), right shifts are arithmetic;
* comparisons of int64 with uint64 and with out-of-range Python ints are exact, as numpy 2's;
* float ``//`` and ``%`` follow numpy's ``npy_divmod`` (floor, sign of the divisor, its inf and
  zero cases); ``maximum``/``minimum`` propagate NaN, ``fmax``/``fmin`` ignore it; ``x ** 2``,
  ``x ** -1`` and ``x ** 0.5`` take ndarray.__pow__'s fast paths (square, reciprocal, sqrt:
  ``bool ** 2`` is int8, ``-0.0 ** 0.5 == -0.0``), and np.power's float loops take sqrt for a
  broadcast exponent of 0.5;
* float16 loops compute as numpy does (through float32, rounded once); float64 functions that
  onnxruntime lacks or computes imprecisely are built in :mod:`.precise` to float64
  precision; float32 uses onnxruntime's float32 kernels where they are within a few ulp of
  numpy's, else the float64 construction rounded once.

Supported ufuncs (``np.<name>(x[, y], dtype=None, casting='same_kind')``, their numpy 2 aliases
such as ``np.acos``, ``np.pow``, ``np.bitwise_invert``, and the operators ``+ - * / // % **
& | ^ << >> ~ -x +x == != < <= > >=``): add subtract multiply divide/true_divide floor_divide
remainder/mod fmod divmod power float_power negative positive absolute/abs fabs invert/bitwise_not
bitwise_and bitwise_or bitwise_xor left_shift right_shift bitwise_count less less_equal greater
greater_equal equal not_equal logical_and logical_or logical_not logical_xor sign exp expm1 exp2
log log1p log2 log10 sqrt cbrt square reciprocal sin cos tan arcsin arccos arctan arctan2 sinh
cosh tanh arcsinh arccosh arctanh floor ceil trunc rint isnan isinf isfinite signbit copysign
minimum maximum fmin fmax hypot degrees radians deg2rad rad2deg heaviside logaddexp logaddexp2
conjugate/conj modf frexp ldexp spacing nextafter gcd lcm.

Other elementwise functions: ``np.where(c, a, b)`` (``np.where(c)`` is ``np.nonzero``),
``np.clip(a, a_min, a_max)`` / ``np.clip(a, min=, max=)`` / ``x.clip(min, max)`` (None bounds),
``np.round(a, decimals)`` / ``np.around`` / ``x.round(decimals)`` (numpy's multiply-rint-divide,
round half to even), ``np.fix``, ``np.nan_to_num(x, copy, nan, posinf, neginf)``, ``np.sinc``,
``np.isposinf``, ``np.isneginf``, ``np.<binary ufunc>.outer(a, b)``, the builtins ``pow(a, b)``
and ``divmod(a, b)``; methods ``x.clip``, ``x.round``, ``x.conj``, ``x.conjugate``.

Not reproducible, and documented rather than refused (the values compare equal to numpy's):

* the sign bit of a NaN (ONNX has no bitcast): ``np.signbit(nan)`` is False and
  ``np.copysign(x, nan)`` positive;
* the sign of a zero *selected* by ``np.where`` (onnxruntime's Where returns +0.0 for a selected
  -0.0; measured) or by ``maximum``/``minimum``/``clip``/``fmax``/``fmin`` between zeros of
  different sign (onnxruntime's Max/Min pick either; numpy's own fmax/fmin depend on its SIMD
  path). Functions that compute a zero (``np.sin(-0.0)``, ``np.trunc(-0.5)``, ``//``, ``%``,
  ``copysign``...) keep numpy's sign: they place -0.0 where Where keeps it.

Integer ``**`` with a negative exponent only known at run time fails at run time (numpy raises
ValueError), as does a Python-int argument out of range of the array's integer dtype (numpy
raises OverflowError): the error names the line.

Modules: :mod:`.ufunc` (loop resolution, operand conversion, registration), :mod:`.common`
(shared building blocks: kernels, Where, run-time checks), :mod:`.arithmetic` (``+ - * / // %``,
abs, sign...), :mod:`.power` (``**``, power, float_power), :mod:`.comparison` (comparisons,
logical_*, maximum/minimum, where, clip), :mod:`.bitwise`, :mod:`.rounding`, :mod:`.floating`
(classification, sign, exponent and neighbour functions), :mod:`.integer` (gcd, lcm),
:mod:`.transcendental` (exp, log, roots, trig, hyperbolic) and :mod:`.precise` (float64
constructions onnxruntime lacks).
"""

from __future__ import annotations

# Importing each family module runs its registrations.
from pyonnx.frontend.numpy_calls.elementwise import (  # noqa: F401
    arithmetic,
    bitwise,
    comparison,
    floating,
    integer,
    power,
    rounding,
    transcendental,
)
from pyonnx.frontend.numpy_calls.elementwise.common import runtime_check, where_
from pyonnx.frontend.numpy_calls.elementwise.ufunc import UFUNCS, ufunc_call

__all__ = ["ufunc_call", "UFUNCS", "where_", "runtime_check"]
