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

``decision_function`` of a classifier is skl2onnx's graph with its ``raw_scores`` option (a
binary classifier's two columns ``[-s, s]`` give scikit-learn's ``s``); ``score_samples`` is
its ``score_samples`` option (``GaussianMixture``). Both are checked at conversion time: the
graph runs (onnxruntime) on a few probe rows and must match scikit-learn's method there, else
the call is refused (an estimator whose raw scores skl2onnx defines otherwise).

Refused (with advice): ``decision_function``/``score_samples`` where skl2onnx has no such
output (or its values differ from scikit-learn's on the probe rows), string class labels,
probabilities of a classifier that has none, an ``X`` that is not a 2-D array of known column
count.
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

_METHODS = ("transform", "predict", "predict_proba", "decision_function", "score_samples")
# skl2onnx options (on the final estimator) that make its graph give the method's values
_OPTIONS = {"decision_function": {"raw_scores": True}, "score_samples": {"score_samples": True}}
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
    if name not in _METHODS or not _converts_itself(estimator):
        return NotImplemented
    from pyonnx.sklearn.register import is_registered

    if is_registered(type(estimator)):
        return NotImplemented  # pyonnx's own converter: the method's source, inlined
    ctx = lowering.ctx
    what = f"{type(estimator).__name__}.{name}"
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
    if want.dtype.kind not in "biuf":
        raise ctx.error(f"{what}(X) gives {want.dtype} values (string class labels): pyonnx's "
                        "models compute numbers; fit the classifier on integer labels "
                        "(sklearn.preprocessing.LabelEncoder) and map them back outside the "
                        "model, or use predict_proba (probabilities convert)")
    graph_dtype = np.dtype(np.float64) if (want.dtype == np.float64 and X.dtype == np.float32) \
        else X.dtype
    if graph_dtype != X.dtype:
        X = ctx.cast(Array(X.value, X.dtype, X.shape), graph_dtype)
    model = _skl2onnx_model(ctx, estimator, graph_dtype, X.shape[1], what, name)
    if name in _OPTIONS:
        _verify(ctx, estimator, name, model, graph_dtype, X.shape[1], want, what)
    outputs = _inline(ctx, model, X, _output_name(estimator, name, model))
    value = next(iter(outputs.values()))
    if name == "decision_function" and want.ndim == 1 and value.ndim == 2:
        # a binary classifier: skl2onnx's raw scores are [-s, s], scikit-learn's is s
        value = Array(ctx.op("Gather", value, ctx.const(np.array(1, np.int64)), axis=1),
                      value.dtype, value.shape[:1])
    return _typed(ctx, value, want, X.shape[0])


def _refuse(ctx, what: str, why: str):
    return ctx.error(f"{what}(X) of this fitted scikit-learn estimator is not converted inside "
                     f"a custom step ({why}); call transform, predict or predict_proba, or "
                     "compute it from the fitted attributes with numpy (e.g. X @ est.coef_.T + "
                     "est.intercept_)")


def _verify(ctx, estimator: Any, name: str, model: Any, dtype: np.dtype, columns: int,
            want: np.ndarray, what: str) -> None:
    """Runs skl2onnx's graph on probe rows and compares with scikit-learn's method there (the
    raw-score conventions of skl2onnx's converters differ between estimators)."""
    import onnxruntime

    rng = np.random.default_rng(0)
    rows = np.concatenate([np.zeros((1, columns)), rng.normal(size=(4, columns))]).astype(dtype)
    expected = np.asarray(getattr(estimator, name)(rows), np.float64)
    session = onnxruntime.InferenceSession(model.SerializeToString(),
                                           providers=["CPUExecutionProvider"])
    names = [o.name for o in session.get_outputs()]
    got = dict(zip(names, session.run(None, {session.get_inputs()[0].name: rows})))
    key = "probabilities" if name == "decision_function" else "score_samples"
    value = got.get(key)
    if value is None:
        raise _refuse(ctx, what, f"skl2onnx's graph has no {key!r} output")
    value = np.asarray(value, np.float64)
    if want.ndim == 1 and value.ndim == 2 and value.shape[1] in (1, 2):
        value = value[:, -1]
    tol = 1e-3 if dtype == np.float32 else 1e-7
    if value.shape != expected.shape or not np.allclose(value, expected, rtol=tol, atol=tol):
        raise _refuse(ctx, what, "skl2onnx's raw scores for it differ from scikit-learn's "
                      "method on probe rows")


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


def _final(estimator: Any) -> Any:
    from sklearn.pipeline import Pipeline

    return estimator.steps[-1][1] if isinstance(estimator, Pipeline) else estimator


def _skl2onnx_model(ctx, estimator: Any, dtype: np.dtype, columns: int, what: str,
                    method: str = "transform") -> Any:
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
    if method in _OPTIONS:
        final = id(_final(estimator))
        options[final] = {**options.get(final, {}), **_OPTIONS[method]}
    for attempt in range(2):
        try:
            return skl2onnx.to_onnx(estimator, initial_types=[("X", tensor([None, columns]))],
                                    target_opset=ctx.opset, options=options or None)
        except ConversionError:
            raise
        except Exception as e:
            if attempt == 0 and "Option 'zipmap' not in" in str(e):
                # (a classifier without probabilities: LinearSVC, RidgeClassifier)
                options = {k: {o: v for o, v in opts.items() if o != "zipmap"}
                           for k, opts in options.items()}
                continue
            if method in _OPTIONS and "Option" in str(e):
                raise _refuse(ctx, what, f"skl2onnx's converter has no such output: {e}") \
                    from None
            raise ctx.error(f"{what}: skl2onnx cannot convert the fitted "
                            f"{type(estimator).__name__} for {dtype} input: "
                            f"{type(e).__name__}: {e}") from None


def _output_name(estimator: Any, name: str, model: Any) -> str:
    """The output of skl2onnx's graph that holds ``name``'s values."""
    from sklearn.base import is_classifier

    if name in ("predict_proba", "decision_function"):
        return "probabilities"
    if name == "score_samples":
        return "score_samples"
    if name == "predict" and is_classifier(estimator):
        return "label"
    return model.graph.output[0].name


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


def _inline(ctx, model_proto: Any, X: Array, keep: str) -> dict[str, Array]:
    """Moves the nodes of ``model_proto`` (one input) that compute its output ``keep`` into
    the graph being built, fed by ``X``; returns that output by name. (The other outputs'
    nodes are dropped first: a classifier's label path holds its classes, strings for
    string labels, which probabilities do not need.)"""
    from onnx_ir.passes.common import RemoveUnusedNodesPass

    model = ir.serde.deserialize_model(model_proto)
    graph = model.graph
    kept = [out for out in graph.outputs if out.name == keep]
    if not kept:
        raise ctx.error(f"skl2onnx's graph has no output {keep!r}")
    graph.outputs.clear()
    graph.outputs.extend(kept)
    RemoveUnusedNodesPass()(model)
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
