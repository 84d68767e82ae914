"""The lowering context: builds onnx-ir nodes with source locations for one conversion.

Every lowering function (statements, expressions, the numpy and indexing registries) receives a
:class:`Lowering` and uses it to emit nodes (:meth:`Lowering.op`), make constants
(:meth:`Lowering.const`), turn any value into an :class:`Array` (:meth:`Lowering.asarray`),
demand a conversion-time value (:meth:`Lowering.static`) and raise located errors
(:meth:`Lowering.error`).

Constants are initializers of the main graph (subgraphs capture them by name), deduplicated by
value. Node names carry the source line (``f_L12_Mul_3``), and each node's ``doc_string`` holds
``file:line: source`` so the runtime can name the Python line of a failing node without
importing the frontend.
"""

from __future__ import annotations

import contextlib
import contextvars
from collections.abc import Callable, Iterator, Sequence
from typing import Any

import numpy as np
import onnx_ir as ir

from pyonnx.errors import ConversionError
from pyonnx.frontend.graph import dtypes
from pyonnx.frontend.graph.nodes import _attributes, _memo_key
from pyonnx.frontend.graph.values import Array, Dim, Seq, is_static
from pyonnx.loc import SourceLoc

__all__ = ["Lowering", "NeedStatic", "NeedStaticShapes"]

# Constants up to this many elements are deduplicated by value.
_DEDUP_LIMIT = 4096

# Node doc strings by id(SourceLoc) (see Lowering.op); cleared when it reaches the limit.
_DOCS: dict[int, tuple[SourceLoc, str]] = {}
_DOCS_LIMIT = 8192

# A Python scalar's dtype when numpy converts it alone (NEP 50 defaults).
_SCALAR_DTYPE = {float: np.dtype(np.float64), int: np.dtype(np.int64), bool: np.dtype(np.bool_)}

# Pure, deterministic ops that lowering helpers emit again and again on the same inputs
# (``x.shape`` then ``np.mean`` then ``np.std`` each read the same dimension, count it and cast
# the count): :meth:`Lowering.op` returns the existing output instead of a duplicate node (fewer
# nodes make every later stage cheaper). Only ops whose attributes are ints: no NaN/-0.0 keys.
_MEMO_OPS = frozenset({"Shape", "Size", "Squeeze", "Unsqueeze", "Cast", "ReduceProd"})


class NeedStatic(Exception):
    """A Python-scalar argument's value is needed at conversion time.

    The API catches this, makes the named arguments part of the signature (their values become
    static) and converts again, so ``f(x, axis)`` works with ``axis`` a plain argument.
    """

    def __init__(self, argnames: frozenset[str]):
        super().__init__(", ".join(sorted(argnames)))
        self.argnames = argnames


# Set by the API while it converts for export with symbolic dimensions that static shapes cannot
# replace (``to_onnx`` with a spec naming "N"): ``np.squeeze`` without axis then keeps those
# dimensions and the model checks at run time that none is 1 (its rank is fixed when converting),
# instead of asking for static shapes (NeedStaticShapes ``checkable``).
RANK_CHECKS: contextvars.ContextVar[bool] = contextvars.ContextVar("pyonnx_rank_checks",
                                                                   default=False)


class NeedStaticShapes(Exception):
    """The conversion needs the input arrays' shapes (``np.squeeze(x)`` without ``axis``: the
    result's rank depends on which dimensions are 1).

    The API catches this, makes every array argument's shape part of the signature (one model
    per input shape, as ``static_shapes=True`` does) and converts again. Where that cannot help
    (the shapes are already static, a spec names its dimensions), ``error`` is raised instead,
    unless ``checkable``: the lowering can then keep the symbolic dimensions and check them at
    run time (:data:`RANK_CHECKS`; the API converts again with it set).
    """

    def __init__(self, error: ConversionError, checkable: bool = False):
        super().__init__(str(error))
        self.error = error
        self.checkable = checkable


class Lowering:
    """State of one conversion: the graph under construction and where in the source we are.

    Attributes:
        opset: the default-domain opset version to emit (a lowering that needs a newer op
            raises it: np.signbit's BitCast needs 26).
        loc: the source location of the construct being lowered; set by the statement and
            expression visitors before they emit nodes.
        function_name: name of the converted function, the prefix of node names.
        initializers: constants of the main graph.
        aliases: the numpy-memory state (``lower.aliases.AliasState``), read and written by
            statement lowering only.
        lookup: the numpy registry's ``lookup`` (``asarray`` stacks nested lists with the
            ``np.array`` entry). Both are passed in by ``frontend/convert.py`` because they are
            built on this module, not under it.
    """

    def __init__(self, function_name: str, opset: int, *, aliases: Any,
                 lookup: Callable[[Any], Any]):
        self.opset = opset
        self.function_name = function_name
        self.loc: SourceLoc | None = None
        self.initializers: list[ir.Value] = []
        self._scopes: list[list[ir.Node]] = [[]]
        # One memo per scope (see _MEMO_OPS): a node made inside a subgraph is not visible
        # outside it, so its entries go with the scope.
        self._memos: list[dict[tuple, Any]] = [{}]
        self._const_cache: dict[tuple, ir.Value] = {}
        self._scalar_cache: dict[tuple, ir.Value] = {}
        self._counter = 0
        # value → names of the Python-scalar arguments it was computed from (see NeedStatic).
        self._deps: dict[ir.Value, frozenset[str]] = {}
        self.custom_domains: dict[str, int] = {}
        # numpy memory: buffers, views and aliases (see aliases.py)
        self.aliases = aliases
        self.lookup = lookup
        # The FunctionLowerings being run, innermost last (a write rebinds names in all).
        self.frames: list[Any] = []
        # Per Loop body being lowered (innermost last): the buffers it carries, and the ids of
        # the Arrays its state inputs bind (memory that persists across iterations).
        self.loop_buffers: list[tuple[set[Any], set[int]]] = []
        # id of each list passed as an argument → its parameter name: numpy code that appends
        # to it changes the caller's list on every call, which a model cannot do.
        self.argument_lists: dict[int, str] = {}
        # Some parameter has a symbolic dimension (see NeedStaticShapes); set by convert.py.
        self.symbolic_params = False
        # Symbolic dimensions are kept and checked at run time where it matters (RANK_CHECKS).
        self.rank_checks = RANK_CHECKS.get()
        # ids of the ir.Values joined from a Python scalar on one path and a numpy value on the
        # other, with the error to raise if one is returned (numpy's type depends on the path).
        self.mixed_scalars: dict[int, Exception] = {}
        # ids of the 0-d ir.Values that are a Python number on some run-time paths and a numpy
        # value on others (lower/path_weak.py), with where they were joined.
        self.path_weak: dict[int, str] = {}
        # Records a run-time check that is a model output (lower/checks.record_where, set by
        # convert.py: the builder layer does not import statement lowering): called as
        # ``record_check(ctx, bad, key, exception, message)``; None: no check outputs here.
        self.record_check: Any = None
        # numpy function calls being lowered (lower/calls.py): their results are numpy scalars
        # even of Python numbers (graph/path_weak.check derives no Python number inside them)
        self.numpy_call_depth = 0

    # ------------------------------------------------------------------ nodes
    @property
    def nodes(self) -> list[ir.Node]:
        """The nodes of the (sub)graph being built."""
        return self._scopes[-1]

    @contextlib.contextmanager
    def subgraph(self, nodes: list[ir.Node] | None = None) -> Iterator[list[ir.Node]]:
        """Collects the nodes emitted inside the block into a fresh list (an If/Loop body), or
        appends them to ``nodes``, a subgraph's list made earlier."""
        self._scopes.append([] if nodes is None else nodes)
        self._memos.append({})
        try:
            yield self._scopes[-1]
        finally:
            self._scopes.pop()
            self._memos.pop()

    def op(self, op_type: str, *inputs: ir.Value | Array | None, domain: str = "",
           outputs: int = 1, **attributes: Any) -> Any:
        """Emits one node into the current (sub)graph.

        Args:
            op_type: the ONNX operator.
            inputs: ``ir.Value``, :class:`Array` (its value is used) or None for an omitted
                optional input.
            domain: operator domain ("" is the ONNX default domain).
            outputs: number of outputs.
            attributes: node attributes (Python values; None values are dropped).

        Returns:
            The output ``ir.Value``, or a tuple of them when ``outputs != 1``.
        """
        values = [i.value if isinstance(i, (Array, Seq)) else i for i in inputs]
        if op_type == "Reshape" and "allowzero" not in attributes and len(values) > 1:
            target = values[1].const_value if values[1] is not None else None
            if target is None or -1 not in target.numpy():
                # numpy has no "0 copies the input's dim": a 0 is an empty dimension (a run-time
                # shape of (3, 0) read as "copy" fails or reshapes wrongly).
                attributes["allowzero"] = 1
        key = None
        if op_type in _MEMO_OPS and not domain:
            key = _memo_key(op_type, values, outputs, attributes)
            if key is not None:
                for memo in reversed(self._memos):
                    hit = memo.get(key)
                    if hit is not None:
                        return hit
        attrs = _attributes(attributes) if attributes else ()
        self._counter += 1
        n = self._counter
        loc = self.loc
        node = ir.Node(domain, op_type, values, attrs, num_outputs=outputs,
                       name=f"{self.function_name}_L{loc.lineno if loc else 0}_{op_type}_{n}")
        # Unique names now: onnx-ir's automatic val_N names restart in every subgraph, and two
        # Loop bodies could then define the same name (onnxruntime refuses such a model).
        outs = node.outputs
        if outputs == 1:
            outs[0].name = f"v{n}"
        else:
            for i, out in enumerate(outs):
                out.name = f"v{n}_{i}"
        if loc is not None:
            node.meta["pyonnx.loc"] = loc
            # Keyed by identity: hashing the frozen dataclass hashes all its fields each time,
            # and one SourceLoc object stands for each construct (cached on its AST node, so
            # the same object comes back in every conversion of the function: the cache is
            # module-wide; the entry holds the loc, so its id cannot be reused meanwhile).
            cached = _DOCS.get(id(loc))
            if cached is None or cached[0] is not loc:
                if len(_DOCS) >= _DOCS_LIMIT:
                    _DOCS.clear()
                cached = _DOCS[id(loc)] = (loc, f"{loc}: {loc.source_line.strip()}")
            node.doc_string = cached[1]
        self._scopes[-1].append(node)
        deps_of = self._deps
        if deps_of:
            found = [d for v in values if v is not None and (d := deps_of.get(v))]
            if found:
                deps = found[0].union(*found[1:]) if len(found) > 1 else found[0]
                for out in outs:
                    deps_of[out] = deps
        result = outs[0] if outputs == 1 else tuple(outs)
        if key is not None:
            self._memos[-1][key] = result
        return result

    def data_dependent(self, value: ir.Value) -> bool:
        """Whether ``value`` is computed from array inputs or loop values, not only from
        constants and Python-scalar arguments (then making those static could not fold it)."""
        stack, seen = [value], set()
        while stack:
            v = stack.pop()
            if id(v) in seen:
                continue
            seen.add(id(v))
            node = v.producer()
            if node is None:
                if v.const_value is None and v not in self._deps:
                    return True
                continue
            if any(a.type == ir.AttributeType.GRAPH for a in node.attributes.values()):
                return True
            stack.extend(i for i in node.inputs if i is not None)
        return False

    def fresh_name(self, hint: str) -> str:
        """A value name unique in the model (subgraph inputs are named, not made by nodes)."""
        self._counter += 1
        return f"{hint}_{self._counter}"

    def mark_argument_scalar(self, value: ir.Value, argname: str) -> None:
        """Records that ``value`` is the Python-scalar argument ``argname`` (see NeedStatic)."""
        self._deps[value] = frozenset([argname])

    # ------------------------------------------------------------ constants
    def const(self, value: Any, dtype: Any = None) -> ir.Value:
        """A constant as a main-graph initializer, converted to ``dtype`` as numpy would.

        Raises:
            ConversionError: a Python int does not fit ``dtype`` (numpy 2 raises OverflowError).
        """
        # Python scalars in their own default dtype (``x * 2.0``, ``n + 1``) skip numpy: such a
        # conversion never warns, and a failing one (an int beyond int64) is never cached.
        t = type(value)
        skey = None
        if (t is float or t is int or t is bool) and (dtype is None or dtype == _SCALAR_DTYPE[t]):
            # repr keeps 0.0 and -0.0 apart (they compare and hash equal).
            skey = (t, repr(value) if t is float else value)
            hit = self._scalar_cache.get(skey)
            if hit is not None:
                return hit
        try:
            arr = np.asarray(value, dtype=dtype) if dtype is not None else np.asarray(value)
        except OverflowError as e:
            raise self.error(f"{e} (numpy raises OverflowError here)") from None
        if skey is not None:
            v = self._const_of(arr)
            self._scalar_cache[skey] = v
            return v
        return self._const_of(arr, value)

    def _const_of(self, arr: np.ndarray, value: Any = None) -> ir.Value:
        if arr.dtype.kind in "OUS":
            raise self.error(f"cannot use {value!r} as an array value")
        key = None
        if arr.size <= _DEDUP_LIMIT:
            key = (arr.dtype.str, arr.shape, arr.tobytes())
            hit = self._const_cache.get(key)
            if hit is not None:
                return hit
        name = f"const_{len(self.initializers)}"
        # (np.ascontiguousarray would turn a 0-d array into a 1-d one.)
        # ir.Tensor, not ir.tensor: the latter's Protocol isinstance checks cost ~25 µs a call.
        tensor = ir.Tensor(np.array(arr, order="C", copy=True), name=name)
        v = ir.Value(name=name, shape=ir.Shape(arr.shape), type=ir.TensorType(tensor.dtype),
                     const_value=tensor)
        self.initializers.append(v)
        if key is not None:
            self._const_cache[key] = v
        return v

    def const_array(self, value: Any, dtype: Any = None, weak: bool = False) -> Array:
        """:meth:`const` wrapped as an :class:`Array` with its static shape."""
        arr = np.asarray(value, dtype=dtype) if dtype is not None else np.asarray(value)
        return Array(self.const(arr), arr.dtype, arr.shape, weak)

    # ---------------------------------------------------------------- values
    def asarray(self, value: Any, dtype: Any = None) -> Array:
        """Any frontend value as an Array: Arrays pass through (cast to ``dtype`` if given);
        Python scalars become weak 0-d constants; nested lists and tuples are stacked as
        ``np.array`` does.
        """
        if isinstance(value, Array):
            return self.cast(value, dtype) if dtype is not None else value
        if isinstance(value, Seq):  # np.array(lst) of a list built at run time
            from pyonnx.frontend.graph import sequences
            if dtype is not None and not value.shape:  # exact when empty too: shape (0,)
                return self.cast(sequences.stacked(self, value, "np.array(lst)"), dtype)
            arr = sequences.to_array(self, value)
            return self.cast(arr, dtype) if dtype is not None else arr
        if isinstance(value, (list, tuple)) and not is_static(value):
            return self.lookup(np.array).fn(self, value, dtype=dtype)
        as_array = getattr(type(value), "__pyonnx_array__", None)
        if as_array is not None:  # a value object numpy converts itself (np.poly1d's coeffs)
            return self.asarray(as_array(value), dtype)
        if isinstance(value, bool | int | float) and not isinstance(value, np.generic):
            dt = np.dtype(dtype) if dtype is not None else dtypes.default_dtype_of_scalar(value)
            return Array(self.const(value, dt), dt, (), weak=dtype is None)
        if value is None or isinstance(value, (str, slice, type(Ellipsis))) or callable(value):
            raise self.error(f"cannot use {_describe(value)} as an array")
        try:
            arr = np.asarray(value, dtype=dtype)
        except (TypeError, ValueError) as e:
            raise self.error(f"cannot use {_describe(value)} as an array: {e}") from None
        if arr.dtype not in dtypes.SUPPORTED_DTYPES:
            raise self.error(f"arrays of dtype {arr.dtype} are not supported")
        return Array(self.const(arr), arr.dtype, arr.shape)

    def cast(self, array: Array, dtype: Any) -> Array:
        """``array.astype(dtype)`` (numpy's unsafe casting, as ``astype`` does)."""
        if dtype is not array.dtype:
            dtype = np.dtype(dtype)
        if array.dtype == dtype:
            return array if not array.weak else Array(array.value, dtype, array.shape)
        if dtype not in dtypes.SUPPORTED_DTYPES:
            raise self.error(f"dtype {dtype} is not supported")
        if array.value.const_value is not None and array.ndim == 0:
            # Casting a scalar constant is cheaper folded here than as a node.
            raw = array.value.const_value.numpy()
            with np.errstate(all="ignore"):
                return Array(self.const(raw.astype(dtype)), dtype, array.shape)
        out = self.op("Cast", array, to=dtypes.to_ir(dtype))
        return Array(out, dtype, array.shape)

    def static(self, value: Any, what: str) -> Any:
        """The conversion-time value of ``value``.

        Args:
            value: a frontend value.
            what: what the value is used as, for the error ("axis", "the shape").

        Raises:
            NeedStatic: it is computed from Python-scalar arguments (the API then converts again
                with their values fixed).
            ConversionError: it depends on array data.
        """
        if is_static(value):
            return value
        if isinstance(value, Array):
            deps = self._deps.get(value.value)
            if deps:
                raise NeedStatic(deps)
            const = value.value.const_value
            if const is not None:
                arr = const.numpy()
                return arr[()] if arr.ndim == 0 else arr
        if isinstance(value, (list, tuple)):
            return type(value)(self.static(v, what) for v in value)
        if isinstance(value, slice):
            return slice(self.static(value.start, what), self.static(value.stop, what),
                         self.static(value.step, what))
        raise self.error(
            f"{what} must be known at conversion time, but here it depends on array values; "
            "pass it as a Python value (a literal, a module constant, or an argument)")

    def new_array(self, value: ir.Value, dtype: Any, shape: Sequence[Dim], weak: bool = False) -> Array:
        return Array(value, np.dtype(dtype), tuple(shape), weak)

    # ---------------------------------------------------------------- shapes
    def shape_of(self, array: Array) -> ir.Value:
        """The int64 shape vector of ``array``; a constant when every dimension is known."""
        if all(d is not None for d in array.shape):
            return self.const(np.array(array.shape, dtype=np.int64))
        return self.op("Shape", array)

    def dim(self, array: Array, axis: int) -> int | Array:
        """Dimension ``axis`` of ``array``: an int when known, else a weak int64 0-d Array."""
        d = array.shape[axis]
        if d is not None:
            return d
        axis = axis % array.ndim
        out = self.op("Shape", array, start=axis, end=axis + 1)
        out = self.op("Squeeze", out, self.const(np.array([0], dtype=np.int64)))
        return Array(out, np.dtype(np.int64), (), weak=True)

    # ---------------------------------------------------------------- errors
    def error(self, message: str, loc: SourceLoc | None = None) -> ConversionError:
        """A ConversionError at ``loc`` (default: the construct being lowered)."""
        return ConversionError(message, loc or self.loc)


def _describe(value: Any) -> str:
    if value is None:
        return "None"
    if isinstance(value, str):
        return f"the string {value!r}"
    name = getattr(value, "__qualname__", None) or getattr(value, "__name__", None)
    if name:
        return f"{type(value).__name__} {name!r}"
    return f"a value of type {type(value).__name__}"
