"""np.nanmedian against numpy: float dtypes skip each slice's NaNs with numpy's two ways of
averaging the middle values (np.median's for axis=None, 1-d arrays and reduced lengths of 600
or more, np.ma.median's for shorter slices), integer and bool arrays as np.median; axes,
keepdims, NaN placements (none, some, a slice all NaN, every element), 0-d, size-1 and empty
arrays, values whose doubled sum overflows."""

from __future__ import annotations

import numpy as np
import pytest

from tests.oracle import check

FLOATS = [np.float16, np.float32, np.float64]
OTHERS = [np.bool_, np.int8, np.int16, np.int32, np.int64, np.uint8, np.uint16, np.uint32,
          np.uint64]

pytestmark = pytest.mark.filterwarnings("ignore::RuntimeWarning")


def forms(x):
    return (np.nanmedian(x), np.nanmedian(x, axis=0), np.nanmedian(x, axis=-1, keepdims=True),
            np.nanmedian(x, axis=(0, 1)), np.nanmedian(x, keepdims=True))


def forms_1d(x):
    return np.nanmedian(x), np.nanmedian(x, axis=0, keepdims=True)


def forms_0d(x):
    return np.nanmedian(x[0]), np.nanmedian(x[1], keepdims=True)


def _data(dtype, nan: str, shape=(5, 4)):
    rng = np.random.default_rng(9)
    x = rng.normal(size=shape) * 10
    if nan == "some":
        x[rng.random(shape) < 0.3] = np.nan
    elif nan == "column":
        x[..., -1] = np.nan
        x[0] = np.nan
    elif nan == "all":
        x[...] = np.nan
    return x.astype(dtype)


@pytest.mark.parametrize("nan", ["none", "some", "column", "all"])
@pytest.mark.parametrize("dtype", FLOATS)
def test_floats(dtype, nan):
    check(forms, _data(dtype, nan))
    check(forms, _data(dtype, nan, (4, 6)))
    check(forms, _data(dtype, nan, (1, 1)))
    check(forms_1d, _data(dtype, nan, (7,)))


@pytest.mark.parametrize("dtype", FLOATS)
def test_long_slices_use_np_median(dtype):
    x = _data(dtype, "some", (3, 700))
    # (onnx's reference evaluator cannot run it: its GatherElements uses np.choose, at most 64)
    check(forms, x, reference=False)
    check(forms, x.T.copy(), reference=False)


@pytest.mark.parametrize("dtype", FLOATS)
def test_overflowing_middle_values(dtype):
    big = np.finfo(dtype).max
    x = np.array([[big, big * 0.75, np.nan], [big, np.nan, big], [-big, np.nan, np.nan]], dtype)
    check(forms, x)
    check(forms_1d, np.array([big, np.nan, big * 0.9], dtype))


@pytest.mark.parametrize("dtype", FLOATS)
def test_special_values(dtype):
    check(forms_1d, np.array([np.inf, -np.inf, np.nan], dtype))
    check(forms_1d, np.array([-0.0, 0.0, np.nan, -0.0], dtype))
    check(forms_0d, np.array([np.nan, 2.5], dtype))


@pytest.mark.parametrize("dtype", FLOATS)
def test_empty(dtype):
    check(forms, np.zeros((0, 3), dtype))
    check(forms, np.zeros((3, 0), dtype))
    check(forms_1d, np.zeros(0, dtype))


@pytest.mark.parametrize("dtype", OTHERS)
def test_integers_and_bools_as_median(dtype):
    x = np.abs(_data(np.float64, "none")).astype(dtype)
    check(forms, x)
    check(forms_1d, x[0])
