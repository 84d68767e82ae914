"""Frontend entry point: a Python function and its input signature → an ``onnx_ir.Model``.

Input: the function, one :class:`Param` per parameter, the opset. Output: a
:class:`Converted` with the model (not yet run through the IR passes) and how to pack its
outputs back into Python values. Runs: parse → syntax check → canonicalize → lower.
"""

from __future__ import annotations

import dataclasses
import functools
import inspect
import re
import types
from typing import Any

import numpy as np
import onnx_ir as ir

from pyonnx import check_protocol
from pyonnx.errors import ConversionError, ExecutionError
from pyonnx.frontend import complex_boundary, numpy_calls
from pyonnx.frontend.graph import dtypes, path_weak, scalar_kinds
from pyonnx.frontend.graph.context import Lowering
from pyonnx.frontend.graph.complex_values import Complex
from pyonnx.frontend.graph.optional import Maybe
from pyonnx.frontend.graph.records import ComplexSeq, Records
from pyonnx.frontend.graph.values import Array, Seq, is_static
from pyonnx.frontend.lower import checks
from pyonnx.frontend.lower.aliases import AliasState
from pyonnx.frontend.lower.function import FunctionLowering, prepare
from pyonnx.loc import SourceLoc
from pyonnx.specs import Param  # noqa: F401  (re-exported: defined with the specs, light to import)

__all__ = ["Param", "Converted", "OutputStructure", "convert", "IR_VERSION"]

IR_VERSION = 10


@dataclasses.dataclass
class Converted:
    """A lowered model and the structure of its result.

    Attributes:
        model: the onnx-ir model before IR passes.
        structure: "single" (one output), "tuple" (a tuple of outputs), "none".
        output_is_scalar: per output, True if it is 0-d (returned as a numpy scalar).
    """

    model: ir.Model
    structure: str
    output_is_scalar: tuple[bool, ...]


def _regroup(fn: types.FunctionType, params: list[Param], bound: dict[str, Any]) -> None:
    """Binds ``*args`` to the tuple and ``**kwargs`` to the dict of their flat parameters."""
    P = inspect.Parameter
    for p in inspect.signature(fn).parameters.values():
        if p.kind is P.VAR_POSITIONAL:
            bound[p.name] = tuple(bound.pop(q.name) for q in params
                                  if q.group is not None and q.group[0] == p.name)
        elif p.kind is P.VAR_KEYWORD:
            bound[p.name] = {q.group[1]: bound.pop(q.name) for q in params
                             if q.group is not None and q.group[0] == p.name}


def convert(fn: types.FunctionType, params: list[Param], opset: int) -> Converted:
    """Lowers ``fn`` for the given parameter kinds.

    Raises:
        ConversionError: the source cannot be converted (located at the user's line).
        NeedStatic: a Python-scalar parameter's value is needed at conversion time.
    """
    src, tree, _ = prepare(fn)
    ctx = Lowering(_model_name(fn), opset, aliases=AliasState(), lookup=numpy_calls.lookup)
    ctx.record_check = checks.record_where
    inputs: list[ir.Value] = []
    bound: dict[str, Any] = {}
    complex_inputs: dict[str, np.dtype] = {}
    for p in params:
        if p.kind == "static":
            bound[p.name] = p.value
            if isinstance(p.value, list):
                ctx.argument_lists[id(p.value)] = p.name
            continue
        if p.kind == "alias":  # one Array object: aliases.py then sees one memory
            bound[p.name] = bound[p.value]
            continue
        spec = p.spec
        assert spec is not None
        if spec.dtype.kind == "c" and p.kind == "tensor":  # a real (..., 2) input
            value, bound[p.name] = complex_boundary.input_value(ctx, p.name, spec.dtype,
                                                                spec.shape, p.numpy_scalar)
            complex_inputs[p.name] = spec.dtype
            inputs.append(value)
            ctx.symbolic_params |= not all(isinstance(d, int) for d in spec.shape)
            continue
        if spec.dtype not in dtypes.SUPPORTED_DTYPES:
            raise ConversionError(f"parameter '{p.name}': dtype {spec.dtype} is not supported")
        value = ir.Value(name=p.name, shape=ir.Shape(spec.shape),
                         type=ir.TensorType(dtypes.to_ir(spec.dtype)))
        inputs.append(value)
        static_shape = tuple(d if isinstance(d, int) else None for d in spec.shape)
        ctx.symbolic_params |= None in static_shape
        if p.kind == "scalar":
            ctx.mark_argument_scalar(value, p.name)
        bound[p.name] = Array(value, spec.dtype, static_shape, weak=p.kind == "scalar")
        if p.numpy_scalar:  # immutable: a numpy scalar of its own, no memory of the caller's
            ctx.aliases.scalars0d.add(value)
        elif p.kind == "tensor":
            ctx.aliases.params[id(bound[p.name])] = p.name
            ctx.aliases.param_values[value] = p.name
    _regroup(fn, params, bound)
    lowering = FunctionLowering(ctx, fn)
    result = lowering.run(bound)
    ctx.loc = None
    written = _written_arguments(ctx, [p.name for p in params])
    # Every refusal has a line: one about the returned value is at the return statement
    # (or the def, for a function that falls off its end; also for transforms, structure.loc).
    at = lowering.return_loc or lowering.loc_of(lowering.tree)
    if result is None and written:
        outputs, structure, zero_d_arrays = [], "none", []
    else:
        try:
            outputs, structure, zero_d_arrays = _outputs(ctx, fn, tree, result, at)
        except ConversionError as e:
            raise e.with_loc(at) from None
    complex_outputs = {k: a.complex_dtype for k, a in enumerate(outputs)
                       if isinstance(a, (_ComplexOutput, _ComplexSeqOutput))}
    scalars = tuple(isinstance(a, Array) and a.ndim == (1 if k in complex_outputs else 0)
                    and not array0d for k, (a, array0d) in enumerate(zip(outputs, zero_d_arrays)))
    taken = {v.name for v in ctx.initializers} | {a.value.name for a in outputs}
    outputs += _writeback_outputs(ctx, written, taken)
    for name, packed, dtype in complex_boundary.written_arguments(  # (..., 2) reals
            ctx, lowering, {v.name for v in ctx.initializers} | {a.value.name for a in outputs}):
        complex_outputs[len(outputs)] = dtype
        outputs.append(packed)
        written.append((name, packed))
    taken |= {a.value.name for a in outputs}
    # Run-time checks last: the call path finds them by name (pyonnx.check_protocol).
    check_outputs, check_meta = checks.outputs(ctx, taken)
    outputs += check_outputs
    structure = OutputStructure(structure, tuple(name for name, _ in written),
                                getattr(structure, "tree", None),
                                tuple(sorted(ctx.aliases.contiguous)), at)
    graph = ir.Graph(inputs, [a.value for a in outputs], nodes=ctx.nodes,
                     initializers=ctx.initializers,
                     opset_imports={"": ctx.opset, **ctx.custom_domains}, name=_model_name(fn))
    doc = inspect.getdoc(fn)
    model = ir.Model(graph, ir_version=IR_VERSION, producer_name="pyonnx",
                     producer_version=_version(), doc_string=doc)
    model.metadata_props["pyonnx.function"] = f"{src.filename}:{src.tree.lineno}:{fn.__qualname__}"
    complex_boundary.record(model, complex_inputs, complex_outputs, list(graph.outputs))
    if getattr(ctx, "complex_used", False):  # complex values inside (transforms refuse them)
        model.metadata_props["pyonnx.complex_values"] = "1"
    if check_meta is not None:
        model.metadata_props[check_protocol.KEY] = check_meta
    return Converted(model, structure, scalars)


class _ComplexOutput(Array):
    """A packed complex output (trailing dimension 2) and its complex dtype."""

    __slots__ = ("complex_dtype",)

    def __init__(self, value, dtype, shape, complex_dtype):
        super().__init__(value, dtype, shape)
        self.complex_dtype = np.dtype(complex_dtype)


class _ComplexSeqOutput(Seq):
    """A list of complex values built at run time: one sequence of packed (trailing
    dimension 2) items, and their complex dtype."""

    __slots__ = ("complex_dtype",)

    def __init__(self, value, dtype, shape, complex_dtype):
        super().__init__(value, dtype, shape)
        self.complex_dtype = np.dtype(complex_dtype)


class OutputStructure(str):
    """How the outputs pack into the Python result: "single", "tuple" or "none"; and
    ``writeback``, the array parameters the function writes into, whose final values are the
    last outputs and are copied back into the caller's arrays after the run.

    ``tree``: None when the outputs are the result as they are (one array, or a flat tuple of
    arrays); else the shape of the Python value (see :func:`_result_tree`) that
    ``call_path`` rebuilds: nested tuples and lists, None and Python numbers, and Python
    scalars (``x.shape[0]``, ``float(s)``) returned as Python scalars."""

    writeback: tuple[str, ...]
    # array parameters whose C-contiguity the model's meaning depends on (a write through
    # their reshape, frontend/lower/layout.py): the call refuses other layouts
    contiguous: tuple[str, ...]
    tree: tuple | None
    # the return statement (the def when the function falls off its end): where a transform
    # refuses the returned value (grad of a possibly-None result), None when not converted
    loc: SourceLoc | None

    def __new__(cls, kind: str, writeback: tuple[str, ...] = (), tree: tuple | None = None,
                contiguous: tuple[str, ...] = (), loc: SourceLoc | None = None):
        obj = super().__new__(cls, kind)
        obj.writeback = writeback
        obj.tree = tree
        obj.contiguous = contiguous
        obj.loc = loc
        return obj


def _model_name(fn) -> str:
    """The graph's (and a single output's) name: the function's, ``lambda`` for a lambda."""
    return "lambda" if fn.__name__ == "<lambda>" else fn.__name__


def _result_tree(result: Any, python_flag=lambda v: None,
                 array_flag=lambda v: None) -> tuple[tuple, list]:
    """The shape of a returned value and its leaves (the values that become outputs).

    The shape is ``("leaf", i, python_scalar)`` (leaf ``i``), ``("const", v)`` (None, a Python
    number, which numpy returns as it is), ``("maybe", i, child)`` (None where the 0-d bool leaf
    ``i`` is False, else ``child``: a possibly-None number, graph/optional.py), ``("seq", i, items)`` (leaf ``i`` is a list built
    at run time, an ONNX sequence output; ``items``: "python" for Python numbers, "numpy" for
    numpy scalars, "arrays" for arrays, as numpy code's list holds them), ``("tuple" | "list",
    children)``, ``("dict", keys, children)`` (a dict with static str or int keys), or
    ``("pyleaf", i, j)``: leaf ``i``, a Python number where the 0-d bool leaf ``j`` is true
    (``s = 0.0`` before a loop that ran 0 times), else a numpy scalar; ``("aleaf", i, j)``:
    leaf ``i``, a 0-d array where the 0-d bool leaf ``j`` is true, else a numpy scalar.
    """
    leaves: list = []

    def walk(v: Any) -> tuple:
        if isinstance(v, dict):
            if not all(type(k) in (str, int) for k in v):
                raise ConversionError("a returned dict needs str or int keys (known at "
                                      "conversion time)")
            return ("dict", tuple(v), tuple(walk(i) for i in v.values()))
        if isinstance(v, (tuple, list)):
            return (type(v).__name__, tuple(walk(i) for i in v))
        if v is None or type(v) in (int, float, bool, complex):
            return ("const", v)
        if isinstance(v, Records):  # a list of tuples built at run time: zipped by the call
            # (a complex field is one packed sequence, as a returned complex list)
            return ("zip", tuple(walk(f) for f in v.fields))
        if isinstance(v, Maybe):  # a number that may be None: its flag, then the number
            leaves.append(v.has)
            return ("maybe", len(leaves) - 1, walk(v.value))
        leaves.append(v)
        if isinstance(v, (Seq, ComplexSeq)):  # (complex items: complex_lists.packed)
            items = "arrays" if v.shape else {True: "python", False: "numpy"}.get(v.weak, "mixed")
            return ("seq", len(leaves) - 1, items)
        flag = python_flag(v)
        if flag is not None:  # a Python number on some run-time paths (graph/path_weak.py)
            leaves.append(Array(flag, np.dtype(np.bool_), ()))
            return ("pyleaf", len(leaves) - 2, len(leaves) - 1)
        flag = array_flag(v)
        if flag is not None:  # a 0-d array on some run-time paths (graph/scalar_kinds.py)
            leaves.append(Array(flag, np.dtype(np.bool_), ()))
            return ("aleaf", len(leaves) - 2, len(leaves) - 1)
        # a Python scalar (weak) comes back as one: x.shape[0] is an int in numpy
        return ("leaf", len(leaves) - 1, isinstance(v, (Array, Complex)) and v.weak)

    return walk(result), leaves


def _fail_where_foreign(ctx: Lowering, fn, v: Any, loc) -> None:
    """A returned value that is a Python number of a kind its dtype cannot stand for on some
    paths (graph/path_weak.foreign_kind: the Python int 0 of ``sum()`` over an empty generator
    of floats) fails at run time on those paths (refused here where they are not known)."""
    entry = path_weak.foreign_kind(ctx, v)
    if entry is None:
        return
    where, flag, kind = entry
    python = {"b": "a Python bool", "i": "a Python int", "f": "a Python float"}[kind]
    text = (f"{fn.__qualname__} returns {python} on some paths ({where}) and "
            f"{path_weak.kind_word(v.dtype, False)} on others; a model output has one type")
    fix = "make it the same type on every path (e.g. a start value of the type the loop makes)"
    if flag is None or ctx.record_check is None:
        raise ConversionError(f"{text}: {fix}", loc)
    saved, ctx.loc = ctx.loc, loc or ctx.loc  # (the check's line: the return)
    try:
        ctx.record_check(ctx, Array(flag, np.dtype(np.bool_), ()), ("foreign_kind", id(flag)),
                         ExecutionError, f"{text}, and such a path ran: {fix}")
    finally:
        ctx.loc = saved


def _written_arguments(ctx: Lowering, order: list[str]) -> list[tuple[str, Array]]:
    """The array parameters whose memory the function wrote into, with their final values."""
    found = {b.param: value for b, value in ctx.aliases.memory.items()
             if b.param is not None and value is not b.initial}
    return [(name, found[name]) for name in order if name in found]


def _writeback_outputs(ctx: Lowering, written: list[tuple[str, Array]], taken: set[str]) -> list[Array]:
    outs = []
    for name, value in written:
        out = ctx.op("Identity", value)
        out.name = f"{name}_written" if f"{name}_written" not in taken else f"{name}_written_"
        out.type = ir.TensorType(dtypes.to_ir(value.dtype))
        out.shape = ir.Shape(list(value.shape))
        outs.append(Array(out, value.dtype, value.shape))
    return outs


def _version() -> str:
    from pyonnx.version import __version__
    return __version__


@functools.lru_cache(maxsize=256)  # trees are cached by prepare(); the walk costs ~90 µs
def _return_names(tree, count: int) -> list[str | None]:
    """Output names from the returned expressions (``return mean, std`` → mean, std)."""
    import ast

    returns = [n for n in ast.walk(tree) if isinstance(n, ast.Return) and n.value is not None]
    if len(returns) != 1:
        return [None] * count
    value = returns[0].value
    if isinstance(value, ast.Dict) and len(value.keys) == count and all(
            isinstance(k, ast.Constant) and isinstance(k.value, str) and k.value.isidentifier()
            for k in value.keys):
        return [k.value for k in value.keys]  # return {"mean": m, "std": s}: the keys
    elts = value.elts if isinstance(value, ast.Tuple) else [value]
    if len(elts) != count:
        return [None] * count
    return [_expr_name(e) for e in elts]


def _expr_name(e) -> str | None:
    """A name for a returned expression: the variable, or the function or method called
    (``logsumexp(x)`` → logsumexp, ``x.mean()`` → mean), or the attribute (``x.T`` → T)."""
    import ast

    if isinstance(e, ast.Name):
        return None if e.id.startswith("_pyonnx_") else e.id  # early_return's value
    if isinstance(e, ast.Call):
        return _expr_name(e.func)
    if isinstance(e, ast.Attribute):
        return e.attr
    return None


def _outputs(ctx: Lowering, fn, tree, result: Any,
             loc=None) -> tuple[list[Array], str, list[bool]]:
    # (a function that returns None and writes nothing returns None, as in Python)
    shape, items = _result_tree(result, lambda v: complex_boundary.python_flag(v)
                                if isinstance(v, Complex) else path_weak.python_flag(ctx, v),
                                lambda v: complex_boundary.array_flag(v)
                                if isinstance(v, Complex) else scalar_kinds.array_flag(ctx, v))
    for v in items:
        _fail_where_foreign(ctx, fn, v, loc)
        entry = path_weak.kind_entry(ctx, v)
        if entry is not None:
            kinds = {"b": "bool", "i": "int", "f": "float"}
            raise ConversionError(
                f"{fn.__qualname__} returns a Python {kinds[entry[2].kind]} on some paths and a "
                f"Python {kinds.get(v.dtype.kind, 'number')} on others ({entry[0]}); a model "
                "output has one type: make it the same on every path, e.g. float(...) on "
                "both", loc)
    if "'mixed'" in repr(shape):
        raise ConversionError(
            f"{fn.__qualname__} returns a list built at run time that holds Python numbers on "
            "some paths and numpy scalars on others; numpy code would return a mixed list, a "
            "model cannot: append one kind (int(v) or float(v) for Python numbers)", loc)
    structure: str = "tuple" if isinstance(result, tuple) else "single"
    if not (shape == ("leaf", 0, False) or shape[0] == "tuple" and shape[1] and all(
            c[0] == "leaf" and not c[2] for c in shape[1])):
        # Nested tuples, lists, None, Python numbers: the Python value is rebuilt from the
        # outputs by OutputStructure.tree (see call_path).
        structure = OutputStructure(structure, tree=shape)
        if not items:  # a model needs an output: one the tree does not read
            items = [np.zeros((), np.bool_)]
    arrays: list[Array] = []
    zero_d_arrays: list[bool] = []
    names = _return_names(tree, len(items))
    taken: set[str] = {v.name for v in ctx.initializers}
    for i, item in enumerate(items):
        if isinstance(item, ComplexSeq):  # one sequence of (..., 2) reals
            from pyonnx.frontend.lower.complex_lists import packed as packed_list
            seq = packed_list(ctx, item)
            arrays.append(_ComplexSeqOutput(seq.value, seq.dtype, seq.shape, item.dtype))
            zero_d_arrays.append(False)
            continue
        packed = complex_boundary.output_array(ctx, item)
        if packed is not None:  # a complex value: one real (..., 2) output
            value = ctx.op("Identity", packed[0])
            arrays.append(_ComplexOutput(value, packed[0].dtype, packed[0].shape, packed[1]))
            zero_d_arrays.append(complex_boundary.returned_as_array(fn, item, loc))
            continue
        if is_static(item):
            if isinstance(item, str) or callable(item):
                raise ConversionError(f"{fn.__qualname__} returns {item!r} (item {i}); only "
                                      "arrays, numbers, None and lists or tuples of them can "
                                      "be model outputs", loc)
            made_array = isinstance(item, np.ndarray)  # np.zeros(()) is returned as a 0-d array
            item = ctx.asarray(item)
            if made_array:
                scalar_kinds.mark_array0d(ctx, item)
        if isinstance(item, Seq):  # a list built at run time: a sequence output
            value = item.value
            if value.producer() is None or any(value is a.value for a in arrays):
                value = ctx.op("Identity", value)
            arrays.append(Seq(value, item.dtype, item.shape))
            zero_d_arrays.append(False)
            continue
        if not isinstance(item, Array):
            raise ConversionError(f"{fn.__qualname__} returns a {type(item).__name__}; only "
                                  "arrays, numbers, None and lists or tuples of them can be "
                                  "model outputs", loc)
        if id(item.value) in ctx.mixed_scalars:  # a Python number on one path only
            raise ctx.mixed_scalars[id(item.value)]
        if item.value in ctx.aliases.mixed0d and ctx.aliases.mixed0d[item.value] is None:
            # (a 0-d argument rebound on some paths only: fuzz seed 978620's family)
            raise ConversionError(
                f"{fn.__qualname__} returns a value that numpy makes a 0-d array on some paths "
                "of a run-time 'if' or loop (an argument, a view, np.asarray(...)) and a numpy "
                "scalar on others (the result of an operation); return np.asarray(v) for a "
                "0-d array on every path, or v[()] for a numpy scalar", loc)
        zero_d_arrays.append(scalar_kinds.is_array0d(ctx, item))  # numpy returns no scalar
        if item.weak:
            item = Array(item.value, item.dtype, item.shape)
        # A graph output must be produced by a node of this graph, once, under its own name.
        value = item.value
        if value.producer() is None or any(value is a.value for a in arrays):
            value = ctx.op("Identity", value)
        arrays.append(Array(value, item.dtype, item.shape))
    for i, (a, name) in enumerate(zip(arrays, names)):
        base = name or (_model_name(fn) if len(arrays) == 1 else f"output_{i}")
        # Internal values are named v<n>, v<n>_<i> and const_<n>: never reuse those shapes.
        if (base in taken or base in {p for p in inspect.signature(fn).parameters}
                or re.fullmatch(r"v\d+(_\d+)?|const_\d+", base)):
            base = f"{base}_out"
        while base in taken:
            base += "_"
        taken.add(base)
        a.value.name = base
        if isinstance(a, Seq):
            a.value.type = ir.SequenceType(ir.TensorType(dtypes.to_ir(a.dtype)))
            continue
        a.value.type = ir.TensorType(dtypes.to_ir(a.dtype))
        a.value.shape = ir.Shape([d if d is not None else None for d in a.shape])
    return arrays, structure, zero_d_arrays
