"""``FunctionTransformer(func, kw_args=...)`` converted by pyonnx.

Input: a fitted ``FunctionTransformer`` in a skl2onnx conversion. Output: its step in the ONNX
graph: ``func(X, **kw_args)`` converted from ``func``'s source (a numpy function such as
``np.log1p``, or the user's own Python function, inlined), the keyword values known at
conversion time. ``func=None`` (the identity, which skl2onnx converts itself) keeps skl2onnx's
own shape calculator and converter; :func:`install_function_transformer` only replaces them for
the cases skl2onnx refuses. A ``functools.partial`` with keywords only is unwrapped into ``func``
and ``kw_args``.

pyonnx does not convert a ``**kwargs`` call, so the call is made by a small wrapper written for
the keyword names (``def function_transformer(func, X, kw_a_min, kw_a_max): return func(X,
a_min=kw_a_min, a_max=kw_a_max)``). Its source is registered with ``linecache`` (as
``dataclasses`` does for the methods it writes) because pyonnx reads source.

``validate=True`` runs ``validate_data`` in scikit-learn: for a numeric 2-D array that is the
identity (its data checks, e.g. for NaN, are not part of the model; see
:mod:`pyonnx.sklearn.validation`). ``inverse_func`` is not part of a prediction graph.
"""

from __future__ import annotations

import functools
import keyword
import linecache
import types
from typing import Any

from pyonnx.errors import ConversionError
from pyonnx.sklearn.complex_pairs import note_step
from pyonnx.sklearn.graph import convert_function
from pyonnx.sklearn.register import (concat_inputs, declare_outputs, graph_for, onnx_opset)
from pyonnx.sklearn.inline import add_graph

__all__ = ["install_function_transformer", "ALIAS"]

ALIAS = "SklearnFunctionTransformer"
_ORIGINAL: dict[str, Any] = {}


def install_function_transformer() -> None:
    """Makes skl2onnx convert ``FunctionTransformer(func)`` with pyonnx (idempotent)."""
    from skl2onnx import update_registered_converter
    from skl2onnx.common._registration import get_converter, get_shape_calculator
    from sklearn.preprocessing import FunctionTransformer

    if not _ORIGINAL:
        _ORIGINAL["shape"] = get_shape_calculator(ALIAS)
        converter = get_converter(ALIAS)
        _ORIGINAL["convert"] = converter
        _ORIGINAL["options"] = converter.get_allowed_options()
    update_registered_converter(FunctionTransformer, ALIAS, _shape_calculator, _converter,
                                options=_ORIGINAL["options"])


@functools.cache
def _caller(names: tuple[str, ...]) -> types.FunctionType:
    """``function_transformer(func, X, kw_<name>...)`` calling ``func(X, <name>=kw_<name>...)``."""
    params = "".join(f", kw_{n}" for n in names)
    keywords = "".join(f", {n}=kw_{n}" for n in names)
    source = (f"def function_transformer(func, X{params}):\n"
              f"    return func(X{keywords})\n")
    filename = f"<pyonnx.sklearn FunctionTransformer call with keywords ({', '.join(names)})>"
    linecache.cache[filename] = (len(source), None, source.splitlines(True), filename)
    namespace: dict[str, Any] = {}
    exec(compile(source, filename, "exec"), namespace)
    return namespace["function_transformer"]


def _build(transformer: Any):
    func, kw_args = transformer.func, dict(transformer.kw_args or {})
    while isinstance(func, functools.partial) and not func.args:
        # partial(np.clip, a_min=0) calls np.clip(X, a_min=0): its keywords join kw_args
        # (which win, as Python's call does).
        func, kw_args = func.func, {**func.keywords, **kw_args}
    for name in kw_args:
        if not (isinstance(name, str) and name.isidentifier() and not keyword.iskeyword(name)):
            raise ConversionError(f"FunctionTransformer kw_args key {name!r} is not a Python "
                                  "keyword argument name")
    names = tuple(kw_args)
    statics = {"func": func, **{f"kw_{n}": v for n, v in kw_args.items()}}
    func_name = getattr(func, "__qualname__", None) or repr(func)

    def build(dtype, shape, opset):
        return convert_function(_caller(names), statics, "X", dtype, shape, opset,
                                f"FunctionTransformer({func_name})")
    return build


def _shape_calculator(operator: Any) -> None:
    transformer = operator.raw_operator
    if transformer.func is None:
        return _ORIGINAL["shape"](operator)
    graph = graph_for(operator, onnx_opset(operator.target_opset), _build(transformer))
    declare_outputs(operator, graph, [None])


def _converter(scope: Any, operator: Any, container: Any) -> None:
    transformer = operator.raw_operator
    if transformer.func is None:
        return _ORIGINAL["convert"](scope, operator, container)
    graph = graph_for(operator, onnx_opset(container.target_opset_all), _build(transformer))
    first = len(container.nodes)
    x = concat_inputs(scope, operator, container)
    add_graph(scope, container, graph.model, x, [v.full_name for v in operator.outputs],
              type(transformer).__name__)
    note_step(operator, container, first)
