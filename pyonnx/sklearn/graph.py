"""A fitted estimator's methods → one pyonnx ONNX graph with ``X`` as its only input.

Input: the fitted instance, the Python functions to convert (unbound methods such as
``type(est).transform``, or a ``FunctionTransformer`` wrapper), the dtype and shape of ``X`` and
the opset. Output: a :class:`MethodGraph` (the ``onnx.ModelProto`` after pyonnx's IR passes,
and each output's numpy dtype and static shape, which the skl2onnx shape calculator declares).

The instance is a conversion-time value (a static parameter), so everything ``fit`` stored on it
is known while converting; ``X`` is the graph input with a dynamic batch dimension.
"""

from __future__ import annotations

import dataclasses
import inspect
import types
from collections.abc import Callable, Sequence
from typing import Any

import numpy as np

from pyonnx.errors import ConversionError
from pyonnx.sklearn.complex_pairs import graph_output_types
from pyonnx.specs import spec

__all__ = ["MethodGraph", "convert_methods", "convert_function", "method_function",
           "fitted_methods", "MAX_METHODS", "NEWEST_SAFE_OPSET", "MIN_OPSET_TEXT"]

MAX_METHODS = 4
# pyonnx lowers to opset-21 operators. Opset 22 only widened types (bfloat16) of the operators
# it changed, so a model importing 21 or 22 means the same; an operator changed after 22 may
# mean something else and is refused (see _check_operator_versions).
NEWEST_SAFE_OPSET = 22
MIN_OPSET_TEXT = f"21 or {NEWEST_SAFE_OPSET}"


@dataclasses.dataclass(frozen=True)
class MethodGraph:
    """The converted methods of one fitted instance.

    Attributes:
        model: the ONNX model (one input, one output per method).
        dtypes: each output's numpy dtype.
        shapes: each output's shape (ints where known at conversion time, else None).
    """

    model: Any
    dtypes: tuple[np.dtype, ...]
    shapes: tuple[tuple[int | None, ...], ...]


def fitted_methods(self, X, methods):
    """The results of the estimator's ``methods`` on ``X``, each inlined (what is converted)."""
    if len(methods) == 1:
        return methods[0](self, X)
    if len(methods) == 2:
        return methods[0](self, X), methods[1](self, X)
    if len(methods) == 3:
        return methods[0](self, X), methods[1](self, X), methods[2](self, X)
    return methods[0](self, X), methods[1](self, X), methods[2](self, X), methods[3](self, X)


def method_function(estimator: Any, name: str) -> types.FunctionType:
    """The plain Python function behind ``estimator.<name>``.

    scikit-learn wraps methods (``set_output`` wraps ``transform``, ``available_if`` wraps
    ``predict_proba``); the wrapped function is the user's source, which is what converts.

    Raises:
        ConversionError: the estimator has no such method, or it is not Python source.
    """
    try:
        bound = getattr(estimator, name)
    except AttributeError as e:
        raise ConversionError(f"{type(estimator).__qualname__} has no usable method "
                              f"'{name}': {e}") from None
    fn = bound.__func__ if isinstance(bound, types.MethodType) else bound
    fn = inspect.unwrap(fn)
    if not isinstance(fn, types.FunctionType):
        raise ConversionError(f"{type(estimator).__qualname__}.{name} is not a Python function "
                              f"({type(fn).__name__}); pyonnx converts Python source only")
    return fn


def convert_methods(estimator: Any, functions: Sequence[types.FunctionType],
                    x_dtype: np.dtype, x_shape: tuple[int | str | None, ...],
                    opset: int) -> MethodGraph:
    """Converts ``functions`` (each called as ``f(estimator, X)``) into one graph.

    Args:
        estimator: the fitted instance, static during the conversion.
        functions: one to :data:`MAX_METHODS` functions taking ``(self, X)``.
        x_dtype: the dtype of ``X``.
        x_shape: the shape of ``X`` (ints fixed, strings symbolic).
        opset: the default-domain opset the graph will be imported with.

    Raises:
        ConversionError: at the user's line when a method cannot be converted.
    """
    if not 1 <= len(functions) <= MAX_METHODS:
        raise ConversionError(f"{type(estimator).__qualname__}: 1 to {MAX_METHODS} methods can "
                              f"be converted together, not {len(functions)}")
    what = f"{type(estimator).__qualname__}." + "/".join(f.__name__ for f in functions)
    if len(functions) == 1:
        # Converted as itself, so the graph's node names carry the method's name and lines.
        fn = functions[0]
        names = list(inspect.signature(fn).parameters)
        if len(names) < 2:
            raise ConversionError(f"{what} takes no X argument")
        return _convert(fn, {names[0]: estimator}, x_dtype, x_shape, opset, 1, what, names[1])
    return _convert(fitted_methods, {"self": estimator, "methods": tuple(functions)},
                    x_dtype, x_shape, opset, len(functions), what)


def convert_function(fn: types.FunctionType, statics: dict[str, Any], x_name: str,
                     x_dtype: np.dtype, x_shape: tuple[int | str | None, ...],
                     opset: int, what: str) -> MethodGraph:
    """Converts ``fn`` whose parameter ``x_name`` is ``X`` and the others ``statics``."""
    return _convert(fn, statics, x_dtype, x_shape, opset, 1, what, x_name)


def _convert(fn: Callable[..., Any], statics: dict[str, Any], x_dtype: np.dtype,
             x_shape: tuple[int | str | None, ...], opset: int, outputs: int, what: str,
             x_name: str = "X") -> MethodGraph:
    import onnx

    from pyonnx.api import _build_model
    from pyonnx.frontend.convert import Param

    params = []
    for name, p in inspect.signature(fn).parameters.items():
        if name == x_name:
            params.append(Param(name, "tensor", spec=spec(x_dtype, x_shape)))
        elif name in statics:
            params.append(Param(name, "static", value=statics[name]))
        elif p.kind is p.VAR_POSITIONAL:
            params.append(Param(name, "static", value=()))
        elif p.kind is p.VAR_KEYWORD:
            params.append(Param(name, "static", value={}))
        elif p.default is not p.empty:
            # transform(self, X, copy=None): scikit-learn calls it with the default.
            params.append(Param(name, "static", value=p.default))
        else:
            raise ConversionError(f"{what}: parameter '{name}' has no default; scikit-learn "
                                  "calls the method with X only")
    try:
        model_bytes, structure, _ = _build_model(fn, params, opset)
    except ConversionError as e:
        if e.loc is not None:
            raise
        # Errors without a line are about the returned value: name the user's method, not
        # the helper that called it.
        raise ConversionError(e.message.replace(fn.__qualname__, what)) from None
    model = onnx.load_from_string(model_bytes)
    if any(p.key == "pyonnx.checks" for p in model.metadata_props):
        # (a raise/assert on values: a compiled function raises after the run, a pipeline's
        # model has no one to raise)
        raise ConversionError(f"{what} raises or asserts on values known only at run time; a "
                              "scikit-learn pipeline model cannot raise: check the inputs "
                              "before predicting, or handle the case with np.where")
    if len(model.graph.output) != outputs or (outputs == 1 and structure == "tuple"):
        raise ConversionError(f"{what} returns a tuple; a scikit-learn step's method returns "
                              "one array")
    _check_operator_versions(model, opset)
    _check_model_opset(model, what)
    out_dtypes, out_shapes = [], []
    for out in model.graph.output:
        t = out.type.tensor_type
        out_dtypes.append(np.dtype(onnx.helper.tensor_dtype_to_np_dtype(t.elem_type)))
        out_shapes.append(tuple(d.dim_value if d.HasField("dim_value") else None
                                for d in t.shape.dim))
    # complex outputs are trailing-2 real tensors in the graph, complex for the pipeline
    out_dtypes, out_shapes = graph_output_types(model, out_dtypes, out_shapes)
    return MethodGraph(model, tuple(out_dtypes), tuple(out_shapes))


def _check_model_opset(model: Any, what: str) -> None:
    """Refuses a graph that needs an operator newer than skl2onnx writes (BitCast, opset 26,
    reads the sign bit of a NaN for np.signbit/np.copysign and the special cases of complex
    functions such as sqrt, log and arcsin)."""
    for imp in model.opset_import:
        if imp.domain in ("", "ai.onnx") and imp.version > NEWEST_SAFE_OPSET:
            raise ConversionError(
                f"{what} needs ONNX opset {imp.version} (BitCast reads the sign bits of NaNs "
                "for np.signbit/np.copysign and for the special values of complex functions "
                f"such as np.sqrt or np.log), and skl2onnx writes opset {NEWEST_SAFE_OPSET} at "
                "most; compile this function with pyonnx.compile / pyonnx.to_onnx instead")


def _check_operator_versions(model: Any, opset: int) -> None:
    """Refuses an operator whose definition changed after :data:`NEWEST_SAFE_OPSET`."""
    if opset <= NEWEST_SAFE_OPSET:
        return
    import onnx

    def walk(graph):
        for node in graph.node:
            if node.domain in ("", "ai.onnx"):
                since = onnx.defs.get_schema(node.op_type, opset, "").since_version
                if since > NEWEST_SAFE_OPSET:
                    raise ConversionError(
                        f"the {node.op_type} operator changed in opset {since}; pyonnx emits "
                        f"the opset-21 form, so convert with target_opset {MIN_OPSET_TEXT}")
            for attr in node.attribute:
                for g in ([attr.g] if attr.HasField("g") else []) + list(attr.graphs):
                    walk(g)

    walk(model.graph)
