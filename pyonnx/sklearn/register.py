"""``register(cls)``: a skl2onnx parser, shape calculator and converter for a custom class.

Input: a scikit-learn estimator class whose methods are numpy Python code. Output: entries in
skl2onnx's registry, so ``skl2onnx.to_onnx`` converts fitted instances of it (alone or as a
step of a pipeline).

Which methods become which outputs (the names skl2onnx gives them):

================================  ===============================================================
classifier (``ClassifierMixin``)  ``label`` ← ``predict`` (int64), ``probabilities`` ←
                                  ``predict_proba`` (else ``decision_function``); skl2onnx's
                                  ``zipmap`` option applies as for its own classifiers
outlier detector                  ``label`` ← ``predict``, ``scores`` ← ``decision_function``
clusterer                         ``label`` ← ``predict``, ``scores`` ← ``transform`` (if any)
regressor (``RegressorMixin``)    ``variable`` ← ``predict``
anything with ``transform``       ``variable`` ← ``transform``
otherwise with ``predict``        ``variable`` ← ``predict``
================================  ===============================================================

``register(cls, methods=("predict", "score_samples"))`` chooses them explicitly (not for
classifiers, whose two outputs skl2onnx fixes).

The shape calculator converts the methods with pyonnx for the step's input type (the dtype and
column count of ``X``; the batch dimension stays dynamic) and declares the output types numpy
produces; the converter then puts that same graph into skl2onnx's container.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from typing import Any

import numpy as np

from pyonnx.errors import ConversionError
from pyonnx.sklearn.complex_pairs import COMPLEX_TYPES, check_active, note_step
from pyonnx.sklearn.graph import (MAX_METHODS, MIN_OPSET_TEXT, MethodGraph, convert_methods,
                                  method_function)
from pyonnx.sklearn.inline import add_graph

__all__ = ["register", "is_registered", "default_methods", "MIN_OPSET", "step_input",
           "graph_for", "onnx_opset", "tensor_type", "numpy_dtype"]

MIN_OPSET = 21
_KNOWN_METHODS = ("transform", "predict", "predict_proba", "decision_function", "score_samples")
# Classes registered here, with their explicit methods (None: chosen per instance).
_REGISTERED: dict[type, tuple[str, ...] | None] = {}


def register(cls: type | None = None, *, methods: Sequence[str] | None = None) -> Any:
    """Registers ``cls`` with skl2onnx; converts its methods with pyonnx.

    Usable as ``register(MyTransformer)``, ``@register`` or ``@register(methods=(...))``.

    Args:
        cls: a scikit-learn estimator class.
        methods: the methods whose results are the step's outputs, in order (default: chosen
            from the kind of estimator, see the module docstring).

    Returns:
        ``cls`` (or a decorator).

    Raises:
        ValueError: an unknown method name, or explicit methods for a classifier.
    """
    if cls is None:
        return lambda c: register(c, methods=methods)
    from sklearn.base import ClassifierMixin
    from skl2onnx import update_registered_converter

    if methods is not None:
        methods = tuple(methods)
        unknown = [m for m in methods if m not in _KNOWN_METHODS]
        if unknown or not 1 <= len(methods) <= MAX_METHODS:
            raise ValueError(f"methods must be 1 to {MAX_METHODS} of {_KNOWN_METHODS}, got "
                             f"{methods}")
        if issubclass(cls, ClassifierMixin):
            raise ValueError(f"{cls.__qualname__} is a classifier: its outputs are skl2onnx's "
                             "label (predict) and probabilities (predict_proba); methods= "
                             "cannot change them")
    _REGISTERED[cls] = methods
    alias = _alias(cls)
    if issubclass(cls, ClassifierMixin):
        # Registering the zipmap option makes skl2onnx parse it as its own classifiers.
        update_registered_converter(cls, alias, _shape_calculator, _converter,
                                    options={"zipmap": [True, False, "columns"], "nocl": [False]})
    else:
        update_registered_converter(cls, alias, _shape_calculator, _converter, parser=_parser)
    return cls


def is_registered(cls: type) -> bool:
    """True when :func:`register` registered ``cls``."""
    return cls in _REGISTERED


def default_methods(estimator: Any) -> tuple[tuple[str, ...], tuple[str, ...]]:
    """The methods converted for ``estimator`` and skl2onnx's names for their outputs."""
    import sklearn.base
    from sklearn.base import ClusterMixin, is_classifier, is_outlier_detector, is_regressor

    is_clusterer = getattr(sklearn.base, "is_clusterer",  # scikit-learn 1.6+
                           lambda e: isinstance(e, ClusterMixin))
    explicit = _REGISTERED.get(type(estimator))
    has = lambda m: hasattr(estimator, m)  # noqa: E731 - available_if hides methods per instance
    if is_classifier(estimator):
        second = "predict_proba" if has("predict_proba") else "decision_function"
        return ("predict", second), ("label", "probabilities")
    labelled = is_outlier_detector(estimator) or is_clusterer(estimator)
    if explicit is not None:
        methods = explicit
    elif is_outlier_detector(estimator):
        methods = ("predict", "decision_function") if has("decision_function") else ("predict",)
    elif is_clusterer(estimator):
        methods = ("predict", "transform") if has("transform") else ("predict",)
    elif is_regressor(estimator) and has("predict"):
        methods = ("predict",)
    elif has("transform"):
        methods = ("transform",)
    elif has("predict"):
        methods = ("predict",)
    else:
        raise ConversionError(f"{type(estimator).__qualname__} has neither transform nor "
                              "predict: nothing to convert")
    names = {"predict": "label" if labelled else "variable", "transform":
             "scores" if labelled else "variable", "predict_proba": "probabilities",
             "decision_function": "scores", "score_samples": "score_samples"}
    return methods, tuple(names[m] for m in methods)


def _alias(cls: type) -> str:
    return "Pyonnx_" + re.sub(r"\W", "_", f"{cls.__module__}.{cls.__qualname__}")


def _parser(scope, model, inputs, custom_parsers=None):
    """skl2onnx parser: one operator, one output variable per converted method."""
    from skl2onnx._supported_operators import _get_sklearn_operator_name
    from skl2onnx.common.data_types import FloatTensorType

    operator = scope.declare_local_operator(_get_sklearn_operator_name(type(model)), model)
    operator.inputs = inputs
    _, names = default_methods(model)
    for name in names:
        # The shape calculator replaces the type with the converted graph's.
        operator.outputs.append(scope.declare_local_variable(name, FloatTensorType()))
    return operator.outputs


# ------------------------------------------------------------------ types
_TYPES = None


def _type_table() -> dict[np.dtype, type]:
    global _TYPES
    if _TYPES is None:
        from skl2onnx.common import data_types as t

        _TYPES = {np.dtype(k): v for k, v in [
            (np.float16, t.Float16TensorType), (np.float32, t.FloatTensorType),
            (np.float64, t.DoubleTensorType), (np.int8, t.Int8TensorType),
            (np.int16, t.Int16TensorType), (np.int32, t.Int32TensorType),
            (np.int64, t.Int64TensorType), (np.uint8, t.UInt8TensorType),
            (np.uint16, t.UInt16TensorType), (np.uint32, t.UInt32TensorType),
            (np.uint64, t.UInt64TensorType), (np.bool_, t.BooleanTensorType)]}
    return _TYPES


def tensor_type(dtype: np.dtype, shape: list) -> Any:
    """The skl2onnx tensor type of ``dtype`` and ``shape``."""
    dtype = np.dtype(dtype)
    if dtype.kind == "c":
        from skl2onnx.common import data_types as t

        return (t.Complex64TensorType if dtype == np.complex64 else t.Complex128TensorType)(shape)
    return _type_table()[dtype](shape)


def numpy_dtype(var_type: Any) -> np.dtype:
    """The numpy dtype of a skl2onnx tensor type."""
    for dtype, cls in _type_table().items():
        if type(var_type) is cls:
            return dtype
    dtype = COMPLEX_TYPES.get(type(var_type).__name__)
    if dtype is not None:
        # complex X: real pairs in the graph (see pyonnx.sklearn.complex_pairs)
        check_active(dtype)
        return dtype
    raise ConversionError(f"pyonnx converts numeric tensors, not {type(var_type).__name__} "
                          "inputs")


# ------------------------------------------------------------------ shared by the converters
def onnx_opset(target: Any) -> int:
    """The default-domain opset of a skl2onnx ``target_opset`` (int, dict or None)."""
    from skl2onnx import get_latest_tested_opset_version

    if isinstance(target, dict):
        target = target.get("", target.get("ai.onnx"))
    if target is None:
        target = get_latest_tested_opset_version()
    if target < MIN_OPSET:
        raise ConversionError(f"pyonnx converts scikit-learn steps to ONNX opset {MIN_OPSET} or "
                              f"newer, and the target opset is {target}; pass "
                              f"target_opset={MIN_OPSET_TEXT}")
    return int(target)


def step_input(operator: Any) -> tuple[np.dtype, tuple[int | str, ...]]:
    """The dtype and shape of the step's ``X`` (several inputs are concatenated on axis 1)."""
    dtypes = {numpy_dtype(v.type) for v in operator.inputs}
    if len(dtypes) != 1:
        raise ConversionError(f"{type(operator.raw_operator).__qualname__} receives inputs of "
                              f"several dtypes {sorted(map(str, dtypes))}; pass one array")
    shapes = [list(v.type.shape or []) for v in operator.inputs]
    if any(len(s) != 2 for s in shapes) and len(shapes) > 1:
        raise ConversionError("several inputs are concatenated along axis 1: they must be 2-D")
    shape = shapes[0]
    if len(shapes) > 1:
        cols = [s[1] for s in shapes]
        shape = [shape[0], sum(cols) if all(isinstance(c, int) for c in cols) else None]
    dims: list[int | str] = []
    for i, d in enumerate(shape):
        if i == 0:
            dims.append("N")  # the batch: one model serves every size
        elif isinstance(d, int) and d > 0:
            dims.append(d)
        elif i == 1 and isinstance(getattr(operator.raw_operator, "n_features_in_", None), int):
            # skl2onnx may not know the column count; the fitted step does.
            dims.append(operator.raw_operator.n_features_in_)
        else:
            dims.append(f"d{i}")
    return dtypes.pop(), tuple(dims)


def graph_for(operator: Any, opset: int, build) -> MethodGraph:
    """``build(dtype, shape, opset)`` once per operator and input type (the shape calculator
    and the converter share it)."""
    dtype, shape = step_input(operator)
    key = (opset, dtype, shape)
    cached = getattr(operator, "_pyonnx_graph", None)
    if cached is not None and cached[0] == key:
        return cached[1]
    try:
        graph = build(dtype, shape, opset)
    except ConversionError as e:
        e.add_note(f"(converting the scikit-learn step {operator.raw_operator!r} with pyonnx, "
                   f"X: {dtype}[{', '.join(map(str, shape))}])")
        raise
    operator._pyonnx_graph = (key, graph)
    return graph


def declare_outputs(operator: Any, graph: MethodGraph, casts: Sequence[np.dtype | None]) -> None:
    """Sets each output variable's type to the converted graph's (batch dimension dynamic)."""
    batch = operator.inputs[0].get_first_dimension()
    for var, dtype, shape, cast in zip(operator.outputs, graph.dtypes, graph.shapes, casts):
        dims = [batch if i == 0 and d is None else d for i, d in enumerate(shape)]
        var.type = tensor_type(cast if cast is not None else dtype, dims)


def concat_inputs(scope: Any, operator: Any, container: Any) -> str:
    """The name of the step's ``X``: its input, or its inputs concatenated on axis 1."""
    if len(operator.inputs) == 1:
        return operator.inputs[0].full_name
    name = scope.get_unique_variable_name(f"{operator.full_name}_X")
    container.add_node("Concat", [v.full_name for v in operator.inputs], [name],
                       name=scope.get_unique_operator_name("Concat"), axis=1)
    return name


# ------------------------------------------------------------------ custom classes
def _build(estimator: Any):
    def build(dtype, shape, opset):
        methods, _ = default_methods(estimator)
        return convert_methods(estimator, [method_function(estimator, m) for m in methods],
                               dtype, shape, opset)
    return build


def _label_casts(estimator: Any, graph: MethodGraph) -> list[np.dtype | None]:
    """A classifier's label is int64 for skl2onnx (and its ZipMap); other outputs as computed."""
    from sklearn.base import is_classifier

    casts: list[np.dtype | None] = [None] * len(graph.dtypes)
    if is_classifier(estimator):
        label = graph.dtypes[0]
        if label.kind not in "biu" or label == np.uint64:
            raise ConversionError(
                f"{type(estimator).__qualname__}.predict returns {label} labels; skl2onnx's "
                "classifier label output is int64, so predict must return integer (or bool) "
                "class labels")
        if label != np.int64:
            casts[0] = np.dtype(np.int64)
    return casts


def _shape_calculator(operator: Any) -> None:
    estimator = operator.raw_operator
    graph = graph_for(operator, onnx_opset(operator.target_opset), _build(estimator))
    if len(operator.outputs) != len(graph.dtypes):
        raise ConversionError(f"skl2onnx expects {len(operator.outputs)} outputs from "
                              f"{type(estimator).__qualname__}, pyonnx converted "
                              f"{len(graph.dtypes)} methods")
    _check_zipmap(operator, graph)
    declare_outputs(operator, graph, _label_casts(estimator, graph))


def _check_zipmap(operator: Any, graph: MethodGraph) -> None:
    """ONNX's ZipMap takes float32 only: say so instead of emitting a model that fails to load
    (skl2onnx's own classifiers do that on float64 inputs)."""
    from sklearn.base import is_classifier

    estimator = operator.raw_operator
    if not is_classifier(estimator) or graph.dtypes[1] == np.float32:
        return
    zipmap = operator.scope_inst.get_options(estimator, {"zipmap": True}).get("zipmap")
    if zipmap is not False:
        raise ConversionError(
            f"{type(estimator).__qualname__} computes {graph.dtypes[1]} probabilities and "
            "ONNX's ZipMap (skl2onnx's default output for classifiers) takes float32 only; "
            f"convert with options={{{type(estimator).__name__}: {{'zipmap': False}}}}")


def _converter(scope: Any, operator: Any, container: Any) -> None:
    estimator = operator.raw_operator
    graph = graph_for(operator, onnx_opset(container.target_opset_all), _build(estimator))
    first = len(container.nodes)
    x = concat_inputs(scope, operator, container)
    add_graph(scope, container, graph.model, x, [v.full_name for v in operator.outputs],
              type(estimator).__name__, _label_casts(estimator, graph))
    note_step(operator, container, first)
