"""Every differentiable numpy function pyonnx registers, differentiated at top level, inside a
run-time ``for`` and inside a run-time ``if``, in float64 and float32, against central finite
differences (issue 19: six composite float64 functions lost their gradient inside loops and
branches while the top-level tests passed).

The table is tests/grad_table.py, the generated kernels tests/grad_table_kernels.py. The oracle is numpy running the
same kernel in float64, differentiated by central differences at two step sizes that must agree
(the sample point is smooth); float32 gradients are compared with a float32 tolerance. Every
gradient model passes ``onnx.checker.check_model(full_check=True)``.
"""

from __future__ import annotations

import warnings

import numpy as np
import onnx
import pytest

import pyonnx
from pyonnx.frontend import numpy_calls
from tests import grad_table as T
from tests.grad_table_kernels import kernel
from tests.oracle import loop_nodes
from tests.test_grad import numeric_grad

CONTEXTS = ("top", "loop", "branch")


def _inputs(name: str, dtype, seed: str):
    entry = T.TABLE[name]
    rng = np.random.default_rng(list(seed.encode()))
    x = T.DOMAINS[entry.x](rng, 12).reshape(3, 4)
    y = T.DOMAINS[entry.y or "any"](rng, 4)
    return x.astype(dtype), y.astype(dtype)


def finite_differences(fn, args, k):
    """Central differences in argument ``k`` at two step sizes, which must agree; and the
    scale of the gradient for an absolute tolerance (its largest element, or the rounding
    error of the differences: a few ulp of the function's value over the step)."""
    eps = 1e-6
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", RuntimeWarning)
        fine = numeric_grad(fn, args, k, eps=eps)
        coarse = numeric_grad(fn, args, k, eps=1e-4)
        value = abs(float(fn(*[a.astype(np.float64) if isinstance(a, np.ndarray)
                               and a.dtype.kind == "f" else a for a in args])))
    rounding = 8 * np.finfo(np.float64).eps * value / eps
    scale = max(1.0, float(np.max(np.abs(fine), initial=0.0)), rounding * 1e6)
    np.testing.assert_allclose(fine, coarse, rtol=1e-4, atol=1e-4 * scale,
                               err_msg="the oracle: finite differences disagree")
    return fine, scale


def check_kernel(fn, name: str, dtype, context: str, runs) -> None:
    """pyonnx.grad of ``fn`` (one model per signature) on each (c, n) in ``runs``."""
    entry = T.TABLE[name]
    x, y = _inputs(name, dtype, f"{name}/{context}")
    nums = (0, 1) if entry.y else (0,)
    g = pyonnx.grad(fn, argnums=nums)
    tol = 1e-6 if dtype == np.float64 else 3e-3
    for c, n in runs:
        args = (x, y, c, n)
        got = g(*args)
        for k, value in zip(nums, got):
            assert value.dtype == args[k].dtype and value.shape == args[k].shape
            want, scale = finite_differences(fn, args, k)
            np.testing.assert_allclose(
                np.asarray(value, np.float64), want, rtol=tol, atol=tol * scale,
                err_msg=f"{name} in {context} ({np.dtype(dtype).name}), d/d arg {k}, "
                        f"c={c}, n={n}")
    model = onnx.load_from_string(g._last.model)
    onnx.checker.check_model(model, full_check=True)
    # The function really sits in a run-time loop or branch (none was unrolled or folded).
    ops = {n.op_type for n in model.graph.node} | ({"Loop"} if loop_nodes(model.graph) else set())
    assert CONTROL_FLOW[context] <= ops


# A loop of 2, 0 and 1 iterations; a branch taken and not taken (one model each). 0-d arrays:
# a Python scalar whose value the conversion needs (``if c > 0.0``) would become static.
RUNS = {"top": [(np.array(1.0), np.array(2))],
        "loop": [(np.array(1.0), np.array(n)) for n in (2, 0, 1)],
        "branch": [(np.array(c), np.array(2)) for c in (1.0, -1.0)]}
CONTROL_FLOW = {"top": set(), "loop": {"Loop"}, "branch": {"If"}}


def test_table_covers_the_registry():
    # (pyonnx.sklearn registers scikit-learn's input checks when imported: not numpy
    # functions, and the registry holds them only in some test orders.)
    registered = {n for n in numpy_calls.registered_names() if not n.startswith("sklearn.")}
    listed = set(T.TABLE) | set(T.NOT_DIFFERENTIABLE)
    assert not registered - listed, f"registered, in no table: {sorted(registered - listed)}"
    assert not listed - registered, f"listed, not registered: {sorted(listed - registered)}"
    assert not set(T.TABLE) & set(T.NOT_DIFFERENTIABLE)


@pytest.mark.parametrize("dtype", [np.float64, np.float32], ids=["f64", "f32"])
@pytest.mark.parametrize("context", CONTEXTS)
@pytest.mark.parametrize("name", list(T.TABLE))
def test_gradient(name, context, dtype):
    check_kernel(kernel(context, name), name, dtype, context, RUNS[context])


@pytest.mark.parametrize("dtype", [np.float64, np.float32], ids=["f64", "f32"])
@pytest.mark.parametrize("context", CONTEXTS)
@pytest.mark.parametrize("name", list(T.ZEROS))
def test_gradient_at_item_assigned_zeros(name, context, dtype):
    # Exact zeros written by item assignment, where the function is smooth: guards that
    # select a branch out must not turn its zero cotangent into NaN (0 * inf).
    check_kernel(kernel(context, name, zeros=True), name, dtype, context, RUNS[context])
