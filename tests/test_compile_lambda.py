"""``pyonnx.compile(lambda ...)`` (frontend/source.py: the Lambda node found in its file's tree
by its code's positions): a lambda as the compiled function itself, as jax.jit takes one. It
was refused ("define the function with 'def'"), and inside a dict literal refused with a
parse error without a line."""

from __future__ import annotations

import numpy as np
import pytest

import pyonnx
from tests.oracle import check

TRANSFORMS = {
    "double": lambda x: x * 2,
    "shift": lambda x, k=1.5: x + k,
    "energy": lambda x: np.sum(x ** 2, axis=-1),
}
PAIR = (lambda a: a + 1, lambda a: a - 1)  # (two on one line: told apart by their positions)


@pytest.mark.parametrize("name", sorted(TRANSFORMS))
@pytest.mark.parametrize("x", [np.arange(6.0).reshape(2, 3), np.zeros((0, 3), np.float32)])
def test_lambdas_in_a_dict(name, x):
    check(TRANSFORMS[name], x)


def test_two_lambdas_on_one_line():
    x = np.arange(3.0)
    assert np.array_equal(pyonnx.compile(PAIR[0])(x), x + 1)
    assert np.array_equal(pyonnx.compile(PAIR[1])(x), x - 1)


def test_lambda_with_a_nested_lambda_and_the_models_names():
    f = check(lambda x: x.mean(axis=0) - (lambda y: y * 2)(x[0]), np.ones((2, 3)))
    import onnx
    model = onnx.load_from_string(f._last.model)
    assert model.graph.name == "lambda" and [o.name for o in model.graph.output] == ["lambda"]


def test_errors_in_a_lambda_point_into_it():
    f = pyonnx.compile(lambda x: x[5])
    with pytest.raises(IndexError, match="index 5 is out of bounds"):
        f(np.ones(2))
    g = pyonnx.compile(lambda x: x.tofile("out.bin"))
    with pytest.raises(pyonnx.ConversionError) as info:
        g(np.ones(2))
    assert info.value.lineno == g.fn.__code__.co_firstlineno
