"""A custom scikit-learn transformer in a pipeline, converted to ONNX without tracing.

skl2onnx converts scikit-learn's own estimators but not a class of yours ("Unable to find a
shape calculator"). ``pyonnx.sklearn.to_onnx`` reads the numpy source of your ``transform``
(and of ``FunctionTransformer`` functions) for the fitted instance and hands skl2onnx the graph.
Run this file to compare onnxruntime with scikit-learn (needs ``pip install 'pyonnx[sklearn]'``).
"""

import numpy as np
from sklearn.base import BaseEstimator, TransformerMixin
from sklearn.linear_model import Ridge
from sklearn.pipeline import make_pipeline
from sklearn.preprocessing import FunctionTransformer, StandardScaler
from sklearn.utils.validation import check_is_fitted, validate_data

import pyonnx.sklearn


class LogClipScale(TransformerMixin, BaseEstimator):
    """Caps each column at a fitted quantile, log-compresses non-negative data, rescales."""

    def __init__(self, clip=True, quantile=0.99):
        self.clip = clip
        self.quantile = quantile

    def fit(self, X, y=None):
        X = validate_data(self, X)
        self.threshold_ = np.quantile(X, self.quantile, axis=0)   # an initializer in the model
        self.log_ = bool(np.all(X >= 0))                          # folded at conversion
        self.scale_ = self._compress(np.minimum(X, self.threshold_)).std(axis=0) + 1e-3
        return self

    def _compress(self, X):                                       # inlined
        if self.log_:
            return np.log1p(X)
        return X

    def transform(self, X):
        check_is_fitted(self)
        X = validate_data(self, X, reset=False)
        if self.clip:
            X = np.minimum(X, self.threshold_)
        return self._compress(X) / self.scale_


def add_ratio(X, numerator=0, denominator=1):
    """Appends X[:, numerator] / X[:, denominator] as a feature."""
    return np.column_stack([X, X[:, numerator] / (np.abs(X[:, denominator]) + 1e-3)])


def main() -> None:
    import onnxruntime as ort

    rng = np.random.default_rng(0)
    X = (rng.lognormal(size=(2000, 4)) * [1, 5, 20, 2]).astype(np.float32)
    y = np.log1p(X[:, 0]) - 0.1 * X[:, 1] + rng.normal(size=len(X))
    pipe = make_pipeline(
        LogClipScale(),
        FunctionTransformer(add_ratio, kw_args={"numerator": 0, "denominator": 2}),
        StandardScaler(), Ridge()).fit(X, y)

    onx = pyonnx.sklearn.to_onnx(pipe, X[:1])
    session = ort.InferenceSession(onx.SerializeToString(), providers=["CPUExecutionProvider"])
    got = session.run(None, {session.get_inputs()[0].name: X})[0].ravel()
    want = pipe.predict(X)
    print(f"pipeline of {len(pipe.steps)} steps, {len(onx.graph.node)} ONNX nodes: "
          f"max |onnx - sklearn| = {np.abs(got - want).max():.2e}")


if __name__ == "__main__":
    main()
