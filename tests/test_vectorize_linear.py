"""Linear first-order recurrences as a blocked scan (pyonnx/frontend/vectorize/linear.py):
differential against the Python loop (numpy is the oracle) at 0, 1, 2 and many iterations,
lengths that are and are not multiples of the block, float32 and float64; NaN, inf, zeros and
overflow give numpy's values exactly (the step-by-step fallback); loops the form must not take
(integers, a coefficient that varies, a non-linear dependence, |a| > 1 known now) keep their
Loop and stay right."""

import numpy as np
import pytest

from pyonnx.frontend.vectorize.linear import BLOCK
from tests.oracle import check, op_types

FLOATS = [np.float32, np.float64]
SIZES = [1, 2, 3, 4, BLOCK, BLOCK + 1, 2 * BLOCK + 3, 1000]


def ewma(x, alpha):
    out = np.empty_like(x)
    out[0] = x[0]
    for i in range(1, x.shape[0]):
        out[i] = alpha * x[i] + (1 - alpha) * out[i - 1]
    return out


def recurrence(x, a):
    y = np.zeros_like(x)
    for i in range(1, len(x)):
        y[i] = y[i - 1] * a + x[i]
    return y


def static_coefficient(x):
    y = np.empty_like(x)
    y[0] = x[0]
    for i in range(1, len(x)):
        y[i] = 0.75 * y[i - 1] + x[i]
    return y


def minus_product(x, a):
    y = np.zeros_like(x)
    for i in range(1, len(x)):
        y[i] = x[i] - a * y[i - 1]
    return y


def minus_values(x, a):
    y = np.zeros_like(x)
    for i in range(1, len(x)):
        y[i] = y[i - 1] * a - x[i] * 0.5
    return y


def invariant_term(x, a):
    y = np.copy(x)
    for i in range(1, len(x)):
        y[i] = a * y[i - 1] + 1.0
    return y


def shifted_write(x, a):
    y = np.zeros(len(x) + 1, x.dtype)
    for i in range(len(x)):
        y[i + 1] = a * y[i] + x[i]
    return y


def bounded_by_n(x, a, n):
    y = np.zeros_like(x)
    for i in range(1, n):
        y[i] = y[i - 1] * a + x[i]
    return y


def fixed_size(x, a):
    y = np.zeros(8)
    y[0] = 1.0
    for i in range(1, 8):
        y[i] = y[i - 1] * a + x[i]
    return y


def fixed_input(a):
    y = np.ones(100)
    for i in range(1, 100):
        y[i] = y[i - 1] * a + 0.5
    return y


# ----------------------------------------------------------------- must stay a Loop
def growing(x):
    y = np.zeros_like(x)
    for i in range(1, len(x)):
        y[i] = y[i - 1] * 2.0 + x[i]
    return y


def varying_coefficient(x, a):
    y = np.zeros_like(x)
    for i in range(1, len(x)):
        y[i] = a[i] * y[i - 1] + x[i]
    return y


def non_linear(x):
    y = np.zeros_like(x)
    for i in range(1, len(x)):
        y[i] = y[i - 1] * y[i - 1] * 0.5 + x[i]
    return y


def blocked(c, *args, rows=False):
    """The model runs the blocked form: a MatMul, and no Loop where the steps are elements
    (LoopToScanPass makes the Loops of the carries and the exact steps Scans; row states stay
    Loops)."""
    ops = op_types(c, *args)
    assert "MatMul" in ops and (rows or "Loop" not in ops), sorted(ops)


def kept_loop(c, *args):
    ops = op_types(c, *args)
    assert "MatMul" not in ops and ({"Loop", "Scan"} & ops), sorted(ops)


def data(n, dtype, seed=0):
    return np.random.default_rng(seed + n).normal(size=n).astype(dtype)


@pytest.mark.parametrize("dtype", FLOATS)
@pytest.mark.parametrize("n", SIZES)
@pytest.mark.parametrize("alpha", [0.0, 0.1, 0.5, 1.0])
def test_ewma(n, dtype, alpha):
    x = data(n, dtype)
    blocked(check(ewma, x, alpha), x, alpha)


@pytest.mark.parametrize("dtype", FLOATS)
@pytest.mark.parametrize("n", [0, 1, 2, 3, 100, 5000])
@pytest.mark.parametrize("a", [0.5, -0.9, 0.0, 1.5, -3.0])
def test_recurrence(n, dtype, a):
    # |a| > 1 at run time: the step-by-step Scan (exact); else the blocked form.
    x = data(n, dtype)
    blocked(check(recurrence, x, a), x, a)


@pytest.mark.parametrize("dtype", FLOATS)
@pytest.mark.parametrize("n", [1, 2, 3, 130])
def test_forms(n, dtype):
    x = data(n, dtype)
    blocked(check(static_coefficient, x), x)
    for fn in (minus_product, minus_values, invariant_term, shifted_write):
        blocked(check(fn, x, 0.6), x, 0.6)


def test_arrays_made_in_the_function():
    x = data(10, np.float64)
    blocked(check(fixed_size, x, 0.4), x, 0.4)
    blocked(check(fixed_input, 0.9), 0.9)


@pytest.mark.parametrize("n", [0, 1, 2, 70])
def test_run_time_trip_count(n):
    x = data(80, np.float64)
    blocked(check(bounded_by_n, x, 0.3, n), x, 0.3, n)


@pytest.mark.parametrize("dtype", FLOATS)
@pytest.mark.parametrize("a", [1.0, -1.0, 0.999])
def test_accuracy_near_the_unit_circle(dtype, a):
    # The documented bound: |got - loop| <= 4 u n_i M_i with n_i = min(i + 1, 1 / (1 - |a|)).
    n = 6000
    x = (np.random.default_rng(1).normal(size=n) * 4 + 3).astype(dtype)
    want = recurrence(x, dtype(a))
    u = np.finfo(dtype).eps
    neff = n if abs(a) == 1 else min(n, 1 / (1 - abs(a)))
    atol = 4 * u * neff * float(np.max(np.abs(want)))
    blocked(check(recurrence, x, a, rtol=0, atol=atol), x, a)


@pytest.mark.parametrize("dtype", FLOATS)
@pytest.mark.parametrize("where", [0, 1, 5, 64, 199])
@pytest.mark.parametrize("bad", [np.nan, np.inf, -np.inf])
@pytest.mark.parametrize("alpha", [0.25, 1.0, 0.0])
def test_non_finite_values_keep_numpys_pattern(dtype, where, bad, alpha):
    x = data(200, dtype)
    x[where] = bad
    c = check(ewma, x, alpha)  # NaN exactly where numpy's, infinities with their signs
    blocked(c, x, alpha)
    y = data(200, dtype)
    y[where] = bad
    check(recurrence, y, -0.5)  # alternating infinities meet finite values


@pytest.mark.parametrize("dtype", FLOATS)
def test_zeros_keep_their_signs(dtype):
    x = np.zeros(100, dtype)
    x[::3] = -0.0
    check(ewma, x, 0.5)
    check(recurrence, -np.zeros(100, dtype), 0.5)
    check(recurrence, -np.zeros(100, dtype), -0.5)


@pytest.mark.parametrize("dtype", FLOATS)
def test_overflow_as_the_loop(dtype):
    big = np.finfo(dtype).max
    x = np.full(300, big / 3, dtype)
    check(recurrence, x, 1.0)  # inf from the 4th element on, as the loop
    x[::2] = -big / 3
    check(recurrence, x, 1.0)


@pytest.mark.parametrize("dtype", FLOATS)
def test_large_n_crosses_both_levels(dtype):
    n = BLOCK * BLOCK * 2 + 17  # three level-2 blocks: the Scan over block carries runs
    x = data(n, dtype)
    blocked(check(ewma, x, 0.2, rtol=1e-5 if dtype == np.float32 else 1e-12), x, 0.2)


# ------------------------------------------------------------------ never vectorized
@pytest.mark.parametrize("dtype", [np.int32, np.int64, np.bool_])
@pytest.mark.parametrize("n", [0, 1, 2, 40])
def test_integer_and_bool_data_stay_loops(n, dtype):
    x = (np.arange(n) * 7919 % 1000).astype(dtype)
    a = dtype(3) if dtype != np.bool_ else True
    if dtype == np.bool_:
        return kept_loop(check(invariant_term_bool, x, a), x, a)
    kept_loop(check(recurrence, x, a), x, a)


def invariant_term_bool(x, a):
    y = np.copy(x)
    for i in range(1, len(x)):
        y[i] = y[i - 1] * a + x[i]
    return y


def test_static_growth_stays_a_loop():
    x = data(50, np.float64)
    kept_loop(check(growing, x), x)


def test_varying_coefficient_stays_a_loop():
    x = data(50, np.float64)
    a = data(50, np.float64, seed=3)
    kept_loop(check(varying_coefficient, x, a), x, a)


def test_non_linear_dependence_stays_a_loop():
    x = data(50, np.float64) * 0.1
    kept_loop(check(non_linear, x), x)


def test_coefficient_of_another_dtype_stays_a_loop():
    # np.float64 * float32 element: the step is computed in float64, stored in float32
    x = data(50, np.float32)
    kept_loop(check(recurrence, x, np.float64(0.3)), x, np.float64(0.3))


def test_empty_array_and_zero_trips():
    x = np.zeros(0)
    check(recurrence, x, 0.5)
    check(bounded_by_n, data(5, np.float64), 0.5, 0)


@pytest.mark.parametrize("seed", range(24))
def test_random_recurrences_within_the_bound(seed):
    # Random coefficient in [-1.2, 1.2], length, dtype, scale and offset, and sometimes a NaN,
    # an infinity or exact zeros: within the documented bound where finite, numpy's NaN/inf
    # pattern and zero signs exactly (oracle) elsewhere.
    rng = np.random.default_rng(seed)
    dtype = FLOATS[seed % 2]
    n = int(rng.integers(0, 3 * BLOCK * BLOCK // 2))
    a = float(rng.uniform(-1.2, 1.2)) if seed % 5 else float(rng.choice([-1.0, 0.0, 1.0]))
    x = (rng.normal(size=n) * 10.0 ** rng.integers(-3, 4) + rng.normal() * 3).astype(dtype)
    if n and seed % 4 == 1:
        x[rng.integers(0, n)] = rng.choice([np.nan, np.inf, -np.inf])
    if n and seed % 4 == 2:
        x[rng.integers(0, n):] = 0.0
    with np.errstate(all="ignore"):
        want = recurrence(x, dtype(a))
    u = np.finfo(dtype).eps
    neff = n if abs(a) >= 1 else min(n, 1 / (1 - abs(a)))
    finite = want[np.isfinite(want)]
    atol = 4 * u * max(neff, 1) * float(np.max(np.abs(finite), initial=1.0))
    blocked(check(recurrence, x, a, rtol=8 * u, atol=atol), x, a)


@pytest.mark.parametrize("alpha", [np.float32(0.3), np.float64(0.3), 1, 0])
def test_coefficient_kinds(alpha):
    # numpy scalars and Python ints as alpha: 1 - alpha and alpha * x[i] in numpy's dtypes
    for dtype in FLOATS:
        x = data(150, dtype)
        c = check(ewma, x, alpha)
        if np.result_type(dtype, alpha) == dtype:
            blocked(c, x, alpha)


def backward(x, a):
    y = np.zeros_like(x)
    y[-1] = x[-1]
    for i in range(len(x) - 2, -1, -1):
        y[i] = a * y[i + 1] + x[i]
    return y


def backward_to(x, a, stop):
    y = np.ones_like(x)
    for i in range(len(x) - 1, stop, -1):
        y[i - 1] = y[i] * a - x[i]
    return y


@pytest.mark.parametrize("dtype", FLOATS)
@pytest.mark.parametrize("n", [1, 2, 3, 65, 300])
def test_descending_ranges(n, dtype):
    x = data(n, dtype)
    blocked(check(backward, x, 0.7), x, 0.7)
    blocked(check(backward, x, 2.5), x, 2.5)  # the exact steps at run time
    for stop in (0, n // 2):  # (stop -1 writes y[-1]: Python wraps, the vectorizer's check raises)
        blocked(check(backward_to, x, -0.6, stop), x, -0.6, stop)
    if n > 2:
        x[n // 2] = np.nan
        check(backward, x, 0.7)


def alias_rec(x, a):
    y = x
    for i in range(1, len(x)):
        y[i] = a * y[i - 1] + x[i - 1]  # x[i - 1] is the y[i - 1] just written
    return y


def view_rec(x, a):
    y = x[1:]
    for i in range(1, len(y)):
        y[i] = a * y[i - 1] + x[i]  # x[i] is y[i - 1]
    return x


def alias_cumsum(x):
    y = x
    for i in range(1, len(x)):
        y[i] = y[i - 1] + x[i - 1]
    return y


def alias_running_max(x):
    y = x[1:]
    for i in range(1, len(y)):
        y[i] = max(y[i - 1], x[i] * 0.5)
    return x


@pytest.mark.parametrize("n", [0, 1, 2, 5, 70])
def test_writes_seen_through_an_alias_stay_loops(n):
    # The loop reads values it wrote under another name: never vectorized (the prefix forms'
    # np.cumsum / running max read the old values: was silently wrong for alias_cumsum).
    x = np.arange(n, dtype=np.float64) + 1.0
    if n:
        kept_loop(check(alias_rec, x.copy(), 0.5), x.copy(), 0.5)
        kept_loop(check(alias_cumsum, x.copy()), x.copy())
    check(view_rec, x.copy(), 0.5)
    check(alias_running_max, x.copy())


def row_ewma(x, alpha):
    out = np.empty_like(x)
    out[0] = x[0]
    for i in range(1, x.shape[0]):
        out[i] = alpha * x[i] + (1 - alpha) * out[i - 1]
    return out


def row_recurrence(x, a, b):
    y = np.zeros_like(x)
    for i in range(1, len(x)):
        y[i] = y[i - 1] * a + b  # an invariant row (or scalar) added each step
    return y


def row_broadcast(x, a):
    y = np.zeros((x.shape[0], 3), x.dtype)
    for i in range(1, x.shape[0]):
        y[i] = a * y[i - 1] + x[i]  # rows of 1 broadcast into rows of 3
    return y


@pytest.mark.parametrize("dtype", FLOATS)
@pytest.mark.parametrize("shape", [(1, 3), (2, 3), (3, 1), (65, 4), (300, 2), (5000, 3), (7, 0)])
def test_rows(shape, dtype):
    # out[i] = a * out[i-1] + x[i] over the rows of a matrix (keypoints over frames)
    x = np.random.default_rng(shape[0]).normal(size=shape).astype(dtype)
    blocked(check(row_ewma, x, 0.3), x, 0.3, rows=True)
    blocked(check(row_ewma, x, 1.5), x, 1.5, rows=True)  # the exact steps at run time
    b = np.linspace(-1, 1, shape[1]).astype(dtype)
    blocked(check(row_recurrence, x, 0.5, b), x, 0.5, b, rows=True)
    blocked(check(row_recurrence, x, 0.5, 2.0), x, 0.5, 2.0, rows=True)
    if x.size:
        x[shape[0] // 2, 0] = np.nan
        check(row_ewma, x, 0.3)  # NaN in one column only, as the loop


def test_rows_broadcast_as_numpy():
    x = data(40, np.float64).reshape(40, 1)
    blocked(check(row_broadcast, x, 0.5), x, 0.5, rows=True)


def ewma_loss(x, alpha):
    out = np.empty_like(x)
    out[0] = x[0]
    for i in range(1, x.shape[0]):
        out[i] = alpha * x[i] + (1 - alpha) * out[i - 1]
    return np.sum(out * out)


@pytest.mark.parametrize("shape", [(1,), (5,), (70,), (4, 3)])
def test_gradient_through_the_blocked_form(shape):
    # The carries and the exact steps are Loops until LoopToScanPass (after the gradient pass):
    # pyonnx.grad differentiates the blocked form (a Scan has no VJP rule).
    import pyonnx

    x = np.random.default_rng(len(shape)).normal(size=shape)
    got = pyonnx.grad(ewma_loss)(x, 0.3)
    eps = 1e-6
    want = np.zeros_like(x)
    for j in np.ndindex(x.shape):
        e = np.zeros_like(x)
        e[j] = eps
        want[j] = (ewma_loss(x + e, 0.3) - ewma_loss(x - e, 0.3)) / (2 * eps)
    np.testing.assert_allclose(got, want, rtol=1e-5, atol=1e-6)
