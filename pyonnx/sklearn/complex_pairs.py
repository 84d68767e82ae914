"""Complex ``X`` in scikit-learn pipelines: the trailing-2 real tensor convention of pyonnx's own
models, applied to the model skl2onnx builds.

skl2onnx types a complex ``X`` as an ONNX complex tensor, on which onnxruntime has almost no
kernels. Inside the conversion the types stay complex, so each shape calculator sees what numpy
would (a custom step's graph is built for the complex dtype, and declares complex outputs);
in the ONNX graph every complex variable actually holds the real ``(..., 2)`` tensor pyonnx's
graphs read and write (numpy's layout: ``z.view(z.real.dtype).reshape(*z.shape, 2)``).
:func:`finish` then retypes the model's complex inputs and outputs as those real tensors and
records the convention as :func:`pyonnx.to_onnx` does (doc string, each value's
``metadata_props["pyonnx.complex"]``, the model's ``pyonnx.complex_inputs`` /
``pyonnx.complex_outputs``).

Only pyonnx's own steps (and skl2onnx's ``Identity``) may read a complex variable: a step that
skl2onnx converts itself would compute on the pair as if it were one more axis of real numbers,
so :func:`finish` refuses the model instead. Active only inside :func:`pyonnx.sklearn.to_onnx`
(``skl2onnx.to_onnx`` called directly does not rewrite the model, so complex inputs are refused
there, see :func:`check_active`).
"""

from __future__ import annotations

import contextlib
import contextvars
import dataclasses
from collections.abc import Iterator
from typing import Any

import numpy as np

from pyonnx.errors import ConversionError

__all__ = ["COMPLEX_TYPES", "conversion", "check_active", "note_step", "finish",
           "graph_output_types", "refuse_wrong_type"]

# skl2onnx type class name → numpy dtype
COMPLEX_TYPES = {"Complex64TensorType": np.dtype(np.complex64),
                 "Complex128TensorType": np.dtype(np.complex128)}
# ONNX element types of the complex dtypes → the real dtype of their pairs
_PAIR_ELEM = {14: 1, 15: 11}  # COMPLEX64 → FLOAT, COMPLEX128 → DOUBLE


@dataclasses.dataclass
class _State:
    """The complex variables and the nodes of pyonnx's steps of one conversion."""

    variables: set[str] = dataclasses.field(default_factory=set)
    nodes: set[str] = dataclasses.field(default_factory=set)


_STATE: contextvars.ContextVar[_State | None] = contextvars.ContextVar("pyonnx_sklearn_complex",
                                                                      default=None)


@contextlib.contextmanager
def conversion() -> Iterator[_State]:
    """The scope of one ``pyonnx.sklearn.to_onnx`` conversion."""
    state = _State()
    token = _STATE.set(state)
    try:
        yield state
    finally:
        _STATE.reset(token)


def check_active(dtype: np.dtype) -> None:
    """Refuses a complex step input outside :func:`pyonnx.sklearn.to_onnx`."""
    if _STATE.get() is None:
        raise ConversionError(
            f"a {dtype} X is converted by pyonnx.sklearn.to_onnx only (it gives the model real "
            "inputs and outputs with a trailing dimension of 2, which onnxruntime can compute "
            "on); skl2onnx.to_onnx would leave ONNX complex tensors: call "
            "pyonnx.sklearn.to_onnx(estimator, X_sample)")


def note_step(operator: Any, container: Any, first_node: int) -> None:
    """Records the complex variables of a pyonnx step and the nodes it added (from index
    ``first_node`` of ``container.nodes``)."""
    state = _STATE.get()
    if state is None:
        return
    for var in list(operator.inputs) + list(operator.outputs):
        if type(var.type).__name__ in COMPLEX_TYPES:
            state.variables.add(var.full_name)
    state.nodes.update(node.name for node in container.nodes[first_node:])


def refuse_wrong_type(error: Exception) -> None:
    """skl2onnx's refusal of a complex input to one of its own converters, as a
    ConversionError saying what to write instead (other type errors: nothing)."""
    if "Complex" in str(error):
        raise ConversionError(
            f"{error}: only steps pyonnx converts (custom steps, FunctionTransformer) compute "
            "on complex values; give that step real columns (e.g. a FunctionTransformer "
            "returning np.hstack([X.real, X.imag]) or np.abs(X) before it)") from None


def graph_output_types(model: Any, dtypes: list[np.dtype],
                       shapes: list[tuple]) -> tuple[list[np.dtype], list[tuple]]:
    """The numpy dtypes and shapes of a pyonnx graph's outputs as the pipeline sees them: a
    complex output (named in the model's metadata) is its dtype without the trailing 2."""
    from pyonnx.complex_io import plan_of_model

    _, complex_outputs = plan_of_model(model)
    dtypes, shapes = list(dtypes), list(shapes)
    for k, dt in complex_outputs.items():
        dtypes[k], shapes[k] = dt, shapes[k][:-1]
    return dtypes, shapes


def finish(model: Any, state: _State) -> Any:
    """Retypes the complex inputs and outputs of skl2onnx's ``model`` as trailing-2 real
    tensors and records the convention (in place; returns ``model``).

    Raises:
        ConversionError: a node that is not part of a pyonnx step reads a complex variable.
    """
    from pyonnx.frontend.graph.complex_values import TRAILING_DOC

    graph = model.graph
    complex_names = {v.name for v in list(graph.input) + list(graph.output)
                     if v.type.tensor_type.elem_type in _PAIR_ELEM} | state.variables
    if not complex_names:
        return model
    for node in _all_nodes(graph):
        if node.name in state.nodes or node.op_type == "Identity":
            continue
        read = [n for n in node.input if n in complex_names]
        if read:
            raise ConversionError(
                f"the complex variable '{read[0]}' is an input of skl2onnx's {node.op_type} "
                f"node '{node.name}': only steps pyonnx converts (custom steps, "
                "FunctionTransformer) compute on complex values; give that step real columns "
                "(e.g. a FunctionTransformer returning np.hstack([X.real, X.imag]) before it)")
    inputs, outputs = {}, {}
    for k, value in enumerate(list(graph.input) + list(graph.output)):
        t = value.type.tensor_type
        if t.elem_type not in _PAIR_ELEM:
            continue
        dtype = np.dtype(np.complex64) if t.elem_type == 14 else np.dtype(np.complex128)
        t.elem_type = _PAIR_ELEM[t.elem_type]
        if t.HasField("shape"):
            t.shape.dim.add().dim_value = 2
        entry = value.metadata_props.add()
        entry.key, entry.value = "pyonnx.complex", dtype.name
        value.doc_string = f"{dtype.name}: {TRAILING_DOC}"
        if k < len(graph.input):
            inputs[value.name] = dtype
        else:
            outputs[k - len(graph.input)] = dtype
    for key, text in (("pyonnx.complex_inputs", ",".join(f"{n}:{d.name}" for n, d in
                                                         inputs.items())),
                      ("pyonnx.complex_outputs", ",".join(f"{k}:{d.name}" for k, d in
                                                          outputs.items()))):
        entry = model.metadata_props.add()
        entry.key, entry.value = key, text
    names = [graph.output[k].name for k in outputs]
    note = ("Complex inputs " + ", ".join(inputs) + "; " if inputs else "") + \
        ("complex outputs " + ", ".join(names) + ": " if outputs else ": ") + TRAILING_DOC + "."
    model.doc_string = f"{model.doc_string}\n\n{note}" if model.doc_string else note
    return model


def _all_nodes(graph: Any) -> Iterator[Any]:
    for node in graph.node:
        yield node
        for attr in node.attribute:
            for sub in ([attr.g] if attr.HasField("g") else []) + list(attr.graphs):
                yield from _all_nodes(sub)
