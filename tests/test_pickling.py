"""Pickling compiled functions (pyonnx/pickling.py): by reference when importable, by value
(source, closure, globals, options) otherwise; through multiprocessing and process pools."""

from __future__ import annotations

import os
import pickle
import subprocess
import sys

import numpy as np
import pytest

import pyonnx
from tests import pickling_kernels as k
from tests.oracle import check

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))


def test_importable_function_pickles_by_reference():
    x = np.random.default_rng(0).random((5, 3))
    for f in (k.standardize, k.grad_loss, k.value_and_grad_loss):
        data = pickle.dumps(f)
        assert pickle.loads(data) is f
        assert len(data) < 200  # a module and a name, not the source
    check(pickle.loads(pickle.dumps(k.standardize)), x)


def test_nested_function_pickles_by_value_with_its_closure_and_options():
    f = pyonnx.compile(k.make_scaled(1.5).fn, static_argnames="k")
    g = pickle.loads(pickle.dumps(f))
    assert g is not f and g.static_argnames == {"k"}
    assert g.fn.__closure__[0].cell_contents == 1.5
    x = np.arange(4.0)
    check(g, x.copy(), static_argnames="k")
    check(g, x.copy(), 5, static_argnames="k")
    # the same bytes unpickled again give the same object (one conversion per process)
    data = pickle.dumps(f)
    assert pickle.loads(data) is pickle.loads(data)


def test_transformed_functions_pickle_by_value():
    w, x = np.ones(3) * 0.1, np.random.default_rng(1).random((4, 3))

    def local_loss(w, x):
        return k.loss(w, x) + np.sum(w ** 2)

    for make in (pyonnx.grad, pyonnx.value_and_grad):
        f = make(local_loss)
        g = pickle.loads(pickle.dumps(f))
        assert repr(g) == repr(f)
        want, got = f(w, x), g(w, x)
        for a, b in zip(np.atleast_1d(want) if make is pyonnx.grad else want,
                        np.atleast_1d(got) if make is pyonnx.grad else got):
            np.testing.assert_allclose(b, a, rtol=1e-12)


def test_written_argument_after_unpickling():
    f = pickle.loads(pickle.dumps(pyonnx.compile(k.bump)))  # importable fn, not the object
    a = np.arange(3.0)
    assert f(a) == 6.0 and (a == [1.0, 2.0, 3.0]).all()


def test_errors_point_at_the_original_lines():
    def bad(x):
        y = x * 2
        return x.tobytes()

    g = pickle.loads(pickle.dumps(pyonnx.compile(bad)))
    with pytest.raises(pyonnx.ConversionError,
                       match=r"the array attribute or method '\.tobytes' is not") as info:
        g(np.ones(3))
    assert info.value.lineno == bad.__code__.co_firstlineno + 2
    assert info.value.filename == __file__ + " (pickled)"
    assert "x.tobytes()" in str(info.value)


def test_unreadable_source_is_a_clear_pickling_error():
    namespace: dict = {}
    exec("def f(x):\n    return x + 1\n", namespace)
    f = pyonnx.compile(namespace["f"])
    with pytest.raises(pickle.PicklingError, match="source is unavailable"):
        pickle.dumps(f)


@pytest.mark.parametrize("method", ["spawn", "fork", "executor"])
def test_main_script_functions_in_process_pools(method):
    out = subprocess.run([sys.executable, os.path.join(ROOT, "tests", "pickling_main_script.py"),
                          method], env=dict(os.environ, PYTHONPATH=ROOT), capture_output=True,
                         text=True, timeout=300)
    assert out.returncode == 0, out.stderr[-3000:]
    assert out.stdout.strip() == f"ok {method}"
