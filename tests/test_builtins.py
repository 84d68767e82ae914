"""Python builtins, math functions and numpy scalar casts inside compiled functions."""

from __future__ import annotations

import numpy as np
import pytest

from tests import builtins_kernels as k
from tests.oracle import check

X = np.array([1.5, -2.25, 3.0, 0.0])


@pytest.mark.parametrize("fn", [
    k.len_and_range, k.builtin_abs, k.builtin_minmax_scalars, k.builtin_max_of_array,
    k.builtin_round, k.builtin_float_int_bool, k.builtin_sum, k.math_functions,
    k.int_div_is_float, k.numpy_casts, k.constants,
], ids=lambda f: f.__name__)
@pytest.mark.parametrize("dtype", ["float32", "float64"])
def test_builtins(fn, dtype):
    check(fn, X.astype(dtype))


def test_builtins_on_ints():
    x = np.array([3, -7, 2, 0], dtype=np.int32)
    for fn in (k.len_and_range, k.builtin_abs, k.builtin_minmax_scalars, k.builtin_max_of_array,
               k.builtin_sum, k.int_div_is_float):
        check(fn, x)


def test_max_with_data_dependent_type_refused():
    import pyonnx

    with pytest.raises(pyonnx.ConversionError, match="depend on the data"):
        pyonnx.compile(k.builtin_max_mixed_kinds)(np.array([1, 2], dtype=np.int32))


def test_int_of_nan_fails_the_run_at_the_line():
    import pyonnx

    f = check(k.int_of_element, np.array([2.7, 1.0]))
    with pytest.raises(ValueError, match="cannot convert float NaN or infinity to integer") \
            as info:
        f(np.array([np.nan, 1.0]))
    assert isinstance(info.value, pyonnx.ExecutionError)
    assert "builtins_kernels.py" in str(info.value)
