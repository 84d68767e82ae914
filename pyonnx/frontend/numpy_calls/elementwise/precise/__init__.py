"""float64 math functions built from ONNX ops that onnxruntime's CPU provider has in float64.

Input: float64 :class:`~pyonnx.frontend.graph.values.Array` operands. Output: float64 Arrays
equal to numpy's results to float64 precision, including ±0, ±inf, nan and subnormal inputs.
Largest differences from numpy 2.4 measured over wide samples (``tests/test_elementwise.py``
checks them): sin, cos, tan 1 ulp below 2**20*pi/2 (3-4 ulp above, onnxruntime's kernels);
arctan, arctan2, expm1, log1p, log2, log10, cbrt, hypot 1 ulp; arcsin, arccos, cosh, tanh,
arcsinh, arccosh, arctanh 2 ulp; sinh 3 ulp (at |x| > 709.78, 2 below); spacing, nextafter,
frexp, ldexp exact.

onnxruntime has no float64 ``Atan``, ``Tan``, ``Asin``, ``Acos``, ``Sinh``, ``Cosh``, ``Asinh``,
``Acosh``, ``Atanh``, no ``Expm1``/``Log1p``/``Log2``/``Cbrt``/``Hypot``/``Atan2`` at all, and its
float64 ``Sin``/``Cos`` reduce arguments between 1.4 and 15 with too short a pi (``sin(pi)``
gives 0 instead of 1.2e-16); its ``Tanh`` is 8 ulp off. A float32 detour would leave errors of
5e-7, so these follow the classic double-precision libraries with the same algorithms:

* sin, cos, tan: fdlibm's ``__ieee754_rem_pio2`` medium-range reduction (3 x 33-bit pieces of
  pi/2, carried as a double-double) and its ``__kernel_sin/cos/tan``; above 2**20 * pi/2 the
  onnxruntime kernels, which are accurate there, take over: for sin and cos inside an ``If``
  taken only when some element is that large (not computed for every element), and the
  quadrant is chosen by exact arithmetic, not ``Where`` (onnxruntime's float64 Where costs
  3-10 Muls per element): 85 → ~70 nodes, half the time.
* arctan: Cephes ``atan`` (argument reduction by tan(3pi/8) and tan(pi/8), its three ranges
  selected by exact arithmetic on 0/1 masks, not ``Where``); arctan2, arcsin and arccos on top
  of it with IEEE's quadrant, signed-zero and infinity rules.
* expm1: fdlibm ``s_expm1.c``; log1p: ``log(u) - ((u-1)-x)/u`` with ``u = 1+x`` (exact
  correction of the rounded ``1+x``); log2, log10: fdlibm's ``k_log1p`` with the exponent split
  off (found with ``Log`` and fixed up exactly with powers of two).
* sinh, cosh, tanh, arcsinh, arccosh, arctanh: fdlibm's formulas on expm1/log1p/exp/log.
* cbrt: ``pow(|x|, 1/3)`` and one fdlibm Newton step; hypot: ``sqrt(x*x+y*y)`` after exact
  power-of-two scaling.
* frexp, ldexp, spacing, nextafter: from the exact exponent split.

Powers of two come from ``Pow(2, k)``, exact in onnxruntime for every integer k (measured).
onnxruntime's Where returns +0.0 for a -0.0 taken from its first branch, so values that may be
-0.0 always go in the second one (see :func:`where`). The ops are written with :class:`Ex`, a
float64 value with Python operators that emit nodes.

Modules: ``ex`` (the builder), ``trig``, ``arctan``, ``exp_log``, ``float_bits``, ``hyperbolic``,
``algebraic``; this package module re-exports their functions, the interface the ufunc tables
use (``precise.sin``...).
"""

from __future__ import annotations

from pyonnx.frontend.numpy_calls.elementwise.precise.ex import Ex, scale2, where
from pyonnx.frontend.numpy_calls.elementwise.precise.trig import cos, sin, tan
from pyonnx.frontend.numpy_calls.elementwise.precise.arctan import arccos, arcsin, arctan, arctan2
from pyonnx.frontend.numpy_calls.elementwise.precise.exp_log import expm1, log10, log1p, log2
from pyonnx.frontend.numpy_calls.elementwise.precise.float_bits import (
    frexp,
    ldexp,
    nextafter,
    spacing,
)
from pyonnx.frontend.numpy_calls.elementwise.precise.hyperbolic import (
    arccosh,
    arcsinh,
    arctanh,
    cosh,
    sinh,
    tanh,
)
from pyonnx.frontend.numpy_calls.elementwise.precise.algebraic import (
    cbrt,
    hypot,
    logaddexp,
    logaddexp2,
)

__all__ = [
    "Ex", "where", "sin", "cos", "tan", "arctan", "arctan2", "arcsin", "arccos", "expm1", "log1p",
    "log2", "log10", "sinh", "cosh", "tanh", "arcsinh", "arccosh", "arctanh", "cbrt", "hypot",
    "logaddexp", "logaddexp2", "frexp", "spacing", "nextafter", "ldexp", "scale2",
]

