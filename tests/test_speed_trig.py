"""float64 sin/cos through onnxruntime's Sin on a reduced argument (precise/trig.py): the
range branch (max|x| <= pi/2: no reduction) and the reduced branch agree with numpy within 3
ulp, keep the sign of zero and NaN, and the 0-d, empty and huge cases; float32 is untouched."""

from __future__ import annotations

import numpy as np
import pytest

import pyonnx
from tests.oracle import check, op_types


def sin(x):
    return np.sin(x)


def cos(x):
    return np.cos(x)


def both(x, y):
    return np.sin(x) * np.cos(y), np.cos(x) - np.sin(y)


def _ulps(got, want):
    ok = ~np.isnan(want)
    assert np.array_equal(np.isnan(got), np.isnan(want))
    assert np.array_equal(np.signbit(got[ok & (want == 0)]), np.signbit(want[ok & (want == 0)]))
    return float(np.max(np.abs(got[ok] - want[ok]) / np.spacing(np.abs(want[ok])), initial=0))


HALF = 1.5707963267341256  # the range branch's bound (fdlibm's first piece of pi/2)


@pytest.mark.parametrize("fn", [sin, cos])
@pytest.mark.parametrize("case", ["small", "edge", "wide", "tiny", "multiples"])
def test_within_3_ulp_of_numpy(fn, case):
    rng = np.random.default_rng(hash(case) % 1000)
    x = {"small": rng.uniform(-HALF, HALF, 20000),
         "edge": HALF - 10.0 ** rng.uniform(-12, -1, 5000),
         "wide": rng.uniform(-50, 50, 20000),
         "tiny": 10.0 ** rng.uniform(-320, -5, 5000) * rng.choice([-1, 1], 5000),
         "multiples": np.arange(-300, 300) * (np.pi / 2)}[case]
    assert _ulps(pyonnx.compile(fn)(x), fn(x)) <= 3


@pytest.mark.parametrize("fn", [sin, cos])
@pytest.mark.parametrize("values", [[0.0, -0.0, 1.0], [-0.0, np.nan, 0.5], [np.nan, 3.0, -0.0],
                                    [HALF, -HALF, 0.0], [2.0, -1e-300, np.inf], [1e7, -0.0]])
def test_signs_nan_and_branches(fn, values):
    x = np.array(values)
    with np.errstate(invalid="ignore"):
        check(fn, x, signed_zeros=True)
        check(fn, x.reshape(1, -1, 1).copy(), signed_zeros=True)


@pytest.mark.parametrize("shape", [(0,), (0, 4), (1,), (3, 2)])
def test_shapes_and_two_arguments(shape):
    rng = np.random.default_rng(4)
    check(both, rng.uniform(-1, 1, shape), rng.uniform(-9, 9, shape))


def test_0d_and_float32():
    for v in (0.0, -0.0, 1.2, 4.0, 1e9):
        check(sin, np.float64(v), signed_zeros=True)
        check(cos, np.array(v), signed_zeros=True)
    x32 = np.linspace(-3, 3, 11, dtype=np.float32)
    check(sin, x32, rtol=1e-6)
    assert "If" not in op_types(pyonnx.compile(sin), x32)


def test_range_branch_is_one_sin():
    x = np.linspace(-1, 1, 7)
    model = pyonnx.compile(sin).to_onnx(x)
    (node,) = [n for n in model.graph.node if n.op_type == "If"]
    (then,) = [a.g for a in node.attribute if a.name == "then_branch"]
    assert [n.op_type for n in then.node] == ["Sin"]
