"""Refusals inside followed calls read like a traceback from the user's line.

A custom step calls a helper module of the user's, which calls scikit-learn; pyonnx follows the
source of both. The error is at the user's line (file, line, caret), its call chain lists each
followed call down to the line that refused, and the advice names the user's call to change.
Every refusal has a file and a line, including ones about the returned value.
"""

from __future__ import annotations

import inspect

import numpy as np
import pytest
from sklearn.base import BaseEstimator, TransformerMixin

import pyonnx
import pyonnx.sklearn
from pyonnx.errors import ConversionError
from tests import sklearn_user_helpers as helpers

X = np.random.default_rng(0).random((6, 6)).astype(np.float32)


def _line(fn, text):
    """The absolute line of the first line of ``fn`` containing ``text``."""
    lines, start = inspect.getsourcelines(fn)
    return start + next(i for i, line in enumerate(lines) if text in line)


class CallsLibrary(BaseEstimator, TransformerMixin):
    def fit(self, X, y=None):
        return self

    def transform(self, X):
        X = helpers.log_scale(X)
        return helpers.symmetric_part(X)  # the user's line


class CallsRefusingHelper(BaseEstimator, TransformerMixin):
    def fit(self, X, y=None):
        return self

    def transform(self, X):
        text = helpers.describe(X)  # the user's line
        return X


def test_library_refusal_is_at_user_line_with_the_chain():
    with pytest.raises(ConversionError,
                       match=r"sklearn\.utils\.validation\.check_symmetric is not") as info:
        pyonnx.sklearn.to_onnx(CallsLibrary().fit(X), X[:1])
    e = info.value
    helper_line = _line(helpers.symmetric_part, "MARK: library call")
    # The helper module is the user's: the error is at its line, the library call in it.
    assert (e.filename, e.lineno) == (helpers.__file__, helper_line)
    chain = [(f.filename.rsplit("/", 1)[-1], f.lineno, f.function) for f in e.frames]
    assert chain[0] == ("test_sklearn_errors.py", _line(CallsLibrary.transform, "user's line"),
                        "transform")
    assert chain[1] == ("sklearn_user_helpers.py", helper_line, "symmetric_part")
    assert chain[2][0] == "validation.py" and chain[2][2] == "check_symmetric"
    text = str(e)
    assert "sklearn.utils.validation.check_symmetric is not supported" in text
    assert f"What to change: change the call at sklearn_user_helpers.py:{helper_line}" in text
    assert f"test_sklearn_errors.py:{chain[0][1]} in transform" in text
    assert f"→ sklearn/utils/validation.py:{chain[2][1]} in check_symmetric: " in text
    assert "str.format is not supported" in text.splitlines()[-1]


def test_refusal_in_user_helper_module_is_at_its_line():
    with pytest.raises(ConversionError,
                       match=r"call to str\.format is not supported: pyonnx") as info:
        pyonnx.sklearn.to_onnx(CallsRefusingHelper().fit(X), X[:1])
    e = info.value
    assert (e.filename, e.lineno) == (helpers.__file__,
                                      _line(helpers.describe, "MARK: refused here"))
    assert [f.function for f in e.frames] == ["transform", "describe"]
    assert e.frames[0].lineno == _line(CallsRefusingHelper.transform, "user's line")
    assert "call chain (outermost first)" in str(e)


def test_nested_function_refusal_has_the_chain():
    def f(x):
        def inner(y):
            return "{}".format(y)  # refused

        return inner(x)  # call

    with pytest.raises(ConversionError,
                       match=r"call to str\.format is not supported: pyonnx") as info:
        pyonnx.compile(f)(X)
    e = info.value
    assert e.lineno == _line(f, "# refused")
    assert [fr.lineno for fr in e.frames] == [_line(f, "# call"), _line(f, "# refused")]


def test_refusal_in_the_function_itself_has_no_chain():
    def f(x):
        return "{}".format(x)

    with pytest.raises(ConversionError,
                       match=r"call to str\.format is not supported: pyonnx") as info:
        pyonnx.compile(f)(X)
    assert info.value.frames == () and "call chain" not in str(info.value)


def test_returned_value_refusal_has_a_line():
    def f(x):
        return x, "label"  # returned

    with pytest.raises(ConversionError, match="only arrays, numbers, None") as info:
        pyonnx.compile(f)(X)
    assert info.value.lineno == _line(f, "# returned")


def test_returned_object_array_refusal_has_a_line():
    def f(x):
        return np.array([x, "a"], dtype=object)  # returned

    with pytest.raises(ConversionError, match=r"np\.array: dtype object is not supported") as info:
        pyonnx.compile(f)(X)
    assert info.value.lineno is not None
