"""Float selects as a gather from the stacked operands (elementwise/gather_select.py):
np.where, np.maximum/minimum, fmax/fmin and clip keep numpy's bits exactly (-0.0 in either
branch, NaN), broadcast as numpy does (a shape that cannot broadcast fails), and use no Where
on large results."""

from __future__ import annotations

import numpy as np
import pytest

import pyonnx
from tests.oracle import check

FLOATS = (np.float64, np.float32, np.float16)
SPECIAL = [0.0, -0.0, np.nan, np.inf, -np.inf, 1.0, -1.0, 5e-324, -2.5]


def where3(c, a, b):
    return np.where(c, a, b)


def where_scalar(x):
    return np.where(x > 0, x, -0.0), np.where(x < 0, 0.0, x)


def picks(a, b):
    return np.maximum(a, b), np.minimum(a, b), np.fmax(a, b), np.fmin(a, b)


def max_min(a, b):
    return np.maximum(a, b), np.minimum(a, b)


def clip_nonzero(a, lo, hi):
    return np.clip(a, lo, hi), np.clip(a, lo[None], None), a.clip(None, hi)


def clips(a, lo, hi):
    return np.clip(a, lo, hi), np.clip(a, 0.0, None), np.clip(a, -0.0, 1.0)


def _pairs(dt):
    s = np.array(SPECIAL, dtype=dt)
    return np.repeat(s, len(s)), np.tile(s, len(s))


@pytest.mark.parametrize("dt", FLOATS)
def test_where_exact_bits(dt):
    a, b = _pairs(dt)
    c = np.arange(a.size) % 3 == 0
    with np.errstate(invalid="ignore"):
        check(where3, c, a, b, signed_zeros=True)
        check(where3, ~c, b, a, signed_zeros=True)
        check(where_scalar, a, signed_zeros=True)


@pytest.mark.parametrize("dt", FLOATS)
def test_maximum_minimum_fmax_fmin_zero_ties(dt):
    a, b = _pairs(dt)
    with np.errstate(invalid="ignore"):
        check(max_min, a, b, signed_zeros=True)
        # numpy's fmax/fmin pick either zero of a +-0 tie depending on its loop (vectorized or
        # not; same on main): values only.
        check(picks, a, b, signed_zeros=False)
        # (fmax/fmin: numpy's own tie rule differs between its vectorized and broadcast loops)
        check(max_min, a.reshape(9, 9), b[:9], signed_zeros=True)


@pytest.mark.parametrize("dt", FLOATS)
def test_clip_signs(dt):
    a, _ = _pairs(dt)
    with np.errstate(invalid="ignore"):
        # (zero bounds: numpy's SIMD clip picks either zero of a tie; same on main)
        check(clips, a, np.array(-0.0, dt), np.array(0.0, dt), signed_zeros=False)
        check(clip_nonzero, a, np.array(-1.0, dt), np.array(2.0, dt), signed_zeros=True)


@pytest.mark.parametrize("shapes", [((5, 1), (1, 4), ()), ((1,), (6,), (6,)), ((3, 1), (3,), (1, 3)),
                                    ((0,), (0,), (0,)), ((0, 2), (1, 2), ()), ((2, 3), (), ()),
                                    ((), (4,), (4,)), ((4,), (1,), (1,))])
def test_where_broadcasting(shapes):
    rng = np.random.default_rng(len(str(shapes)))
    sc, sa, sb = shapes
    c = rng.random(sc) < 0.5
    a = rng.normal(size=sa)
    b = rng.normal(size=sb)
    check(where3, np.asarray(c), np.asarray(a), np.asarray(b), signed_zeros=True)


def test_where_incompatible_shapes_fail():
    compiled = pyonnx.compile(where3)
    compiled(np.ones(3, bool), np.ones(3), np.ones(3))
    with pytest.raises(Exception):
        compiled(np.ones(3, bool), np.ones(4), np.ones(3))
    with pytest.raises(Exception):
        compiled(np.ones(2, bool), np.ones(3), np.ones(3))


def test_no_where_on_large_results():
    for fn, args in ((where3, (np.ones(500, bool), np.ones(500), np.ones(500))),
                     (where_scalar, (np.ones(500),)), (picks, (np.ones(500), np.ones(500)))):
        nodes = pyonnx.compile(fn).to_onnx(*args).graph.node
        assert "GatherElements" in [n.op_type for n in nodes], fn.__name__
        # Where only on shape vectors (the run-time broadcast shape), never on the data.
        shape_vectors = {o for n in nodes if n.op_type == "Where" for o in n.output}
        for n in nodes:
            if set(n.input) & shape_vectors:
                assert n.op_type in ("Where", "Expand", "Equal"), (fn.__name__, n.op_type)


def test_small_static_keeps_where():
    compiled = pyonnx.compile(where_scalar, static_shapes=True)
    ops = [n.op_type for n in compiled.to_onnx(np.ones(8)).graph.node]
    assert "GatherElements" not in ops
    check(compiled, np.array(SPECIAL), signed_zeros=True)


def masked_loop(x):
    y = np.empty_like(x)
    for i in range(len(x)):
        if x[i] > 0.0:
            y[i] = x[i] * 2.0
        else:
            y[i] = -x[i]
    return y


def where_of_slices(x, a, b):
    # the same slice spelled twice is one shape; x[a:b] beside x[a:b + 1] is not
    return np.where(x[a:b] > 0, x[a:b] * 2, -x[a:b]), np.where(x[a:b] > 1, x[a:b], x[a:b + 1])


@pytest.mark.parametrize("n", [0, 1, 9, 300])
def test_operands_computed_alike_need_no_expand(n):
    # a vectorized loop lowers x[i] once per use: Slices of equal bounds are one shape
    x = np.random.default_rng(n).normal(size=n)
    if n:
        x[0] = -0.0
    check(masked_loop, x)
    m = pyonnx.compile(masked_loop).to_onnx(x)
    assert "Expand" not in {node.op_type for node in m.graph.node}


def test_slices_of_other_bounds_still_broadcast_as_numpy():
    x = np.linspace(-2, 2, 9)
    for a, b in ((2, 3), (0, 0)):   # lengths 1 and 2, 0 and 1: numpy broadcasts
        check(where_of_slices, x, a, b)
    with pytest.raises(ValueError):
        where_of_slices(x, 1, 4)
    with pytest.raises(pyonnx.PyonnxError):
        pyonnx.compile(where_of_slices)(x, 1, 4)
