"""A custom step holding a fitted scaler and a fitted regressor, converted to one ONNX model.

People compose scikit-learn estimators inside their own classes: ``fit`` fits a scaler and a
model and keeps them on ``self``; ``predict`` calls them and post-processes the result with
numpy. skl2onnx refuses the class; ``pyonnx.sklearn.to_onnx`` converts ``predict`` from its
source and inlines the scaler's and the regressor's own ONNX graphs (skl2onnx's converters)
where the source calls them. Run this file to compare onnxruntime with scikit-learn (needs
``pip install 'pyonnx[sklearn]'``).
"""

import numpy as np
from sklearn.base import BaseEstimator, RegressorMixin
from sklearn.linear_model import Ridge
from sklearn.preprocessing import StandardScaler
from sklearn.utils.validation import check_is_fitted, validate_data

import pyonnx.sklearn


class ClippedScaledRidge(RegressorMixin, BaseEstimator):
    """Standardizes, fits a ridge regression on the standardized data and a second one on
    the log of the target's size; predicts their blend, never below zero."""

    def __init__(self, alpha=1.0, blend=0.8):
        self.alpha = alpha
        self.blend = blend

    def fit(self, X, y):
        X = validate_data(self, X)
        self.scaler_ = StandardScaler().fit(X)                     # a fitted estimator on self
        Z = self.scaler_.transform(X)
        self.model_ = Ridge(alpha=self.alpha).fit(Z, y)
        self.log_model_ = Ridge(alpha=self.alpha).fit(np.c_[Z, np.abs(Z)], np.log1p(np.abs(y)))
        return self

    def predict(self, X):
        check_is_fitted(self)
        X = validate_data(self, X, reset=False)
        Z = self.scaler_.transform(X)                              # skl2onnx's scaler graph
        linear = self.model_.predict(Z)                            # skl2onnx's ridge graph
        logged = np.expm1(self.log_model_.predict(np.c_[Z, np.abs(Z)]))
        return np.maximum(self.blend * linear + (1 - self.blend) * logged, 0.0)


def main() -> None:
    import onnxruntime as ort

    rng = np.random.default_rng(0)
    X = rng.normal(size=(2000, 5)) * [1, 3, 10, 0.5, 2]
    y = np.abs(X[:, 0] - 0.3 * X[:, 1] + rng.normal(size=len(X)))
    model = ClippedScaledRidge().fit(X, y)

    onx = pyonnx.sklearn.to_onnx(model, X[:1])
    session = ort.InferenceSession(onx.SerializeToString(), providers=["CPUExecutionProvider"])
    got = session.run(None, {session.get_inputs()[0].name: X})[0]
    want = model.predict(X)
    print(f"{len(onx.graph.node)} ONNX nodes, output {got.dtype} {got.shape}: "
          f"max |onnx - sklearn| = {np.abs(got - want).max():.2e}")


if __name__ == "__main__":
    main()
