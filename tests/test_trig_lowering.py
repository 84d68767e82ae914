"""float64 sin/cos with fewer nodes (precise/trig.py): the quadrant chosen by arithmetic, not
Where, and onnxruntime's Sin/Cos for huge arguments only in an If taken when some element
needs them. Accuracy itself is tests/test_elementwise.py's (ulps from the correctly rounded
value); here: the branches, shapes and signs of zero, against numpy."""

from __future__ import annotations

import numpy as np
import pytest

import pyonnx
from tests.oracle import check, op_types


def sin(x):
    return np.sin(x)


def cos(x):
    return np.cos(x)


def haversine(lat1, lon1, lat2, lon2):
    dlat = np.radians(lat2 - lat1)
    dlon = np.radians(lon2 - lon1)
    a = (np.sin(dlat / 2) ** 2 +
         np.cos(np.radians(lat1)) * np.cos(np.radians(lat2)) * np.sin(dlon / 2) ** 2)
    return 6367.0 * 2.0 * np.arcsin(np.sqrt(a))


def in_a_loop(x, n):
    acc = np.zeros_like(x)
    for i in range(n):
        acc = acc + np.sin(x * i) - np.cos(x + i)
    return acc


SPECIAL = np.array([0.0, -0.0, 5e-324, -5e-324, 1e-300, -1e-9, 2.0 ** -27, -2.0 ** -27,
                    np.pi / 4, -np.pi / 2, np.pi, 3 * np.pi / 2, -2 * np.pi, 1e5, -1e5])
HUGE = np.array([2.0 ** 19 * np.pi, -1e6 * np.pi, 1e22, -1e300, np.inf, -np.inf, np.nan])


@pytest.mark.parametrize("fn", [sin, cos])
@pytest.mark.parametrize("values", ["special", "huge", "mixed", "nan_and_huge"])
def test_sin_cos_match_numpy_with_and_without_the_large_branch(fn, values):
    x = {"special": SPECIAL, "huge": HUGE, "mixed": np.concatenate([SPECIAL, HUGE]),
         "nan_and_huge": np.array([np.nan, 1e10, 0.5])}[values]
    with np.errstate(invalid="ignore"):
        check(fn, x, signed_zeros=True)
        check(fn, x.reshape(-1, 1).copy(), signed_zeros=True)


@pytest.mark.parametrize("fn", [sin, cos])
def test_0d_and_empty(fn):
    for v in (0.0, -0.0, 3.0, 1e20, np.inf):
        with np.errstate(invalid="ignore"):
            check(fn, np.float64(v), signed_zeros=True)
            check(fn, np.array(v), signed_zeros=True)
    check(fn, np.zeros((0, 3)))


def test_no_where_on_the_array_path():
    x = np.linspace(-10, 10, 50)
    for fn, op in ((sin, "Sin"), (cos, "Cos")):
        assert {"If", op, "Where"} <= op_types(pyonnx.compile(fn), x)  # (in the If branches)
        top = {n.op_type for n in pyonnx.compile(fn).to_onnx(x).graph.node}
        assert "Where" not in top and "Sin" not in top and "Cos" not in top


def test_haversine_and_loops():
    rng = np.random.default_rng(0)
    lat = lambda n: rng.uniform(-80, 80, n)  # noqa: E731
    lon = lambda n: rng.uniform(-170, 170, n)  # noqa: E731
    check(haversine, lat(200), lon(200), lat(200), lon(200))
    check(in_a_loop, rng.normal(size=7), 0)
    check(in_a_loop, rng.normal(size=7), 1)
    check(in_a_loop, rng.normal(size=7) * 1e6, 4)
