"""Dtype and value-kind queries answered at conversion time (numpy_calls/type_queries.py):
np.isdtype, np.common_type, np.min_scalar_type, np.isscalar, np.iterable, against numpy."""

from __future__ import annotations

import numpy as np
import pytest

from tests.oracle import check, check_refused

ALL = ["bool", "int8", "int16", "int32", "int64", "uint8", "uint16", "uint32", "uint64",
       "float16", "float32", "float64"]


@pytest.mark.parametrize("dtype", ALL)
def test_isdtype_and_finfo_iinfo(dtype):
    def f(x):
        kinds = (np.isdtype(x.dtype, "real floating"), np.isdtype(x.dtype, "integral"),
                 np.isdtype(x.dtype, ("bool", "signed integer")), np.isdtype(x.dtype, np.int64),
                 np.isdtype(x.dtype, "numeric"))
        big = np.finfo(x.dtype).max if np.isdtype(x.dtype, "real floating") else (
            np.iinfo(x.dtype).max if np.isdtype(x.dtype, "integral") else 1)
        return np.array(kinds), x.astype(np.float64) * 0 + big
    check(f, np.ones((2, 3), dtype))
    check(f, np.ones((0,), dtype))


@pytest.mark.parametrize("dtype", ALL)
def test_common_type_and_min_scalar_type(dtype):
    def f(x, y):
        t = np.common_type(x, y) if x.dtype != np.bool_ else np.float64
        return x.astype(t) + y.astype(np.min_scalar_type(y)), np.ones(1, np.min_scalar_type(7))
    check(f, np.ones((2, 3), dtype), np.ones((1,), np.float32))
    check(f, np.ones((1, 1), dtype), np.ones((0,), np.float32))


def test_isscalar_iterable():
    def f(x, n):
        s = x.sum()
        a = np.asarray(s)
        flags = (np.isscalar(s), np.isscalar(x), np.isscalar(n), np.isscalar(a), np.isscalar(3.0),
                 np.iterable(x), np.iterable(s), np.iterable([x, x]), np.iterable(n))
        return np.array(flags)
    check(f, np.ones(3), 2)
    check(f, np.ones((0, 2)), 1.5)


def test_refusals():
    def isdtype_of_array(x):
        return np.isdtype(x, "integral")
    check_refused(isdtype_of_array, np.ones(3), match="dtype", numpy_match="dtype")

    def min_scalar_of_value(x):
        return np.min_scalar_type(x.sum())
    import pyonnx
    with pytest.raises(pyonnx.ConversionError, match="only known at run time"):
        pyonnx.compile(min_scalar_of_value)(np.ones(3))
