"""scikit-learn steps to ONNX by reading their source: custom transformers, custom estimators and
``FunctionTransformer``, inside pipelines that skl2onnx converts.

skl2onnx converts scikit-learn's own estimators but refuses a custom ``TransformerMixin``
("Unable to find a shape calculator") and any ``FunctionTransformer`` with a function. This
package gives skl2onnx a shape calculator and a converter for them that compile the step's numpy
``transform`` (or ``predict``, ``predict_proba``, ``decision_function``, ``score_samples``) with
pyonnx, for the fitted instance::

    import pyonnx.sklearn
    onx = pyonnx.sklearn.to_onnx(pipeline, X_train[:1])      # every custom step registered

Input: a fitted estimator (or ``Pipeline``/``ColumnTransformer``/``FeatureUnion``) and a sample
of ``X``. Output: an ``onnx.ModelProto`` built by skl2onnx in which each custom step is the
pyonnx graph of its method. What converts is what pyonnx converts (see the README), with the
fitted instance known at conversion time: ``self.mean_`` arrays become initializers, numbers,
lists and flags are Python values (``if self.clip:`` is folded), helper methods are inlined. The
sklearn validation calls ``check_is_fitted``, ``check_array`` and ``validate_data(self, X,
reset=False)`` are understood (see :mod:`pyonnx.sklearn.validation`), as are the helpers of
:mod:`pyonnx.sklearn.helpers` (pairwise distances and kernels, ``softmax``, ...). A fitted
scikit-learn estimator or pipeline held on ``self`` (``self.scaler_.transform(X)``) becomes its
own skl2onnx graph, inlined (:mod:`pyonnx.sklearn.fitted`); objects built inside a method are
converted or refused with advice (:mod:`pyonnx.sklearn.objects`).

A complex ``X`` (or a complex result) is a real tensor with a trailing dimension of 2 in the
model, as in :func:`pyonnx.to_onnx`'s models and recorded the same way (doc string and metadata,
see :mod:`pyonnx.sklearn.complex_pairs`); only the steps pyonnx converts compute on complex
values.

Importing this module also lets skl2onnx convert ``FunctionTransformer(func)`` for any numpy
``func`` (``func=None`` keeps skl2onnx's own converter).

Needs the optional extra: ``pip install 'pyonnx[sklearn]'`` (scikit-learn, skl2onnx).
"""

from __future__ import annotations

try:
    import sklearn  # noqa: F401
    import skl2onnx  # noqa: F401
except ImportError as e:  # pragma: no cover - exercised by a test with the modules hidden
    raise ImportError(
        f"pyonnx.sklearn needs scikit-learn and skl2onnx ({e.name or e} is missing); install "
        "them with: pip install 'pyonnx[sklearn]'") from e

from pyonnx.sklearn import fitted as _fitted  # noqa: F401  (registers the method hook)
from pyonnx.sklearn import objects as _objects  # noqa: F401  (registers the lowerings)
from pyonnx.sklearn import validation as _validation  # noqa: F401
from pyonnx.sklearn.helpers import checks as _checks  # noqa: F401
from pyonnx.sklearn.helpers import extmath as _extmath  # noqa: F401
from pyonnx.sklearn.helpers import pairwise as _pairwise  # noqa: F401
from pyonnx.sklearn.convert import MIN_OPSET, custom_steps, to_onnx
from pyonnx.sklearn.function_transformer import install_function_transformer
from pyonnx.sklearn.register import default_methods, is_registered, register

__all__ = ["MIN_OPSET", "custom_steps", "default_methods", "install_function_transformer",
           "is_registered", "register", "to_onnx"]

install_function_transformer()
