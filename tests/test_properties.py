"""Property tests where conversion bugs hide: range with static and run-time bounds of both
signs, loop state in every dtype over 0, 1 and many trips, break / continue / early return in
every placement, and item writes in every index form, all against numpy through the oracle.

Example counts come from the hypothesis profile (tests/conftest.py; ``HYPOTHESIS_PROFILE=ci``
runs more). Every bug these tests found is pinned with ``@example``.
"""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import assume, example, given
from hypothesis import strategies as st

import pyonnx
from tests import property_kernels as k
from tests.oracle import check
from tests.test_indexing import _subscripts

DTYPES = ["bool", "int8", "int16", "int32", "int64", "uint8", "uint16", "uint32", "uint64",
          "float16", "float32", "float64"]

# One compiled function per set of static arguments: the run-time ones share one model.
_RANGE = {}


def _range_fn(static: tuple[str, ...]):
    if static not in _RANGE:
        _RANGE[static] = pyonnx.compile(k.range_trace, static_argnames=static)
    return _RANGE[static]


bounds = st.integers(-12, 12)
steps = st.integers(-5, 5).filter(bool)


@given(a=bounds, b=bounds, s=steps, static=st.tuples(st.booleans(), st.booleans(),
                                                     st.booleans()))
# The length of a static negative step: range(4, -1, -2) is 4, 2, 0 (an off-by-one planted in
# iteration.py, `-step - 1` -> `-step - 2`, dropped the last item and passed the old suite).
@example(a=4, b=-1, s=-2, static=(False, False, True))
@example(a=4, b=-1, s=-2, static=(True, True, True))
@example(a=0, b=5, s=2, static=(False, False, True))
@example(a=5, b=0, s=1, static=(False, False, False))   # empty
@example(a=-1, b=-12, s=-5, static=(False, True, False))
def test_range_yields_pythons_values(a, b, s, static):
    names = tuple(n for n, st_ in zip("abs", static) if st_)
    args = [v if st_ else np.int64(v) for v, st_ in zip((a, b, s), static)]
    check(_range_fn(names), *args)


@given(b=st.integers(-3, 70), static=st.booleans())
@example(b=64, static=True)   # the unroll limit: 64 items are unrolled, 65 make a Loop
@example(b=65, static=True)
def test_range_one_argument(b, static):
    fn = pyonnx.compile(k.range_trace_stop, static_argnames=("b",) if static else ())
    check(fn, b if static else np.int64(b))


def _values(dtype: str, rng: np.random.Generator, n: int) -> np.ndarray:
    if dtype == "bool":
        return rng.random(n) < 0.5
    if dtype[0] in "iu":
        info = np.iinfo(dtype)
        return rng.integers(max(info.min, -100), min(info.max, 100), n, endpoint=True,
                            dtype=dtype)
    return rng.normal(0, 1.5, n).astype(dtype)


@pytest.mark.parametrize("dtype", DTYPES)
@given(trips=st.sampled_from([0, 1, 2, 7]), size=st.integers(1, 4), seed=st.integers(0, 99),
       static=st.booleans())
# Unrolled, x[i % x.shape[0]] read x[0] for i = 1: onnxruntime's DivMulFusion rewrote the
# integer 1 - (1 // n) * n as 1 - 1 (now disabled in runtime/session.py).
@example(trips=2, size=2, seed=0, static=True)
def test_loop_state_every_dtype(dtype, trips, size, seed, static):
    """A value of each dtype carried through a loop: numpy's dtype, wrapping and (float16)
    rounding after every trip, whether the trip count is static (unrolled) or run-time."""
    x = _values(dtype, np.random.default_rng(seed), size)
    n = trips if static else np.int64(trips)
    statics = ("n",) if static else ()
    kernel = k.loop_state_bool if dtype == "bool" else k.loop_state_array
    check(pyonnx.compile(kernel, static_argnames=statics), x, n)
    check(pyonnx.compile(k.loop_state_scalar, static_argnames=statics), x, n)


_JUMPS = pyonnx.compile(k.jumps, static_argnames=("brk", "cont", "ret"))
_JUMPS_WHILE = pyonnx.compile(k.jumps_while, static_argnames=("brk", "cont"))
places = st.integers(-1, 2)


@given(x=st.lists(st.integers(-3, 3).map(float), max_size=7), t=st.integers(0, 3).map(float),
       brk=places, cont=places, ret=places)
@example(x=[], t=0.0, brk=0, cont=0, ret=0)
@example(x=[1.0, -2.0, 3.0], t=2.0, brk=2, cont=1, ret=-1)
def test_break_continue_return_placements(x, t, brk, cont, ret):
    # (python_kinds=False: a Python start kept by every iteration of a Loop that stays a Loop
    # comes back as np.float64 of equal value: the Loop's Python-number flag covers 0 trips)
    check(_JUMPS, np.array(x, dtype=np.float64), t, brk, cont, ret, python_kinds=False)
    if ret == -1 and cont != 2:
        check(_JUMPS_WHILE, np.array(x, dtype=np.float64), t, brk, cont)


@given(trips=st.sampled_from([0, 1, 3]), size=st.integers(2, 4), v=st.integers(-3, 3),
       static=st.booleans())
def test_writes_into_arguments_in_loops(trips, size, v, static):
    """A loop writing into the caller's array and through a view of it: the view returned and
    the caller's array afterwards equal numpy's, for static (unrolled) and run-time trips."""
    x = np.arange(size, dtype=np.float64) + 1.0
    fn = pyonnx.compile(k.write_argument_in_loop, static_argnames=("n",) if static else ())
    check(fn, x, trips if static else np.int64(trips), float(v))
    fn = pyonnx.compile(k.augment_argument_in_loop, static_argnames=("n",) if static else ())
    check(fn, x, trips if static else np.int64(trips), float(v))


_WRITE = pyonnx.compile(k.write_index, static_argnames=("idx",))
_ADD_AT = pyonnx.compile(k.add_at_index, static_argnames=("idx",))


@given(case=_subscripts(), v=st.integers(-5, 5).map(float))
# x[()] = v on a (2, 3, 1, 0) array failed at run time (a Reshape to x's shape without
# allowzero, in setitem.py and setitem_forms.py).
@example(case=((2, 3, 1, 0), ()), v=-4.0)
@example(case=((2, 0), (Ellipsis,)), v=1.0)
def test_item_writes_every_index_form(case, v):
    """``x[idx] = v`` and ``x[idx] += v`` (duplicates in index arrays write once, as numpy's
    buffered ``+=``): the returned array and the caller's array afterwards equal numpy's."""
    shape, idx = case
    x = np.arange(int(np.prod(shape)), dtype=np.float64).reshape(shape)
    try:
        x.copy()[idx] = v
    except IndexError:
        assume(False)
    check(_WRITE, x.copy(), idx, v)
    check(_ADD_AT, x.copy(), idx, v)
