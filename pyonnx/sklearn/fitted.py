"""Fitted scikit-learn estimators inside a custom step: ``self.scaler_.transform(X)``.

Input: a method call (``transform``, ``predict``, ``predict_proba``) on a fitted estimator or
``Pipeline`` known at conversion time (an attribute of the step, or an item of a list/dict of
them), with a 2-D array ``X`` whose column count is known. Output: the method's value, computed
by the estimator's own ONNX graph (skl2onnx's converter, with pyonnx's converter for the custom
steps registered with :func:`pyonnx.sklearn.register` or found inside the pipeline), inlined
into the graph being converted. An estimator whose class is the user's own (not a Pipeline and
unknown to skl2onnx) is not handled here: its method's Python source is converted instead.

Types: scikit-learn's result type is read from the estimator itself, by calling the method on
one row of zeros at conversion time (a probe): its dtype and the dimensions after the first.
The graph is converted for ``X``'s dtype, or for float64 when scikit-learn's result is float64
from float32 input (``LogisticRegression`` computes in float64 then); skl2onnx's result is cast
to scikit-learn's dtype and reshaped to its dimensions (a regressor's ``(n, 1)`` becomes
``(n,)``). Known difference: skl2onnx's converters compute in that dtype, so a float32 pipeline
agrees with scikit-learn to float32 rounding, as skl2onnx's models do.

Refused (with advice): ``decision_function``/``score_samples`` of a built-in estimator, string
class labels, probabilities of a classifier that has none, an ``X`` that is not a 2-D array of
known column count.
"""

from __future__ import annotations

import itertools
import types
from typing import Any

import numpy as np
import onnx_ir as ir

from pyonnx.frontend.graph.values import Array
from pyonnx.frontend.lower.method_hooks import add_hook

__all__ = ["fitted_call"]

_METHODS = ("transform", "predict", "predict_proba")
_ML_DOMAINS = ("ai.onnx.ml",)
_names = itertools.count()


def _converts_itself(estimator: Any) -> bool:
    """Whether skl2onnx converts ``estimator`` (a Pipeline of convertible steps, a built-in
    estimator, or a class registered with pyonnx.sklearn.register)."""
    from sklearn.base import BaseEstimator
    from sklearn.pipeline import Pipeline
    from skl2onnx._supported_operators import sklearn_operator_name_map

    if isinstance(estimator, Pipeline):
        return True
    return isinstance(estimator, BaseEstimator) and type(estimator) in sklearn_operator_name_map


def fitted_call(lowering, method: types.MethodType, args: list[Any],
                kwargs: dict[str, Any]) -> Any:
    """The method hook (see the module docstring); NotImplemented for other calls."""
    estimator, name = method.__self__, method.__name__
    if name not in (*_METHODS, "decision_function", "score_samples") \
            or not _converts_itself(estimator):
        return NotImplemented
    from pyonnx.sklearn.register import is_registered

    if is_registered(type(estimator)):
        return NotImplemented  # pyonnx's own converter: the method's source, inlined
    ctx = lowering.ctx
    what = f"{type(estimator).__name__}.{name}"
    if name not in _METHODS:
        raise ctx.error(f"{what}(X) of a fitted scikit-learn estimator is not converted inside "
                        "a custom step (skl2onnx's graph gives transform, predict and "
                        "predict_proba); call one of those, or compute it from the fitted "
                        "attributes with numpy (e.g. X @ est.coef_.T + est.intercept_)")
    if len(args) != 1 or kwargs:
        raise ctx.error(f"{what}() is converted with X as its only argument")
    X = args[0]
    if isinstance(X, np.ndarray):
        X = ctx.asarray(X)
    if not isinstance(X, Array) or X.ndim != 2 or X.shape[1] is None:
        raise ctx.error(f"{what}(X) needs X as a 2-D array whose column count is known at "
                        "conversion time (as in pyonnx.sklearn.to_onnx; for pyonnx.compile "
                        "pass static_shapes=True)")
    if X.dtype not in (np.float32, np.float64):
        X = ctx.cast(Array(X.value, X.dtype, X.shape), np.float64)
    want = _probe(ctx, estimator, name, X, what)
    graph_dtype = np.dtype(np.float64) if (want.dtype == np.float64 and X.dtype == np.float32) \
        else X.dtype
    if graph_dtype != X.dtype:
        X = ctx.cast(Array(X.value, X.dtype, X.shape), graph_dtype)
    model = _skl2onnx_model(ctx, estimator, graph_dtype, X.shape[1], what)
    outputs = _inline(ctx, model, X)
    value = _select(ctx, estimator, name, outputs, what)
    return _typed(ctx, value, want, X.shape[0])


def _probe(ctx, estimator: Any, name: str, X: Array, what: str) -> np.ndarray:
    """scikit-learn's result on one row of zeros: its dtype and trailing dimensions."""
    try:
        return np.asarray(getattr(estimator, name)(np.zeros((1, X.shape[1]), X.dtype)))
    except Exception as e:
        raise ctx.error(f"{what}: calling it on one row of {X.shape[1]} zeros at conversion "
                        f"time (to learn its result type) failed: {type(e).__name__}: {e}") \
            from None


def _classifiers(estimator: Any) -> list[Any]:
    from sklearn.base import is_classifier
    from sklearn.pipeline import Pipeline

    if isinstance(estimator, Pipeline):
        return [s for _, s in estimator.steps if is_classifier(s)]
    return [estimator] if is_classifier(estimator) else []


def _skl2onnx_model(ctx, estimator: Any, dtype: np.dtype, columns: int, what: str) -> Any:
    import skl2onnx
    from skl2onnx.common.data_types import DoubleTensorType, FloatTensorType

    from pyonnx.errors import ConversionError
    from pyonnx.sklearn.convert import custom_steps
    from pyonnx.sklearn.register import register, is_registered

    for step in custom_steps(estimator):  # a custom step inside the held pipeline
        if not is_registered(type(step)):
            register(type(step))
    tensor = FloatTensorType if dtype == np.float32 else DoubleTensorType
    options = {id(c): {"zipmap": False} for c in _classifiers(estimator)}
    try:
        return skl2onnx.to_onnx(estimator, initial_types=[("X", tensor([None, columns]))],
                                target_opset=ctx.opset, options=options or None)
    except ConversionError:
        raise
    except Exception as e:
        raise ctx.error(f"{what}: skl2onnx cannot convert the fitted {type(estimator).__name__}"
                        f" for {dtype} input: {type(e).__name__}: {e}") from None


def _select(ctx, estimator: Any, name: str, outputs: dict[str, Array], what: str) -> Array:
    from sklearn.base import is_classifier

    if name == "predict_proba":
        if "probabilities" not in outputs:
            raise ctx.error(f"{what}: skl2onnx's graph gives no probabilities")
        return outputs["probabilities"]
    if name == "predict" and is_classifier(estimator):
        return outputs["label"]
    return next(iter(outputs.values()))


def _typed(ctx, value: Array, want: np.ndarray, rows: int | None) -> Array:
    """``value`` with scikit-learn's dtype and trailing dimensions."""
    if want.dtype.kind not in "biuf":
        raise ctx.error(f"the estimator's result has dtype {want.dtype} (string class "
                        "labels?); pyonnx computes numbers: encode the labels as integers")
    trailing = want.shape[1:]
    if value.shape[1:] != trailing:
        value = Array(ctx.op("Reshape", value, ctx.const(np.array((-1, *trailing), np.int64))),
                      value.dtype, (rows, *trailing))
    if value.dtype != want.dtype:
        value = ctx.cast(Array(value.value, value.dtype, value.shape), want.dtype)
    return Array(value.value, value.dtype, (rows, *trailing))


def _inline(ctx, model_proto: Any, X: Array) -> dict[str, Array]:
    """Moves the nodes of ``model_proto`` (one input) into the graph being built, fed by
    ``X``; returns its outputs by name."""
    model = ir.serde.deserialize_model(model_proto)
    graph = model.graph
    prefix = f"fitted{next(_names)}"
    mapping: dict[ir.Value, ir.Value] = {graph.inputs[0]: X.value}
    for init in graph.initializers.values():
        mapping[init] = ctx.const(init.const_value.numpy())
    for domain, version in model.opset_imports.items():
        if domain in ("", "ai.onnx"):
            continue
        ctx.custom_domains[domain] = max(version, ctx.custom_domains.get(domain, version))
    nodes = list(graph)
    for node in nodes:
        graph.remove(node)
    # Inputs and initializers of the converted graph, also where its subgraphs (Scan bodies)
    # read them, become the values of the graph being built.
    for node in _all_nodes(nodes):
        for i, v in enumerate(node.inputs):
            if v is not None and v in mapping:
                node.replace_input_with(i, mapping[v])
    names = [out.name for out in graph.outputs]
    for node in nodes:
        node.name = f"{prefix}_{node.name or node.op_type}"
        for out in node.outputs:
            out.name = f"{prefix}_{out.name}"
        ctx.nodes.append(node)
    outputs = {}
    for name, out in zip(names, graph.outputs):
        shape = tuple(d if isinstance(d, int) else None for d in (out.shape or ()))
        outputs[name] = Array(mapping.get(out, out), np.dtype(out.type.dtype.numpy()), shape)
    graph.outputs.clear()  # the values belong to the graph being built now
    return outputs


def _all_nodes(nodes: list[ir.Node]):
    """The nodes and every node of their subgraphs."""
    for node in nodes:
        yield node
        for attr in node.attributes.values():
            graphs = []
            if attr.type == ir.AttributeType.GRAPH:
                graphs = [attr.value]
            elif attr.type == ir.AttributeType.GRAPHS:
                graphs = list(attr.value)
            for g in graphs:
                yield from _all_nodes(list(g))


add_hook(fitted_call)
