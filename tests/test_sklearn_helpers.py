"""scikit-learn's helpers inside custom steps (pyonnx/sklearn/helpers/): check_array and the
validation helpers, sklearn.metrics.pairwise, sklearn.utils.extmath.

Oracle: scikit-learn's method on the fitted step against onnxruntime (tests/sklearn_check.py),
float32 and float64, one row and many.
"""

from __future__ import annotations

import numpy as np
import pytest
from sklearn.metrics import pairwise_distances

import pyonnx
import pyonnx.sklearn
from pyonnx.errors import ConversionError
from tests import sklearn_helper_steps as steps
from tests.sklearn_check import check_step

DTYPES = [np.float32, np.float64]


def _data(dtype, rows=30, cols=4, seed=1):
    return np.random.default_rng(seed).normal(size=(rows, cols)).astype(dtype)


@pytest.mark.parametrize("dtype", DTYPES)
@pytest.mark.parametrize("cls", [steps.FloatLog, steps.ValidatedCenters],
                         ids=lambda c: c.__name__)
def test_validation_helpers(cls, dtype):
    X = _data(dtype)
    check_step(cls().fit(X), X)


KINDS = ["euclidean", "sq_euclidean", "self_euclidean", "norms", "rbf", "rbf_default_gamma",
         "linear", "poly", "cosine", "self_cosine", "manhattan", "pairwise_euclidean",
         "pairwise_l2", "pairwise_manhattan", "pairwise_cityblock", "pairwise_l1",
         "pairwise_cosine", "row_norms", "safe_sparse_dot"]
if steps.stable_cumsum is not None:
    KINDS.append("stable_cumsum")


@pytest.mark.parametrize("dtype", DTYPES)
@pytest.mark.parametrize("kind", KINDS)
def test_pairwise_and_extmath(kind, dtype):
    X = _data(dtype)
    est = steps.Prototypes(kind).fit(X)
    check_step(est, X, rtol=1e-4 if dtype == np.float32 else 1e-7,
               atol=1e-4 if dtype == np.float32 else 1e-9)


@pytest.mark.parametrize("dtype", DTYPES)
def test_softmax_classifier(dtype):
    X = _data(dtype)
    y = (X[:, 0] > 0).astype(np.int64) + (X[:, 1] > 0.5)
    est = steps.NearestPrototypeClassifier().fit(X, y)
    model = pyonnx.sklearn.to_onnx(est, X[:1], options={id(est): {"zipmap": False}})
    from tests.sklearn_check import run
    for rows in (X[:1], X):
        label, proba = run(model, rows)
        np.testing.assert_array_equal(label, est.predict(rows))
        np.testing.assert_allclose(proba, est.predict_proba(rows), rtol=1e-4, atol=1e-5)


@pytest.mark.parametrize("dtype", DTYPES)
def test_kernel_regressor_by_hand(dtype):
    X = _data(dtype, rows=25)
    y = X[:, 0] ** 2 - X[:, 1]
    est = steps.KernelRidgeByHand().fit(X, y)
    check_step(est, X, methods=("predict",), dtype=False, rtol=1e-4, atol=1e-4)


def test_unconverted_metric_refused_with_the_list():
    def f(X, Y):
        return pairwise_distances(X, Y, metric="chebyshev")

    with pytest.raises(ConversionError, match=r"metric='chebyshev'\) is not converted; the "
                       r"metrics converted are \['cityblock', 'cosine'") as info:
        pyonnx.compile(f)(np.ones((2, 3)), np.ones((4, 3)))
    assert info.value.lineno == f.__code__.co_firstlineno + 1


@pytest.mark.parametrize("body, match", [
    ("euclidean_distances(X, Y[:, :2])", r"X\.shape\[1\] == 3 while Y\.shape\[1\] == 2"),
    ("euclidean_distances(X[0], Y)", r"expected 2D arrays, got a 1-D X"),
    ("column_or_1d(Y)", r"y should be a 1d array, got an array of shape \(4, 3\)"),
    ("check_consistent_length(X, Y)", r"inconsistent numbers of samples: \[2, 4\]"),
    ("check_array(X, ensure_min_samples=3)", r"2 sample\(s\), a minimum of 3"),
    ("softmax(X.astype(np.int64))", r"2-D float array"),
])
def test_helper_refusals_at_the_line(body, match):
    namespace = {}
    exec("import numpy as np\n"
         "from sklearn.metrics.pairwise import euclidean_distances\n"
         "from sklearn.utils import check_array, column_or_1d\n"
         "from sklearn.utils.validation import check_consistent_length\n"
         "from sklearn.utils.extmath import softmax\n"
         f"def f(X, Y):\n    return {body}\n", namespace)
    f = namespace["f"]
    import linecache
    src = "".join(f"{line}\n" for line in (
        "import numpy as np", "from sklearn.metrics.pairwise import euclidean_distances",
        "from sklearn.utils import check_array, column_or_1d",
        "from sklearn.utils.validation import check_consistent_length",
        "from sklearn.utils.extmath import softmax", "def f(X, Y):", f"    return {body}"))
    filename = f"<helpers-{abs(hash(body))}>"
    linecache.cache[filename] = (len(src), None, src.splitlines(True), filename)
    f.__code__ = f.__code__.replace(co_filename=filename)
    with pytest.raises(ConversionError, match=match) as info:
        pyonnx.compile(f, static_shapes=True)(np.ones((2, 3)), np.ones((4, 3)))
    assert info.value.lineno == 7
