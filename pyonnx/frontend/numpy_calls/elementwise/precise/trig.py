"""sin, cos, tan in float64: fdlibm's medium-range reduction and kernels (see the package
docstring)."""

from __future__ import annotations

import math

import numpy as np

from pyonnx.frontend.graph.values import Array
from pyonnx.frontend.numpy_calls.elementwise.precise.ex import (
    Ex,
    _split_hi,
    _two_sum,
    where,
)


# ----------------------------------------------------------------------------- sin cos tan
# fdlibm e_rem_pio2.c: pi/2 in three 33-bit pieces and the tail.
_INVPIO2 = 6.36619772367581382433e-01
_PIO2_1 = 1.57079632673412561417e+00
_PIO2_2 = 6.07710050630396597660e-11
_PIO2_3 = 2.02226624871116645580e-21
_PIO2_3T = 8.47842766036889956997e-32
# n * _PIO2_k is exact for |n| < 2**20; beyond, onnxruntime's Sin/Cos are accurate (measured).
_REDUCE_LIMIT = 2.0 ** 19 * math.pi

_S = (-1.66666666666666324348e-01, 8.33333333332248946124e-03, -1.98412698298579493134e-04,
      2.75573137070700676789e-06, -2.50507602534068634195e-08, 1.58969099521155010221e-10)
_C = (4.16666666666666019037e-02, -1.38888888888741095749e-03, 2.48015872894767294178e-05,
      -2.75573143513906633035e-07, 2.08757232129817482790e-09, -1.13596475577881948265e-11)
_T = (3.33333333333334091986e-01, 1.33333333333201242699e-01, 5.39682539762260521377e-02,
      2.18694882948595424599e-02, 8.86323982359930005737e-03, 3.59207910759131235356e-03,
      1.45620945432529025516e-03, 5.88041240820264096874e-04, 2.46463134818469906812e-04,
      7.81794442939557092300e-05, 7.14072491382608190305e-05, -1.85586374855275456654e-05,
      2.59073051863633712884e-05)
_F64 = np.dtype(np.float64)
_PIO4 = 7.85398163397448278999e-01
_PIO4LO = 3.06161699786838301793e-17


def _fast_two_sum(a: Ex, b: Ex) -> tuple[Ex, Ex]:
    """Dekker's Fast2Sum: s + e == a + b exactly where |a| >= |b| or a + b is representable
    (then s - a == b exactly and e is 0); 3 nodes where TwoSum takes 6."""
    s = a + b
    return s, b - (s - a)


def _reduce_by(x: Ex, fn: Ex, even: bool = False, pieces=(_PIO2_1, _PIO2_2, _PIO2_3,
                                                           _PIO2_3T)) -> tuple[Ex, Ex]:
    """x - fn*pi/2 as (z0, -z1) (double-double z0 + z1), fn an integer-valued |fn| <= 2**20:
    the three pieces of pi/2 subtracted with exact error terms (see _rem_pio2, whose
    sign-of-zero arrangement this keeps: x = -0.0, fn = +0.0 gives z0 = -0.0, -z1 = +0.0).
    ``pieces`` may be scaled by a power of two (fn*pi/2 = m*pi with ``m = fn/2``: one Mul
    less).

    With ``even`` (fn even, or a constant 1 whose products are exact constants) each
    subtraction is a Fast2Sum. Where |r| < |b| (x within 2|fn*P2| of fn*pi/2), the exact sum
    is a multiple of 2**-65 (r1 of ulp(x) >= 2**-52 as |x| >= 1, fn*P2 of 2**-65 for even fn)
    below 2*2**20*P2 = 1.28e-4, so at most 4.7e15 < 2**53 units: representable, so s - a == b
    and the error term 0 are exact; likewise the next step in units of 2**-100 (below
    2*2**20*P3: 5.4e15 units; r2 is then exact, the same argument one step down). The constant
    fn = 1 with |x| <= pi/2 (cos near its zero) is covered alike: |r1| < P2 only for |x| in
    [1, 2), where the sums stay below 2**33 units of 2**-66. For odd fn the first bound is
    9.4e15 units, above 2**53: TwoSum stays."""
    add = _fast_two_sum if even else _two_sum
    p1, p2, p3, p3t = pieces
    r1 = x - fn * p1                           # exact (Sterbenz; fn*p1 is exact)
    r2, e2 = add(r1, fn * -p2)
    r3, e3 = add(r2, fn * -p3)
    neg_tail = fn * p3t - (e2 + e3)
    z0 = r3 - neg_tail
    return z0, neg_tail - (r3 - z0)


def _sin_reduced(ctx, e: Ex, which: str) -> Ex:
    """sin or cos of ``e`` through onnxruntime's own float64 ``Sin`` on a reduced argument.

    sin(x) = (-1)**m sin(z) with x = m*pi + z, cos(x) = (-1)**(m+1) sin(z) with
    x = (m + 1/2)*pi + z; |z| <= pi/2 (a hair more where x/pi rounds), where onnxruntime's
    Sin is within 3 ulp of numpy's (measured on 1e7 points of [-pi/2, pi/2], tiny and
    subnormal arguments and both zeros included, onnxruntime 1.31 and 1.32): its own reduction
    loses relative accuracy only near its zeros k*pi, k != 0, which this range excludes. The
    low part z1 (|z1| <= ulp(z0)/2) enters as z1*cos(z0), cos(z0) from a short series (its
    error, below 2% of a correction under half an ulp, is invisible). About 40 nodes where
    the polynomial kernels and quadrant select took 85, one of them onnxruntime's Sin (about
    15 elementwise ops' time).
    """
    inv_pi = _INVPIO2 * 0.5
    if which == "sin":
        m = (e * inv_pi).round() + 0.0
        # fn = 2m: m times the pieces of pi (exact doublings) saves the 2m node.
        z0, neg_z1 = _reduce_by(e, m, even=True,
                                pieces=(2 * _PIO2_1, 2 * _PIO2_2, 2 * _PIO2_3, 2 * _PIO2_3T))
    else:
        m = (e * inv_pi).floor()
        z0, neg_z1 = _reduce_by(e, m * 2.0 + 1.0)
    zz = z0 * z0
    cos_z0 = 1.0 - zz * (0.5 - zz * (1.0 / 24.0))
    # (a - b with b = +0.0 keeps a -0.0 from Sin(-0.0): sin(-0.0) is -0.0)
    res = z0.unary("Sin") - neg_z1 * cos_z0
    # (-1)**m exactly: h - floor(h) is 0.0 or 0.5 for h = m/2.
    half = m * 0.5
    odd4 = (half - half.floor()) * 4.0          # 0.0 (m even) or 2.0 (m odd)
    sign = 1.0 - odd4 if which == "sin" else odd4 - 1.0
    return res * sign


def _rem_pio2(x: Ex) -> tuple[Ex, Ex, Ex]:
    """x = n*pi/2 + (y0 + y1) with |y0| <= pi/4; returns (n, y0, y1) (n integer-valued).

    fdlibm subtracts the second and third pieces only when cancellation needs them; here all
    three are always subtracted with exact TwoSum error terms, which is as exact. The signs of
    zero are arranged so that x = -0.0 gives y0 = -0.0 (n = +0.0 by the ``+ 0.0``, the tail is
    subtracted, not added: ``a - b`` is -0.0 only for a = -0.0, b = +0.0), so that the kernels
    return -0.0 for it without a ``Where``.
    """
    fn = (x * _INVPIO2).round() + 0.0
    r1 = x - fn * _PIO2_1                      # exact (Sterbenz; fn*_PIO2_1 is exact)
    r2, e2 = _two_sum(r1, fn * -_PIO2_2)
    r3, e3 = _two_sum(r2, fn * -_PIO2_3)
    neg_tail = fn * _PIO2_3T - (e2 + e3)
    y0 = r3 - neg_tail
    y1 = (r3 - y0) - neg_tail
    return fn, y0, y1


def _quadrant(fn: Ex) -> Ex:
    """n mod 4 (0.0 .. 3.0) of an integer-valued n."""
    return fn - (fn * 0.25).floor() * 4.0


def _ksin(x: Ex, y: Ex) -> Ex:
    z = x * x
    w = z * z
    r = _S[1] + z * (_S[2] + z * _S[3]) + z * w * (_S[4] + z * _S[5])
    v = z * x
    return x - ((z * (0.5 * y - v * r) - y) - v * _S[0])


def _kcos(x: Ex, y: Ex) -> Ex:
    z = x * x
    w = z * z
    r = z * (_C[0] + z * (_C[1] + z * _C[2])) + w * w * (_C[3] + z * (_C[4] + z * _C[5]))
    hz = 0.5 * z
    w = 1.0 - hz
    return w + (((1.0 - w) - hz) + (z * r - x * y))


def _ktan(x: Ex, y: Ex, odd: Ex) -> Ex:
    """fdlibm __kernel_tan: tan(x+y) where n is even, -1/tan(x+y) where ``odd``."""
    big = x.abs().ge(0.6744)
    neg = x.lt(0.0)
    xs = where(neg, -x, x)
    ys = where(neg, -y, y)
    xb = (_PIO4 - xs) + (_PIO4LO - ys)
    x = where(big, xb, x)
    y = where(big, 0.0, y)
    z = x * x
    w = z * z
    r = _T[1] + w * (_T[3] + w * (_T[5] + w * (_T[7] + w * (_T[9] + w * _T[11]))))
    v = z * (_T[2] + w * (_T[4] + w * (_T[6] + w * (_T[8] + w * (_T[10] + w * _T[12])))))
    s = z * x
    r = y + z * (s * (r + v) + y)
    r = r + _T[0] * s
    w = x + r
    iy = where(odd, -1.0, 1.0)
    big_res = where(neg, -1.0, 1.0) * (iy - 2.0 * (x - (w * w / (w + iy) - r)))
    # -1/(x+r) accurately: split w and -1/w so that t*z is exact.
    zz = _split_hi(w, 32)
    vv = r - (zz - x)
    a = -1.0 / w
    t = _split_hi(a, 32)
    ss = 1.0 + t * zz
    inv = t + a * (ss + t * vv)
    return where(big, big_res, where(odd, inv, w))


def _quadrant_select(n: Ex, s: Ex, c: Ex) -> Ex:
    """sin(x) for x = n*pi/2 + y from s = sin(y), c = cos(y) (cos(x): n + 1), without a
    ``Where`` (onnxruntime's float64 Where costs as much as dozens of Muls per element).

    By n mod 4: s, c, -s, -c. ``odd_neg`` is +0.0 (n even) or -1.0 (n odd), so
    ``s*(1 + odd_neg) - c*odd_neg`` is exactly s (a -0.0 kept: -0.0 - +0.0) or c (c > 0 on
    |y| <= pi/4, so c*odd_neg is +0.0 for even n); the sign is an exact ±1 factor.
    """
    half = (n * 0.5).floor()
    odd_neg = half * 2.0 - n
    picked = s * (1.0 + odd_neg) - c * odd_neg
    negative = half - (half * 0.5).floor() * 2.0     # floor(n / 2) mod 2
    return picked * (1.0 - negative * 2.0)


def _with_large_arguments(ctx, x: Ex, ax: Ex, res: Ex, op: str, amax: Ex | None = None) -> Ex:
    """``res``, where ``|x| >= _REDUCE_LIMIT`` (or inf) onnxruntime's ``op`` (Sin/Cos) of x.

    The onnxruntime kernel (a full float64 pass, the costliest node here) runs only when some
    element needs it: an ``If`` on ``any(|x| >= limit)``, not a ``Where`` over an
    always-computed array. Given ``amax`` (the 0-d ReduceMax of ``ax``, already computed for
    the range test) the condition is ``not amax < limit``: no pass over the array; a NaN
    maximum (ReduceMax propagating a NaN) takes the exact per-element branch. Without it,
    ``any`` over the mask (a NaN compares false, and its reduced result is NaN anyway).
    """
    import onnx_ir as ir

    from pyonnx.frontend.graph import dtypes
    from pyonnx.frontend.numpy_calls.reductions.common import reduce_any

    if not res.shape:  # a 0-d value: the If would cost more than the Where it saves
        return where(ax.ge(_REDUCE_LIMIT), x.unary(op), res)
    if amax is not None:
        any_big = ~amax.lt(_REDUCE_LIMIT)
    else:
        big = ax.ge(_REDUCE_LIMIT)
        any_big = reduce_any(ctx, big.array(), tuple(range(len(big.shape))), keepdims=False)
    branches = []
    for label, compute in (("then", lambda: where(ax.ge(_REDUCE_LIMIT), x.unary(op), res)),
                           ("else", lambda: res.unary("Identity"))):
        with ctx.subgraph() as nodes:
            out = compute().value
        out.type = ir.TensorType(dtypes.to_ir(res.dtype))
        branches.append(ir.Graph([], [out], nodes=nodes,
                                 name=f"{ctx.function_name}_{op.lower()}_{label}"))
    value = ctx.op("If", any_big.value, then_branch=branches[0], else_branch=branches[1])
    value.type = ir.TensorType(dtypes.to_ir(res.dtype))
    value.shape = ir.Shape(list(res.shape))
    return Ex(ctx, value, res.dtype, res.shape)


def _trig(ctx, x: Array, which: str) -> Array:
    e = Ex.of(ctx, x)
    ax = e.abs()
    if which == "tan":
        fn, y0, y1 = _rem_pio2(e)
        q = _quadrant(fn)
        res = _ktan(y0, y1, q.eq(1.0) | q.eq(3.0))
        big = e.unary("Sin") / e.unary("Cos")
        res = where(ax.ge(2.0 ** -27), res, e)
        return where(ax.ge(_REDUCE_LIMIT), big, res).array()
    op = "Sin" if which == "sin" else "Cos"
    if not e.shape:  # a 0-d value: an If would cost more than the nodes it skips
        return _with_large_arguments(ctx, e, ax, _sin_reduced(ctx, e, which), op).array()
    # Arguments within [-pi/2, pi/2] (angles in radians of latitudes, half-differences...)
    # need no reduction: an If on max|x| skips it (a NaN, skipped or propagated by
    # ReduceMax, is NaN through either branch).
    # onnxruntime's ReduceMax may skip a NaN together with the elements before it
    # ([0.1, nan, 0.2, 5.0, 0.3] gave 0.2-ish: measured), so the bound is made NaN whenever
    # some element is NaN (or inf): + 0 * sum(|x|), whose sum is NaN (0 * inf is NaN too).
    # A NaN bound takes the exact branches of both Ifs.
    amax = ax.unary("ReduceMax", keepdims=0)
    total = ax.unary("ReduceSum", keepdims=0)
    amax = Ex(ctx, amax.value, amax.dtype, ()) + Ex(ctx, total.value, total.dtype, ()) * 0.0
    small = amax.le(_PIO2_1)
    return _if(ctx, small, lambda: _within_half_pi(e, which),
               lambda: _with_large_arguments(ctx, e, ax, _sin_reduced(ctx, e, which), op, amax),
               f"{which}_range").array()


def _within_half_pi(e: Ex, which: str) -> Ex:
    """sin or cos of |x| <= pi/2 (below _PIO2_1): Sin(x) itself, or cos(x) = -sin(|x| - pi/2)
    reduced as :func:`_sin_reduced` does with m = 0 (|x| - pi/2 is -pi/2..0)."""
    if which == "sin":
        return e.unary("Sin")
    z0, neg_z1 = _reduce_by(e.abs(), Ex(e.ctx, e.ctx.const(np.array(1.0)), _F64, ()), even=True)
    zz = z0 * z0
    cos_z0 = 1.0 - zz * (0.5 - zz * (1.0 / 24.0))
    return (z0.unary("Sin") - neg_z1 * cos_z0) * -1.0


def _if(ctx, cond: Ex, then_fn, else_fn, label: str) -> Ex:
    """An ``If`` on the 0-d bool ``cond`` whose branches compute ``then_fn()``/``else_fn()``
    (float64 Ex of one shape)."""
    import onnx_ir as ir

    from pyonnx.frontend.graph import dtypes

    branches, like = [], None
    for name, compute in (("then", then_fn), ("else", else_fn)):
        with ctx.subgraph() as nodes:
            res = compute()
            out = res.unary("Identity").value if res.value.producer() is None else res.value
        out.type = ir.TensorType(dtypes.to_ir(res.dtype))
        like = res
        branches.append(ir.Graph([], [out], nodes=nodes,
                                 name=f"{ctx.function_name}_{label}_{name}"))
    value = ctx.op("If", cond.value, then_branch=branches[0], else_branch=branches[1])
    value.type = ir.TensorType(dtypes.to_ir(like.dtype))
    value.shape = ir.Shape(list(like.shape))
    return Ex(ctx, value, like.dtype, like.shape)


def sin(ctx, x: Array) -> Array:
    return _trig(ctx, x, "sin")


def cos(ctx, x: Array) -> Array:
    return _trig(ctx, x, "cos")


def tan(ctx, x: Array) -> Array:
    return _trig(ctx, x, "tan")
