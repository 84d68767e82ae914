"""The differential oracle every end-to-end test uses.

``check(fn, *args)`` runs ``fn`` with numpy and the compiled model with onnxruntime and asserts
equal values, dtype and shape (numpy scalars stay scalars); it also checks the emitted model
with ``onnx.checker.check_model(full_check=True)`` and, where it covers the ops, runs it with
``onnx.reference.ReferenceEvaluator`` as a second runtime.
"""

from __future__ import annotations

import copy
import warnings
from typing import Any

import numpy as np
import onnx
import onnx.reference

import pyonnx

__all__ = ["check", "check_refused", "assert_same", "run_reference", "op_types"]


def assert_same(got: Any, want: Any, rtol: float | None = None, atol: float | None = None,
                where: str = "") -> None:
    """Asserts ``got`` equals numpy's ``want`` in structure, dtype, shape and value."""
    if want is None:
        assert got is None, f"{where}expected None, got {type(got).__name__}"
        return
    if isinstance(want, (tuple, list)):
        assert type(got) is type(want), (
            f"{where}expected a {type(want).__name__}, got {type(got).__name__}")
        assert len(got) == len(want), f"{where}expected {len(want)} results, got {len(got)}"
        for i, (g, w) in enumerate(zip(got, want)):
            assert_same(g, w, rtol, atol, where=f"{where}[{i}] ")
        return
    want_arr = np.asarray(want)
    got_arr = np.asarray(got)
    if isinstance(want, (np.generic, float, int, bool)):
        assert not isinstance(got, np.ndarray) or got.ndim == 0, (
            f"{where}numpy returned a scalar, pyonnx an array of shape {got_arr.shape}")
    assert got_arr.shape == want_arr.shape, f"{where}shape {got_arr.shape} != numpy's {want_arr.shape}"
    if not isinstance(want, (float, int, bool)):  # Python scalars have no fixed dtype
        assert got_arr.dtype == want_arr.dtype, f"{where}dtype {got_arr.dtype} != numpy's {want_arr.dtype}"
    if want_arr.dtype.kind == "f":
        eps = np.finfo(want_arr.dtype).eps
        rt = rtol if rtol is not None else 8 * eps
        at = atol if atol is not None else 8 * eps
        np.testing.assert_allclose(got_arr, want_arr, rtol=rt, atol=at, equal_nan=True,
                                   err_msg=where)
    else:
        np.testing.assert_array_equal(got_arr, want_arr, err_msg=where)


def run_reference(model: onnx.ModelProto, feeds: dict[str, np.ndarray]) -> list[np.ndarray] | None:
    """Runs the model with onnx's reference evaluator; None where it lacks an op."""
    try:
        ref = onnx.reference.ReferenceEvaluator(model)
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            return ref.run(None, feeds)
    except (NotImplementedError, ImportError, KeyError):
        return None


def check(fn, *args: Any, rtol: float | None = None, atol: float | None = None,
          reference: bool = True, static_argnames=(), **kwargs: Any) -> Any:
    """Differential check of ``fn(*args, **kwargs)``: numpy versus pyonnx.

    Returns the compiled function (to call it again with other inputs of the same signature).
    """
    compiled = fn if isinstance(fn, pyonnx.CompiledFunction) else pyonnx.compile(
        fn, static_argnames=static_argnames)
    py_args = copy.deepcopy(args)
    ref_args = copy.deepcopy(args)  # the reference evaluator's inputs: before any write-back
    with np.errstate(all="ignore"):
        want = compiled.fn(*py_args, **kwargs)
    got = compiled(*args, **kwargs)
    assert_same(got, want, rtol, atol)
    model = compiled.to_onnx(*args, **kwargs)
    onnx.checker.check_model(model, full_check=True)
    assert_no_float16_compute(model)
    if reference:
        feeds = {}
        names = [i.name for i in model.graph.input]
        bound = compiled._bind(ref_args, kwargs)
        for name, a in zip(compiled._params, bound):
            if name in names:
                feeds[name] = np.asarray(a, dtype=_input_dtype(model, name))
        ref = run_reference(model, feeds)
        if ref is not None and compiled._last is not None:
            ref = ref[:len(compiled._last.scalars)]  # the rest: arguments written back
        tree = getattr(compiled._last.structure, "tree", None) if compiled._last else None
        if ref is not None and tree is not None:
            # nested tuples, lists, None and Python numbers: rebuilt as the call path does
            assert_same(_rebuild(tree, ref, compiled._last.scalars), want,
                        rtol if rtol is not None else 1e-5, atol if atol is not None else 1e-6,
                        where="reference evaluator: ")
        elif ref is not None and want is not None:
            ref_out = ref[0] if len(ref) == 1 and not isinstance(want, tuple) else tuple(ref)
            if isinstance(want, tuple):
                ref_out = tuple(r[()] if np.ndim(w) == 0 else r for r, w in zip(ref_out, want))
            elif np.ndim(want) == 0:
                ref_out = ref_out[()]
            # The reference evaluator computes some float ops in float64 internally.
            assert_same(ref_out, want, rtol if rtol is not None else 1e-5,
                        atol if atol is not None else 1e-6, where="reference evaluator: ")
    return compiled


def _rebuild(tree: tuple, outs: list, scalars: tuple) -> Any:
    """The Python value of an OutputStructure tree from raw model outputs."""
    kind = tree[0]
    if kind == "leaf":
        out = outs[tree[1]]
        return out.item() if tree[2] else out[()] if scalars[tree[1]] else out
    if kind == "const":
        return tree[1]
    items = [_rebuild(c, outs, scalars) for c in tree[1]]
    return tuple(items) if kind == "tuple" else items


def op_types(compiled, *args: Any) -> set[str]:
    """The op types of the model ``compiled`` makes for ``args``, subgraphs included."""
    found: set[str] = set()

    def walk(graph: onnx.GraphProto) -> None:
        for node in graph.node:
            found.add(node.op_type)
            for attr in node.attribute:
                if attr.type == onnx.AttributeProto.GRAPH:
                    walk(attr.g)
    walk(compiled.to_onnx(*args).graph)
    return found


def check_refused(fn, *args: Any, match: str) -> None:
    """Asserts numpy refuses ``fn(*args)`` and pyonnx refuses it too, with a ConversionError
    matching ``match`` on the function's first body line (``def`` line + 1)."""
    import pytest

    with pytest.raises(Exception):  # numpy refuses these too
        fn(*args)
    with pytest.raises(pyonnx.ConversionError, match=match) as info:
        pyonnx.compile(fn)(*args)
    assert info.value.lineno == fn.__code__.co_firstlineno + 1


def assert_no_float16_compute(model: onnx.ModelProto) -> None:
    """Asserts no node outside the float16-exact set reads a float16 value.

    onnxruntime runs such ops through float32 and drops the rounding to float16 between
    chained ops (numpy rounds after every op), so pyonnx must compute them in float32 between
    explicit Casts (``kernels.has_kernel``).
    """
    from pyonnx.frontend.graph.kernels import _FLOAT16_EXACT

    inferred = onnx.shape_inference.infer_shapes(model)
    f16 = onnx.TensorProto.FLOAT16
    types: dict[str, int] = {}

    def collect(graph: onnx.GraphProto) -> None:
        for v in list(graph.input) + list(graph.output) + list(graph.value_info):
            types[v.name] = v.type.tensor_type.elem_type
        for init in graph.initializer:
            types[init.name] = init.data_type
        for node in graph.node:
            for attr in node.attribute:
                if attr.type == onnx.AttributeProto.GRAPH:
                    collect(attr.g)

    def check_graph(graph: onnx.GraphProto) -> None:
        for node in graph.node:
            if node.domain in ("", "ai.onnx") and node.op_type not in _FLOAT16_EXACT:
                bad = [i for i in node.input if i and types.get(i) == f16]
                assert not bad, (f"node {node.name} ({node.op_type}) reads float16 {bad}: "
                                 "onnxruntime drops numpy's float16 rounding there; compute in "
                                 "float32 between explicit Casts")
            for attr in node.attribute:
                if attr.type == onnx.AttributeProto.GRAPH:
                    check_graph(attr.g)

    collect(inferred.graph)
    check_graph(inferred.graph)


def _input_dtype(model: onnx.ModelProto, name: str) -> np.dtype:
    for i in model.graph.input:
        if i.name == name:
            return onnx.helper.tensor_dtype_to_np_dtype(i.type.tensor_type.elem_type)
    raise KeyError(name)
