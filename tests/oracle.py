"""The differential oracle every end-to-end test uses.

``check(fn, *args)`` runs ``fn`` with numpy and the compiled model with onnxruntime and asserts
equal values, dtype and shape (numpy scalars stay scalars); it also checks the emitted model
with ``onnx.checker.check_model(full_check=True)`` and, where it covers the ops, runs it with
``onnx.reference.ReferenceEvaluator`` as a second runtime.
"""

from __future__ import annotations

import copy
import warnings
from typing import Any, Sequence

import numpy as np
import onnx
import onnx.reference

import pyonnx

__all__ = ["check", "check_refused", "assert_same", "assert_same_arguments", "run_reference",
           "op_types"]


def assert_same(got: Any, want: Any, rtol: float | None = None, atol: float | None = None,
                where: str = "", signed_zeros: bool = True, python_kinds: bool = True) -> None:
    """Asserts ``got`` equals numpy's ``want`` in structure, type, dtype, shape and value.

    Type: a numpy scalar where numpy returns one, a Python int/float/bool/complex (exactly that
    type) where numpy or Python returns one, an ndarray where numpy returns an array of rank
    >= 1, a numpy scalar or 0-d array where numpy returns a 0-d array (README: "0-d results as
    numpy scalars"). Values: exact for bool and integers; for floats within ``rtol``/``atol``
    (8 ulp of the dtype by default), NaN exactly where numpy has NaN, and the sign of every zero that both
    results have (``-0.0`` is not ``+0.0``). ``python_kinds=False`` (only for the cases listed
    where it is passed, which pyonnx does not follow yet) accepts a numpy scalar where numpy
    returns a Python number.
    """
    if isinstance(want, dict):
        assert type(got) is dict, f"{where}expected a dict, got {type(got).__name__}"
        assert list(got) == list(want), f"{where}keys {list(got)} != numpy's {list(want)}"
        for key in want:
            assert_same(got[key], want[key], rtol, atol, where=f"{where}[{key!r}] ",
                        signed_zeros=signed_zeros, python_kinds=python_kinds)
        return
    if isinstance(want, (tuple, list)):
        assert type(got) is type(want), (
            f"{where}expected a {type(want).__name__}, got {type(got).__name__}")
        assert len(got) == len(want), f"{where}expected {len(want)} results, got {len(got)}"
        for i, (g, w) in enumerate(zip(got, want)):
            assert_same(g, w, rtol, atol, where=f"{where}[{i}] ", signed_zeros=signed_zeros,
                        python_kinds=python_kinds)
        return
    if want is None:
        assert got is None, f"{where}numpy returned None, pyonnx {type(got).__name__}"
        return
    if isinstance(want, np.generic):
        assert isinstance(got, np.generic), (
            f"{where}numpy returned a scalar {type(want).__name__}, pyonnx {type(got).__name__}"
            f"{' of shape ' + str(got.shape) if isinstance(got, np.ndarray) else ''}")
    elif isinstance(want, np.ndarray) and want.ndim:
        assert isinstance(got, np.ndarray), (
            f"{where}numpy returned an ndarray of shape {want.shape}, pyonnx "
            f"{type(got).__name__}")
    elif isinstance(want, np.ndarray):
        # A 0-d array from numpy (np.array(5), x[...], np.zeros_like of a 0-d input) comes
        # back as a numpy scalar of the same dtype: the README's documented convention ("0-d
        # results as numpy scalars"), since pyonnx does not track which 0-d values numpy
        # keeps as arrays.
        assert isinstance(got, (np.generic, np.ndarray)), (
            f"{where}numpy returned a 0-d ndarray, pyonnx {type(got).__name__}")
    elif type(want) in (float, int, bool, complex) and not python_kinds:
        assert not isinstance(got, np.ndarray) or got.ndim == 0, (
            f"{where}numpy returned a Python scalar, pyonnx an array of shape {np.shape(got)}")
    elif type(want) in (float, int, bool, complex):
        # A Python number where numpy returns one (len(x), a loop variable, float(v)), not a
        # numpy scalar of the same kind: np.float64 subclasses float, so the type exactly.
        assert type(got) is type(want), (
            f"{where}numpy returned a Python {type(want).__name__}, pyonnx "
            f"{type(got).__name__}{' of shape ' + str(got.shape) if isinstance(got, np.ndarray) else ''}")
    want_arr = np.asarray(want)
    got_arr = np.asarray(got)
    assert got_arr.shape == want_arr.shape, f"{where}shape {got_arr.shape} != numpy's {want_arr.shape}"
    if type(want) not in (float, int, bool, complex):  # Python numbers have no fixed dtype
        assert got_arr.dtype == want_arr.dtype, f"{where}dtype {got_arr.dtype} != numpy's {want_arr.dtype}"
    if want_arr.dtype.kind == "c":  # each part as a float array (tolerance, NaN, zero signs)
        for part in ("real", "imag"):
            assert_same(getattr(got_arr, part), getattr(want_arr, part), rtol, atol,
                        where=f"{where}{part} part: ", signed_zeros=signed_zeros)
        return
    if want_arr.dtype.kind == "f":
        eps = np.finfo(want_arr.dtype).eps
        rt = rtol if rtol is not None else 8 * eps
        at = atol if atol is not None else 8 * eps
        np.testing.assert_allclose(got_arr, want_arr, rtol=rt, atol=at, equal_nan=True,
                                   err_msg=where)
        if not signed_zeros:
            return
        with np.errstate(invalid="ignore"):
            zeros = (want_arr == 0) & (got_arr == 0)
        np.testing.assert_array_equal(np.signbit(got_arr[zeros]), np.signbit(want_arr[zeros]),
                                      err_msg=f"{where}the sign of zero")
    else:
        np.testing.assert_array_equal(got_arr, want_arr, err_msg=where)


def assert_same_arguments(got_args: Sequence[Any], want_args: Sequence[Any],
                          rtol: float | None = None, atol: float | None = None,
                          signed_zeros: bool = True) -> None:
    """Asserts every argument after the pyonnx call equals the same argument after numpy's
    (arrays a function writes into, lists it appends to); other arguments are compared by ==."""
    for i, (g, w) in enumerate(zip(got_args, want_args)):
        where = f"argument {i} after the call: "
        if isinstance(w, np.ndarray):
            assert_same(g, w, rtol, atol, where=where, signed_zeros=signed_zeros)
        elif isinstance(w, (list, tuple)):
            assert type(g) is type(w) and len(g) == len(w), f"{where}{g!r} != numpy's {w!r}"
            assert_same_arguments(g, w, rtol, atol, signed_zeros)
        elif isinstance(w, dict):  # a dict the function writes into (d[k] = ..., d[k] += ...)
            assert type(g) is dict and list(g) == list(w), f"{where}{g!r} != numpy's {w!r}"
            assert_same_arguments(list(g.values()), list(w.values()), rtol, atol, signed_zeros)
        elif isinstance(w, (np.generic, int, float, bool, str, type(None))):
            assert g == w or (g != g and w != w), f"{where}{g!r} != numpy's {w!r}"


def run_reference(model: onnx.ModelProto, feeds: dict[str, np.ndarray]) -> list[np.ndarray] | None:
    """Runs the model with onnx's reference evaluator; None where it lacks an op."""
    try:
        ref = onnx.reference.ReferenceEvaluator(model)
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            return ref.run(None, feeds)
    except (NotImplementedError, ImportError, KeyError):
        return None
    except ValueError as e:
        # The evaluator's Loop concatenates scan outputs with np.concatenate, which refuses a
        # loop that ran zero times (onnxruntime returns the empty tensor ONNX defines).
        if "need at least one array to concatenate" in str(e):
            return None
        # Its GatherElements is np.choose, which takes at most 64 choices: data of more than
        # 64 elements along the axis (pyonnx's GatherElementsPass makes such lookups).
        if "at most 64 array objects" in str(e):
            return None
        # Its Pad is np.pad, which refuses negative pads (ONNX's Pad removes elements there:
        # pyonnx.passes.shifted_differences uses one).
        if "index can't contain negative values" in str(e):
            return None
        raise


def check(fn, *args: Any, rtol: float | None = None, atol: float | None = None,
          reference: bool = True, static_argnames=(), signed_zeros: bool = True,
          python_kinds: bool = True, **kwargs: Any) -> Any:
    """Differential check of ``fn(*args, **kwargs)``: numpy versus pyonnx.

    numpy runs ``fn`` on deep copies of the arguments, pyonnx on the arguments themselves:
    results (:func:`assert_same`) and every argument after the call must be equal. The model
    must pass ``check_model(full_check=True)``, compute nothing in float16, and, where onnx's
    reference evaluator has the ops, give the same results and written-back arguments there
    (from the arguments as they were before the call).

    Returns the compiled function (to call it again with other inputs of the same signature).
    """
    fresh = not isinstance(fn, pyonnx.CompiledFunction)
    compiled = pyonnx.compile(fn, static_argnames=static_argnames) if fresh else fn
    before = copy.deepcopy(args)
    py_args = copy.deepcopy(args)
    try:
        with np.errstate(all="ignore"):
            want = compiled.fn(*py_args, **kwargs)
    except Exception as e:  # numpy raises: the compiled function raises the same
        _check_raises(compiled, e, args, before, kwargs)
        return compiled
    got = compiled(*args, **kwargs)
    assert_same(got, want, rtol, atol, signed_zeros=signed_zeros, python_kinds=python_kinds)
    assert_same_arguments(args, py_args, rtol, atol, signed_zeros)
    # The model of this call's signature with its output structure (what to_onnx returns,
    # plus which outputs are results and which written-back arguments).
    bound = compiled._bind(before, kwargs)
    if fresh and compiled._last is not None and len(compiled._cache) == 1:
        # (the model this call converted and ran: its one signature; converting it again
        # would double the suite's conversion time)
        last = compiled._last
        model_bytes, structure, scalars = last.model, last.structure, last.scalars
    else:
        model_bytes, structure, scalars = compiled._build(
            compiled._params_for(bound, symbolic=not compiled.static_shapes))
    model = onnx.load_from_string(model_bytes)
    onnx.checker.check_model(model, full_check=True)
    assert_no_float16_compute(model)
    if reference:
        _check_reference(compiled, model, structure, scalars, bound, kwargs, want, py_args,
                         rtol, atol, python_kinds)
    return compiled


def _check_raises(compiled, want: Exception, args: tuple, before: tuple, kwargs: dict) -> None:
    """numpy raised ``want``: the compiled call raises the same class with the same message
    (a run-time check, pyonnx.check_protocol), and the model passes the checker."""
    try:
        compiled(*args, **kwargs)
    except Exception as e:
        assert type(e) is type(want), f"numpy raised {want!r}, pyonnx {e!r}"
        assert str(e) == str(want), f"numpy raised {want!r}, pyonnx {e!r}"
    else:
        raise AssertionError(f"numpy raised {want!r}, pyonnx returned")
    bound = compiled._bind(before, kwargs)
    model_bytes, _, _ = compiled._build(
        compiled._params_for(bound, symbolic=not compiled.static_shapes))
    onnx.checker.check_model(onnx.load_from_string(model_bytes), full_check=True)


def _check_outputs(model) -> int:
    """The number of run-time check outputs (the last ones, pyonnx.check_protocol)."""
    from pyonnx import check_protocol

    meta = {p.key: p.value for p in model.metadata_props}
    sites = check_protocol.parse(meta.get(check_protocol.KEY)) or []
    return sum(1 + len(s["values"]) for s in sites)


def _check_reference(compiled, model, structure, scalars, bound, kwargs, want, py_args,
                     rtol, atol, python_kinds: bool = True) -> None:
    """Runs ``model`` with onnx's reference evaluator on the arguments as they were before the
    call; its results and written-back arguments must equal numpy's."""
    names = [i.name for i in model.graph.input]
    from pyonnx import complex_io

    complex_in, complex_out = complex_io.plan_of_model(model)
    feeds = {name: complex_io.to_pairs(a) if name in complex_in else
             np.asarray(a, dtype=_input_dtype(model, name))
             for name, a in zip(compiled._params, bound) if name in names}
    ref = run_reference(model, feeds)
    if ref is None:
        return
    for k, dt in complex_out.items():  # (..., 2) reals back to complex (call_path does it too)
        ref[k] = complex_io.from_pairs(ref[k], dt)
    n = len(scalars)
    written = list(getattr(structure, "writeback", ()))
    assert len(ref) == n + len(written) + _check_outputs(model), \
        "reference evaluator: unexpected number of outputs"
    outs = [o.name for o in model.graph.output]
    for name, value in zip(outs, ref):
        if name.startswith("check_") and name.endswith("_failed"):
            assert not value, f"reference evaluator: {name} is true where numpy did not raise"
    tree = getattr(structure, "tree", None)
    if tree is not None:
        # nested tuples, lists, None and Python numbers: rebuilt as the call path does
        ref_out = _rebuild(tree, ref[:n], scalars)
    else:
        results = [r[()] if scalar else r for r, scalar in zip(ref[:n], scalars)]
        ref_out = None if structure == "none" else (
            tuple(results) if isinstance(want, tuple) else results[0])
    # The reference evaluator computes some float ops in float64 internally, and loses the
    # sign of some zeros numpy keeps (float16 Trunc through float32): the sign is pyonnx's
    # promise, checked on onnxruntime's results above, not the evaluator's.
    rt = rtol if rtol is not None else 1e-5
    at = atol if atol is not None else 1e-6
    assert_same(ref_out, want, rt, at, where="reference evaluator: ", signed_zeros=False,
                python_kinds=python_kinds)
    want_args = compiled._bind(py_args, kwargs)
    for name, value in zip(written, ref[n:]):
        w = want_args[compiled._params.index(name)]
        assert_same(value.astype(w.dtype), w, rt, at,
                    where=f"reference evaluator, argument {name} after the call: ",
                    signed_zeros=False)


def _rebuild(tree: tuple, outs: list, scalars: tuple) -> Any:
    """The Python value of an OutputStructure tree from raw model outputs."""
    kind = tree[0]
    if kind == "leaf":
        out = outs[tree[1]]
        return out.item() if tree[2] else out[()] if scalars[tree[1]] else out
    if kind == "seq":  # a list built at run time (an ONNX sequence output)
        items = [np.asarray(e) for e in outs[tree[1]]]
        return ([e.item() for e in items] if tree[2] == "python"
                else [e[()] for e in items] if tree[2] == "numpy" else items)
    if kind == "const":
        return tree[1]
    if kind == "pyleaf":  # a Python number where its flag output is true
        out = np.asarray(outs[tree[1]])
        return out.item() if outs[tree[2]] else out[()]
    if kind == "aleaf":  # a 0-d array where its flag output is true, else a numpy scalar
        out = np.asarray(outs[tree[1]])
        return out if outs[tree[2]] else out[()]
    if kind == "maybe":  # a possibly-None number: None where its flag output is False
        return _rebuild(tree[2], outs, scalars) if outs[tree[1]] else None
    if kind == "zip":  # a list of tuples built at run time: one sequence per field
        return list(zip(*[_rebuild(c, outs, scalars) for c in tree[1]]))
    if kind == "dict":
        return {k: _rebuild(c, outs, scalars) for k, c in zip(tree[1], tree[2])}
    items = [_rebuild(c, outs, scalars) for c in tree[1]]
    return tuple(items) if kind == "tuple" else items


# A Loop that always runs its full trip count is a Scan under an If(M > 0) in the model
# onnxruntime runs (pyonnx/passes/loop_to_scan.py): either op is "a run-time loop".
LOOPS = frozenset({"Loop", "Scan"})


def loop_nodes(graph: onnx.GraphProto) -> list:
    """``graph``'s run-time loops in order: its ``Loop`` nodes and the ``Scan`` of each
    ``If(M > 0, Scan, ...)`` that LoopToScanPass made of a Loop (where UnrollScansPass put
    that Scan behind its own ``If``, the Scan as written: the else branch's)."""
    out = []
    for node in graph.node:
        if node.op_type == "Loop":
            out.append(node)
        elif node.op_type == "If":
            then = next(a.g for a in node.attribute if a.name == "then_branch")
            for n in then.node:
                if n.op_type == "Scan":
                    out.append(n)
                elif n.op_type == "If" and "_unroll_If" in n.name:
                    few = next(a.g for a in n.attribute if a.name == "else_branch")
                    out.extend(m for m in few.node if m.op_type == "Scan")
    return out


def loop_states(node) -> int:
    """How many states a ``Loop`` or ``Scan`` node carries."""
    if node.op_type == "Loop":
        return len(node.input) - 2
    scans = next(a.i for a in node.attribute if a.name == "num_scan_inputs")
    return len(node.input) - scans


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


def check_refused(fn, *args: Any, match: str, numpy_match: str | None = None) -> None:
    """Asserts numpy refuses ``fn(*args)`` with a message matching ``numpy_match`` (default
    ``match``: pyonnx repeats numpy's words) and pyonnx refuses it too, with a ConversionError
    matching ``match`` on the function's first body line (``def`` line + 1)."""
    import pytest

    with pytest.raises((TypeError, ValueError, IndexError, OverflowError),
                       match=numpy_match or match):
        fn(*args)
    with pytest.raises(pyonnx.ConversionError, match=match) as info:
        pyonnx.compile(fn)(*args)
    assert info.value.lineno == fn.__code__.co_firstlineno + 1


# Ops whose float16 outputs are float16 inputs moved, selected, reshaped or converted: they
# round nothing, so they may read float16. Written here, from the ONNX operator definitions,
# not imported from pyonnx (the test must not share the library's table). Where, Neg, Abs,
# Tile, Trilu and Pad also only move values, but onnxruntime runs them through a float32
# detour it fuses with a neighbouring Cast (measured), so they must not read float16 either.
FLOAT16_EXACT = frozenset({
    "Identity", "Reshape", "Slice", "Gather", "GatherND", "GatherElements", "Transpose",
    "Unsqueeze", "Squeeze", "Concat", "Expand", "Compress", "Flatten", "Split",
    "ReverseSequence", "Cast", "BitCast", "Shape", "Size", "ConstantOfShape",
    # Control flow and sequences pass values on; the nodes of their bodies are checked.
    "If", "Loop", "Scan", "Identity", "SequenceEmpty", "SequenceConstruct", "SequenceInsert",
    "SequenceAt", "SequenceLength", "ConcatFromSequence", "SplitToSequence",
})


# Scatters without a reduction write float16 updates into float16 data unchanged (onnxruntime
# has float16 kernels for both: no float32 detour); with one (add, mul, max, min) they compute.
_SCATTERS = frozenset({"ScatterND", "ScatterElements"})


def _reads_float16_exactly(node: onnx.NodeProto) -> bool:
    if node.op_type in FLOAT16_EXACT:
        return True
    if node.op_type in _SCATTERS:
        reduction = next((a.s for a in node.attribute if a.name == "reduction"), b"none")
        return reduction == b"none"
    return False


def assert_no_float16_compute(model: onnx.ModelProto) -> None:
    """Asserts no node outside the float16-exact set reads a float16 value.

    onnxruntime runs such ops through float32 and drops the rounding to float16 between
    chained ops (numpy rounds after every op), so pyonnx must compute them in float32 between
    explicit Casts (``kernels.has_kernel``).
    """
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
            if node.domain in ("", "ai.onnx") and not _reads_float16_exactly(node):
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
