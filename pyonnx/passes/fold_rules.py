"""Partial evaluators for :class:`~pyonnx.passes.fold_constants.FoldConstantsPass`, one per op.

Each rule is registered with ``@register("OpType", ...)`` for the default ONNX domain and is
called as ``rule(node, f)`` where ``f`` is the folding state (:class:`Inputs` protocol below:
``f.const(i)``, ``f.consts()``, ``f.limit``...). It returns ``None`` (nothing to do) or one entry
per node output: a numpy array (the output is that constant), an ``ir.Value`` (the output *is*
that value, same dtype and shape) or ``None`` (leave that output alone). A rule may instead
rewire the node's inputs in place (chains such as ``Reshape(Reshape(x))``) and call
``f.rewired(old_input)``.

Every numpy evaluation follows ONNX semantics exactly and keeps the ONNX output dtype (integer
``Div`` truncates toward zero, ``Mod`` follows ``fmod``); where ONNX leaves a result undefined
or a runtime error would occur (integer division by zero, float → int casts out of range, an
out-of-range ``Gather`` index) the rule declines, so the model keeps failing or behaving as it
would at run time. Rules check output sizes against ``f.limit`` *before* allocating.

Rules (op: what is folded):

- Identity: always removed (the output becomes its input; graph outputs are kept by the pass).
- Constant: becomes a main-graph initializer.
- Cast: constants; a cast to the input's own (known) dtype; ``Cast(Cast(x, wider), T)`` where
  the inner cast is exact for every value → ``Cast(x, T)`` (or ``x``).
- Shape, Size: of constants and of any value whose shape annotation has the needed dims fixed.
- Add, Sub, Mul, Div, Mod, Neg, Abs, Equal, Less, LessOrEqual, Greater, GreaterOrEqual, Not,
  And, Or, Xor, Where: constants (numpy with ONNX's integer rules); ``x * 1``, ``x / 1``,
  ``x - 0`` and integer ``x + 0`` with a 0-d constant → ``x``.
- Gather, Slice, Concat, Transpose, Expand, Range (integers), ConstantOfShape: constants.
- Reshape: constants; ``Reshape(Reshape(x, a), b)`` → ``Reshape(x, b)``; a reshape to the
  input's own static shape → the input.
- Unsqueeze, Squeeze: constants; ``Squeeze(Unsqueeze(x, axes), axes)`` → ``x``.
- Transpose: ``Transpose(Transpose(x, p), q)`` → one Transpose, or ``x`` when they cancel.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Sequence
from typing import Any, Protocol

import numpy as np
import onnx_ir as ir

__all__ = ["RULES", "PARTIAL", "register", "const_of", "Inputs", "Result"]

Result = Sequence[Any] | None


class Inputs(Protocol):
    """What a rule sees of the folding state (implemented by the pass)."""

    limit: int  # the largest output (in elements) a rule may create

    def const(self, index: int) -> np.ndarray | None:
        """The constant value of input ``index`` (None: absent, not constant or too large)."""

    def consts(self) -> list[np.ndarray | None] | None:
        """All present inputs' values (None for omitted optional inputs), or None if any present
        input is not constant."""

    def rewired(self, detached: ir.Value) -> None:
        """Records that the rule changed the node's inputs in place, no longer using
        ``detached`` (whose producer is removed if nothing else uses it)."""


Rule = Callable[[ir.Node, Inputs], Result]
RULES: dict[str, Rule] = {}
# Ops whose rule may fire when some input is not constant; the others are only tried when
# every input is (which keeps the pass at about a microsecond per ordinary node).
PARTIAL: set[str] = set()


def register(*op_types: str, partial: bool = False) -> Callable[[Rule], Rule]:
    """Registers a rule for default-domain ops.

    Args:
        op_types: the ops it evaluates.
        partial: the rule also looks at nodes with non-constant inputs (shapes, chains).
    """
    def decorator(fn: Rule) -> Rule:
        for op in op_types:
            RULES[op] = fn
            if partial:
                PARTIAL.add(op)
        return fn
    return decorator


# ---------------------------------------------------------------------------- helpers
def _attr(node: ir.Node, name: str, default: Any = None) -> Any:
    attr = node.attributes.get(name)
    if attr is None or attr.is_ref():
        return default
    value = attr.value
    if isinstance(value, Sequence) and not isinstance(value, str):
        return list(value)
    return value


def _ints(arr: np.ndarray | None) -> list[int] | None:
    if arr is None or arr.dtype.kind not in "iu" or arr.ndim > 1:
        return None
    return [int(v) for v in arr.reshape(-1)]


def _size(shape: Sequence[int]) -> int:
    return math.prod(shape)


def _static_dims(value: ir.Value | None) -> list[int | None] | None:
    """The dims of ``value``'s shape (int when fixed, None when not), or None if rank unknown."""
    if value is None:
        return None
    if value.const_value is not None:
        return list(value.const_value.shape.numpy())
    shape = value.shape
    if shape is None:
        return None
    return [d if isinstance(d, int) else None for d in shape.dims]


def const_of(value: ir.Value | None) -> np.ndarray | None:
    """The constant value of ``value``, or None (absent, computed, or an overridable input)."""
    if value is None or value.const_value is None or value.is_graph_input():
        return None
    return value.const_value.numpy()


def _producer(value: ir.Value | None, op_type: str) -> ir.Node | None:
    """The producer of ``value`` if it is a default-domain ``op_type`` node."""
    if value is None:
        return None
    node = value.producer()
    if node is None or node.op_type != op_type or node.domain not in ("", "ai.onnx"):
        return None
    return node


def _normalize_axes(axes: list[int], rank: int) -> list[int] | None:
    out = [a + rank if a < 0 else a for a in axes]
    if any(not 0 <= a < rank for a in out) or len(set(out)) != len(out):
        return None
    return out


# ------------------------------------------------------------------ identity & constants
@register("Identity", partial=True)
def identity(node: ir.Node, f: Inputs) -> Result:
    return [node.inputs[0]] if node.inputs and node.inputs[0] is not None else None


@register("Constant")
def constant(node: ir.Node, f: Inputs) -> Result:
    """A Constant node becomes an initializer (pyonnx keeps constants as initializers)."""
    if len(node.attributes) != 1 or node.outputs[0].is_graph_output():
        return None
    name, attr = next(iter(node.attributes.items()))
    if attr.is_ref():
        return None
    if name == "value":
        return [attr.as_tensor().numpy()]
    if name in ("value_int", "value_ints"):
        return [np.array(attr.value, dtype=np.int64)]
    if name in ("value_float", "value_floats"):
        return [np.array(attr.value, dtype=np.float32)]
    return None


# --------------------------------------------------------------------------------- Cast
_INT_BOUNDS = {np.dtype(t): (np.iinfo(t).min, np.iinfo(t).max + 1)
               for t in (np.int8, np.int16, np.int32, np.int64, np.uint8, np.uint16, np.uint32,
                         np.uint64)}
_FOLDABLE_DTYPES = frozenset(np.dtype(t) for t in (
    np.bool_, np.int8, np.int16, np.int32, np.int64, np.uint8, np.uint16, np.uint32, np.uint64,
    np.float16, np.float32, np.float64))


def _exact_cast(src: np.dtype, dst: np.dtype) -> bool:
    """Whether every ``src`` value converts to ``dst`` exactly (so a later cast sees it intact)."""
    if src == dst or src.kind == "b":
        return True
    if dst.kind == "f":
        if src.kind == "f":
            return dst.itemsize >= src.itemsize
        # ints fit when their bits fit the significand (11, 24, 53 bits)
        digits = {2: 11, 4: 24, 8: 53}[dst.itemsize]
        return src.itemsize * 8 - (src.kind == "i") <= digits
    if dst.kind == "i" and src.kind in "iu":
        return dst.itemsize > src.itemsize or (src.kind == "i" and dst.itemsize == src.itemsize)
    if dst.kind == "u" and src.kind == "u":
        return dst.itemsize >= src.itemsize
    return False


def _cast_value(arr: np.ndarray, dst: np.dtype) -> np.ndarray | None:
    if arr.dtype.kind == "f" and dst.kind in "iu":
        # ONNX leaves NaN, inf and out-of-range float → int undefined: keep the runtime's answer.
        lo, hi = _INT_BOUNDS[dst]
        t = np.trunc(arr.astype(np.float64))
        if not np.all(np.isfinite(t) & (t >= lo) & (t < hi)):
            return None
    with np.errstate(all="ignore"):
        return arr.astype(dst)


def _dtype_of_attr(cast_node: ir.Node) -> np.dtype | None:
    to = _attr(cast_node, "to")
    if to is None:
        return None
    try:
        return np.dtype(ir.DataType(to).numpy())
    except (TypeError, ValueError):
        return None


def _dtype_of(value: ir.Value) -> np.dtype | None:
    """The element dtype of ``value``: annotated, or the ``to`` of the Cast producing it."""
    if value.dtype is not None:
        try:
            return np.dtype(value.dtype.numpy())
        except (TypeError, ValueError):
            return None
    producer = _producer(value, "Cast")
    return _dtype_of_attr(producer) if producer is not None else None


@register("Cast", partial=True)
def cast(node: ir.Node, f: Inputs) -> Result:
    x = node.inputs[0] if node.inputs else None
    arr = f.const(0)
    inner = _producer(x, "Cast") if arr is None else None
    if arr is None and inner is None and (x is None or x.dtype is None):
        return None  # the common case, decided without reading attributes
    dst = _dtype_of_attr(node)
    if dst is None or dst not in _FOLDABLE_DTYPES:
        return None
    if arr is not None:
        if arr.dtype not in _FOLDABLE_DTYPES:
            return None
        out = _cast_value(arr, dst)
        return None if out is None else [out]
    assert x is not None
    if inner is not None and inner.inputs[0] is not None:
        src, mid = _dtype_of(inner.inputs[0]), _dtype_of(x)
        # Cast(Cast(x, mid), dst) == Cast(x, dst) when every x value survives the first cast;
        # except float mid → narrower int dst, undefined in ONNX for values out of range where
        # the direct int → int cast wraps.
        if src is not None and mid is not None and src in _FOLDABLE_DTYPES \
                and mid in _FOLDABLE_DTYPES and _exact_cast(src, mid) \
                and not (mid.kind == "f" and dst.kind in "iu" and not _exact_cast(src, dst)):
            source = inner.inputs[0]
            node.replace_input_with(0, source)
            f.rewired(x)
            x = source
    src = _dtype_of(x)
    # (np.dtype(...) == None is True: numpy reads None as float64.)
    if src is not None and src == dst:
        return [x]
    return None


# ------------------------------------------------------------------------ Shape & Size
@register("Shape", partial=True)
def shape(node: ir.Node, f: Inputs) -> Result:
    x = node.inputs[0]
    if x is None or x.const_value is None and (
            x.shape is None or not any(isinstance(d, int) for d in x.shape.dims)):
        return None  # the common case: no dim is fixed
    dims = _static_dims(x)
    if dims is None:
        return None
    start = _attr(node, "start", 0)
    end = _attr(node, "end", None)
    part = dims[start:end]  # ONNX clamps start/end exactly as Python slicing does
    if any(d is None for d in part):
        return None
    return [np.array(part, dtype=np.int64)]


@register("Size", partial=True)
def size(node: ir.Node, f: Inputs) -> Result:
    dims = _static_dims(node.inputs[0])
    if dims is None or any(d is None for d in dims):
        return None
    return [np.array(_size(dims), dtype=np.int64)]  # type: ignore[arg-type]


# ------------------------------------------------------------------- elementwise numpy
def _broadcast_ok(f: Inputs, *arrays: np.ndarray) -> bool:
    try:
        shape = np.broadcast_shapes(*(a.shape for a in arrays))
    except ValueError:
        return False
    return _size(shape) <= f.limit


def _binary(fn: Callable[[np.ndarray, np.ndarray], np.ndarray], out_bool: bool = False,
            kinds: str = "biuf") -> Rule:
    def rule(node: ir.Node, f: Inputs) -> Result:
        args = f.consts()
        if args is None or len(args) != 2 or args[0] is None or args[1] is None:
            return None
        a, b = args
        if a.dtype != b.dtype or a.dtype.kind not in kinds or not _broadcast_ok(f, a, b):
            return None
        with np.errstate(all="ignore"):  # integers wrap, floats give inf/nan as IEEE does
            out = np.asarray(fn(a, b))
        return [out.astype(np.bool_ if out_bool else a.dtype, copy=False)]
    return rule


# Which input may be a neutral constant, its value, and whether only integers are exact
# (x + 0.0 turns -0.0 into +0.0; x - 0.0, x * 1.0 and x / 1.0 are exact for every float).
_NEUTRAL = {"Add": ((0, 1), 0, "iu"), "Sub": ((1,), 0, "iuf"), "Mul": ((0, 1), 1, "iuf"),
            "Div": ((1,), 1, "iuf")}


def _drop_neutral(node: ir.Node) -> Result:
    """``x + 0``, ``x - 0``, ``x * 1``, ``x / 1`` with a 0-d constant → ``x`` (a 0-d operand
    cannot change the other's shape, and ONNX makes both operands one dtype)."""
    inputs = node.inputs
    if len(inputs) != 2 or inputs[0] is None or inputs[1] is None:
        return None
    positions, neutral, kinds = _NEUTRAL[node.op_type]
    for i in positions:
        c = inputs[i].const_value
        if c is None or c.size != 1 or len(c.shape) != 0 or inputs[i].is_graph_input():
            continue
        arr = c.numpy()
        if arr.dtype.kind in kinds and arr == neutral and not np.signbit(arr):
            return [inputs[1 - i]]
    return None


def _arithmetic(fn: Callable[[np.ndarray, np.ndarray], np.ndarray]) -> Rule:
    fold = _binary(fn, kinds="iuf")

    def rule(node: ir.Node, f: Inputs) -> Result:
        inputs = node.inputs
        if len(inputs) != 2 or inputs[0] is None or inputs[1] is None:
            return None
        a, b = inputs[0].const_value, inputs[1].const_value
        if a is None and b is None:
            return None  # the common case, decided in a few attribute reads
        if a is not None and b is not None:
            return fold(node, f)
        return _drop_neutral(node)
    return rule


for _op, _fn in [("Add", np.add), ("Sub", np.subtract), ("Mul", np.multiply)]:
    register(_op, partial=True)(_arithmetic(_fn))
for _op, _fn in [("Equal", np.equal), ("Less", np.less), ("LessOrEqual", np.less_equal),
                 ("Greater", np.greater), ("GreaterOrEqual", np.greater_equal)]:
    register(_op)(_binary(_fn, out_bool=True))
for _op, _fn in [("And", np.logical_and), ("Or", np.logical_or), ("Xor", np.logical_xor)]:
    register(_op)(_binary(_fn, out_bool=True, kinds="b"))


def _int_division_ok(a: np.ndarray, b: np.ndarray) -> bool:
    """No division by zero and no ``INT_MIN / -1`` (both fault at run time in onnxruntime)."""
    if np.any(b == 0):
        return False
    if a.dtype.kind == "i":
        lo = np.iinfo(a.dtype).min
        if np.any((a == lo) & (b == -1)):
            return False
    return True


@register("Div", partial=True)
def div(node: ir.Node, f: Inputs) -> Result:
    inputs = node.inputs
    if len(inputs) != 2 or inputs[1] is None or inputs[1].const_value is None:
        return None  # the common case: a computed divisor
    args = f.consts()
    if args is None or len(args) != 2 or args[0] is None or args[1] is None:
        return _drop_neutral(node)
    a, b = args
    if a.dtype != b.dtype or not _broadcast_ok(f, a, b):
        return None
    if a.dtype.kind == "f":
        with np.errstate(all="ignore"):
            return [np.asarray(np.true_divide(a, b)).astype(a.dtype, copy=False)]
    if a.dtype.kind not in "iu" or not _int_division_ok(a, b):
        return None
    # ONNX integer Div truncates toward zero (C semantics); numpy's // floors.
    q = np.floor_divide(a, b)
    if a.dtype.kind == "i":
        r = a - q * b
        q = q + ((r != 0) & ((a < 0) != (b < 0))).astype(a.dtype)
    return [np.asarray(q, dtype=a.dtype)]


@register("Mod")
def mod(node: ir.Node, f: Inputs) -> Result:
    args = f.consts()
    if args is None or len(args) != 2 or args[0] is None or args[1] is None:
        return None
    a, b = args
    if a.dtype != b.dtype or not _broadcast_ok(f, a, b):
        return None
    fmod = _attr(node, "fmod", 0)
    if a.dtype.kind == "f":
        if not fmod:  # ONNX requires fmod=1 for floats
            return None
        with np.errstate(all="ignore"):
            return [np.asarray(np.fmod(a, b)).astype(a.dtype, copy=False)]
    if a.dtype.kind not in "iu" or not _int_division_ok(a, b):
        return None
    # fmod=0: the result has the divisor's sign (numpy's %); fmod=1: the dividend's (C's %).
    out = np.fmod(a, b) if fmod else np.mod(a, b)
    return [np.asarray(out, dtype=a.dtype)]


def _unary(fn: Callable[[np.ndarray], np.ndarray], kinds: str) -> Rule:
    def rule(node: ir.Node, f: Inputs) -> Result:
        a = f.const(0)
        if a is None or a.dtype.kind not in kinds:
            return None
        with np.errstate(all="ignore"):
            return [np.asarray(fn(a)).astype(a.dtype, copy=False)]
    return rule


register("Neg")(_unary(np.negative, "if"))  # ONNX Neg is defined for signed types only
register("Abs")(_unary(np.abs, "iuf"))
register("Not")(_unary(np.logical_not, "b"))


@register("Where")
def where(node: ir.Node, f: Inputs) -> Result:
    args = f.consts()
    if args is None or len(args) != 3 or any(a is None for a in args):
        return None
    c, x, y = args
    if c.dtype != np.bool_ or x.dtype != y.dtype or not _broadcast_ok(f, c, x, y):
        return None
    return [np.where(c, x, y).astype(x.dtype, copy=False)]


# -------------------------------------------------------------------- data movement
@register("Gather")
def gather(node: ir.Node, f: Inputs) -> Result:
    data, idx = f.const(0), f.const(1)
    if data is None or idx is None or idx.dtype.kind not in "iu" or data.ndim == 0:
        return None
    axis = _attr(node, "axis", 0)
    if not -data.ndim <= axis < data.ndim:
        return None
    axis %= data.ndim
    dim = data.shape[axis]
    idx = idx.astype(np.int64)
    if np.any((idx < -dim) | (idx >= dim)):
        return None  # out of range: an error at run time, keep it there
    if _size(data.shape[:axis] + idx.shape + data.shape[axis + 1:]) > f.limit:
        return None
    return [np.take(data, np.where(idx < 0, idx + dim, idx), axis=axis)]


@register("Slice")
def slice_(node: ir.Node, f: Inputs) -> Result:
    args = f.consts()
    if args is None or len(args) < 3 or args[0] is None:
        return None
    data = args[0]
    starts, ends = _ints(args[1]), _ints(args[2])
    axes = _ints(args[3]) if len(args) > 3 and args[3] is not None else None
    steps = _ints(args[4]) if len(args) > 4 and args[4] is not None else None
    if starts is None or ends is None or len(starts) != len(ends):
        return None
    if axes is None:
        if len(args) > 3 and args[3] is not None:
            return None
        axes = list(range(len(starts)))
    if steps is None:
        if len(args) > 4 and args[4] is not None:
            return None
        steps = [1] * len(starts)
    if len(axes) != len(starts) or len(steps) != len(starts) or 0 in steps:
        return None
    norm = _normalize_axes(axes, data.ndim)
    if norm is None:
        return None
    index = [slice(None)] * data.ndim
    for a, s, e, st in zip(norm, starts, ends, steps):
        # ONNX clamps starts/ends per step sign exactly as Python slices do.
        index[a] = slice(s, e, st)
    return [np.array(data[tuple(index)])]


@register("Concat")
def concat(node: ir.Node, f: Inputs) -> Result:
    args = f.consts()
    if args is None or not args or any(a is None for a in args):
        return None
    axis = _attr(node, "axis")
    rank = args[0].ndim
    if axis is None or rank == 0 or not -rank <= axis < rank:
        return None
    if any(a.dtype != args[0].dtype or a.ndim != rank for a in args):
        return None
    try:
        out = np.concatenate(args, axis=axis)
    except ValueError:
        return None
    return [out] if out.size <= f.limit else None


def _perm(node: ir.Node, rank: int) -> list[int] | None:
    perm = _attr(node, "perm")
    if perm is None:
        return list(range(rank))[::-1]
    if sorted(perm) != list(range(rank)):
        return None
    return perm


@register("Transpose", partial=True)
def transpose(node: ir.Node, f: Inputs) -> Result:
    data = f.const(0)
    if data is not None:
        perm = _perm(node, data.ndim)
        return None if perm is None else [np.ascontiguousarray(np.transpose(data, perm))]
    inner = _producer(node.inputs[0], "Transpose")
    if inner is None or "perm" not in node.attributes or "perm" not in inner.attributes:
        return None
    p, q = _perm(inner, len(_attr(inner, "perm"))), _perm(node, len(_attr(node, "perm")))
    if p is None or q is None or len(p) != len(q):
        return None
    # out[i] = mid[q[i]] = x[p[q[i]]]
    combined = [p[i] for i in q]
    if combined == list(range(len(p))):
        return [inner.inputs[0]]
    middle = node.inputs[0]
    node.replace_input_with(0, inner.inputs[0])
    node.attributes["perm"] = ir.AttrInt64s("perm", combined)
    f.rewired(middle)
    return None


@register("Expand")
def expand(node: ir.Node, f: Inputs) -> Result:
    data, shape_ = f.const(0), _ints(f.const(1))
    if data is None or shape_ is None:
        return None
    try:
        out_shape = np.broadcast_shapes(data.shape, tuple(shape_))
    except ValueError:
        return None
    if _size(out_shape) > f.limit:
        return None
    return [np.array(np.broadcast_to(data, out_shape))]


def _reshape_target(in_shape: Sequence[int], target: list[int], allowzero: int) -> tuple | None:
    out = list(target)
    for i, d in enumerate(out):
        if d == 0 and not allowzero:
            if i >= len(in_shape):
                return None
            out[i] = in_shape[i]
    if out.count(-1) > 1 or any(d < -1 for d in out):
        return None
    total = _size(in_shape)
    if -1 in out:
        known = _size(d for d in out if d != -1)
        if known == 0 or total % known:
            return None
        out[out.index(-1)] = total // known
    return tuple(out) if _size(out) == total else None


@register("Reshape", partial=True)
def reshape(node: ir.Node, f: Inputs) -> Result:
    target = _ints(f.const(1))
    if target is None:
        return None
    allowzero = _attr(node, "allowzero", 0)
    data = f.const(0)
    if data is not None:
        shape_ = _reshape_target(data.shape, target, allowzero)
        return None if shape_ is None else [data.reshape(shape_)]
    x = node.inputs[0]
    inner = _producer(x, "Reshape")
    # Reshape(Reshape(x, a), b) == Reshape(x, b) unless b copies dims of the middle (0 entries).
    if inner is not None and inner.inputs[0] is not None and (allowzero or 0 not in target):
        source = inner.inputs[0]
        node.replace_input_with(0, source)
        f.rewired(x)
        x = source
    dims = _static_dims(x)
    if dims is not None and None not in dims:
        shape_ = _reshape_target(dims, target, allowzero)  # type: ignore[arg-type]
        if shape_ is not None and list(shape_) == dims:
            return [x]
    return None


def _axes(node: ir.Node) -> tuple[bool, list[int] | None]:
    """(known, axes): from input 1 (opset >= 13) or the ``axes`` attribute; known=False when
    the axes input is given but not constant."""
    if len(node.inputs) > 1 and node.inputs[1] is not None:
        axes = _ints(const_of(node.inputs[1]))
        return axes is not None, axes
    return True, _attr(node, "axes")


@register("Unsqueeze")
def unsqueeze(node: ir.Node, f: Inputs) -> Result:
    known, axes = _axes(node)
    data = f.const(0)
    if not known or axes is None or data is None:
        return None
    norm = _normalize_axes(axes, data.ndim + len(axes))
    if norm is None:
        return None
    return [np.expand_dims(data, tuple(norm))]


@register("Squeeze", partial=True)
def squeeze(node: ir.Node, f: Inputs) -> Result:
    data = f.const(0)
    if data is None and _producer(node.inputs[0], "Unsqueeze") is None:
        return None
    known, axes = _axes(node)
    if not known:
        return None
    if data is not None:
        if axes is None:
            return [np.squeeze(data)]
        norm = _normalize_axes(axes, data.ndim)
        if norm is None or any(data.shape[a] != 1 for a in norm):
            return None
        return [np.squeeze(data, axis=tuple(norm))]
    # Squeeze(Unsqueeze(x, axes), axes) == x: the same (non-negative, so rank-independent)
    # positions are inserted then removed.
    inner = _producer(node.inputs[0], "Unsqueeze")
    if inner is None or axes is None or any(a < 0 for a in axes) or len(set(axes)) != len(axes):
        return None
    inner_known, inner_axes = _axes(inner)
    if inner_known and inner_axes is not None and sorted(inner_axes) == sorted(axes):
        return [inner.inputs[0]]
    return None


@register("Range")
def range_(node: ir.Node, f: Inputs) -> Result:
    args = f.consts()
    if args is None or len(args) != 3 or any(a is None or a.size != 1 for a in args):
        return None
    dtype = args[0].dtype
    # Only integers: float ranges depend on how the runtime rounds the element count.
    if dtype.kind not in "iu" or any(a.dtype != dtype for a in args):
        return None
    start, limit, delta = (int(a.reshape(())) for a in args)
    if delta == 0:
        return None
    n = max(-((start - limit) // delta), 0)  # ceil((limit - start) / delta)
    if n > f.limit:
        return None
    return [(start + delta * np.arange(n, dtype=np.int64)).astype(dtype)]


@register("ConstantOfShape")
def constant_of_shape(node: ir.Node, f: Inputs) -> Result:
    shape_ = _ints(f.const(0))
    if shape_ is None or any(d < 0 for d in shape_) or _size(shape_) > f.limit:
        return None
    attr = node.attributes.get("value")
    if attr is None:
        fill = np.zeros((1,), np.float32)
    elif attr.is_ref():
        return None
    else:
        fill = attr.as_tensor().numpy()
    if fill.size != 1:
        return None
    return [np.full(shape_, fill.reshape(()), dtype=fill.dtype)]
