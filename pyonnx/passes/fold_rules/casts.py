"""Folding rules for Identity, Constant, Cast, Shape and Size."""

from __future__ import annotations

import numpy as np
import onnx_ir as ir

from pyonnx.passes.fold_rules.common import _attr, _producer, _size, _static_dims
from pyonnx.passes.fold_rules.registry import Inputs, Result, register


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


def _dtype_of(value: ir.Value, depth: int = 0) -> np.dtype | None:
    """The element dtype of ``value``: annotated, the ``to`` of the Cast producing it, bool for
    a comparison or logical op, or (up to 16 producers back) the dtype of the input that an
    op which keeps its input's dtype (Gather, Slice, Reshape, Add...) takes it from."""
    if value.dtype is not None:
        try:
            return np.dtype(value.dtype.numpy())
        except (TypeError, ValueError):
            return None
    producer = value.producer()
    if producer is None or producer.domain != "":
        return None
    op = producer.op_type
    if op == "Cast":
        return _dtype_of_attr(producer)
    if op == "ConstantOfShape":  # (its value's dtype; float32 without one: fuzz seed 26004526)
        attr = producer.attributes.get("value")
        if attr is None:
            return np.dtype(np.float32)
        try:
            return np.dtype(attr.value.dtype.numpy())
        except (AttributeError, TypeError, ValueError):
            return None
    if op in _BOOL_OPS:
        return np.dtype(np.bool_)
    k = _SAME_DTYPE_AS.get(op)
    if k is None or depth >= 16 or len(producer.inputs) <= k or producer.inputs[k] is None:
        return None
    return _dtype_of(producer.inputs[k], depth + 1)


# Ops whose output is bool whatever their inputs: a Cast round trip of their value (bool →
# uint8 → bool, from np.uint8(x > 0) read as a bool) folds even when the value carries no type
# annotation (onnxruntime drops such round trips itself and then loses the value when a nested
# subgraph reads it: 'Trying to get a TensorSeq, but got: (null)', fuzz seeds 934593, 977985).
_BOOL_OPS = frozenset({"Equal", "Less", "LessOrEqual", "Greater", "GreaterOrEqual", "Not",
                       "And", "Or", "Xor", "IsNaN", "IsInf"})
# Ops whose output has the dtype of their input k.
_SAME_DTYPE_AS = {op: 0 for op in (
    "Identity", "Gather", "GatherND", "GatherElements", "Slice", "Squeeze", "Unsqueeze",
    "Reshape", "Expand", "Transpose", "Flatten", "Concat", "Tile", "Compress", "ReduceMax",
    "ReduceMin", "Neg", "Abs", "Add", "Sub", "Mul", "Max", "Min", "ScatterND",
    "ScatterElements", "Pad", "Div", "Mod", "Pow", "ReduceSum", "ReduceProd", "CumSum",
    "Range", "Sign", "Floor", "Ceil", "Round", "Sqrt", "Exp", "Log", "Relu", "Clip", "Trilu")}
_SAME_DTYPE_AS["Where"] = 1


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
    filled = _filled_shape(node, x)
    if filled is not None:
        return [filled]
    while x is not None:
        if _through_transpose(node, f):
            x = node.inputs[0]
            continue
        scatter = _producer(x, "ScatterND")
        if scatter is None or scatter.inputs[0] is None:
            break
        # ScatterND's output has its data's shape: the shape does not keep the write alive.
        node.replace_input_with(0, scatter.inputs[0])
        f.rewired(x)
        x = scatter.inputs[0]
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


def _through_transpose(node: ir.Node, f: Inputs) -> bool:
    """``Shape(Transpose(x, perm), start, end)`` reads ``Shape(x)`` instead, in place, where the
    requested dims are a run of consecutive axes of ``x`` (``perm[start:end]`` = p, p+1, ...):
    a slice write transposes the whole array and reads its shape back (``z[:, :, 0] = v`` on a
    fresh ``z``), and onnxruntime would compute that Transpose only for its shape. True when
    the node was rewired."""
    x = node.inputs[0]
    producer = None if x is None else x.producer()
    if producer is None or producer.op_type != "Transpose" or producer.domain != "" \
            or producer.inputs[0] is None:
        return False
    perm = _attr(producer, "perm", None)
    if perm is None:  # the default (reversed axes) needs the rank: rare, left alone
        return False
    rank = len(perm)
    start, end = _attr(node, "start", 0), _attr(node, "end", None)
    part = perm[slice(start, end)]  # ONNX clamps start/end as Python slicing does
    if not part or part != list(range(part[0], part[0] + len(part))):
        return False
    node.replace_input_with(0, producer.inputs[0])
    node.attributes["start"] = ir.AttrInt64("start", part[0])
    if part[-1] + 1 == rank:
        node.attributes.pop("end", None)
    else:
        node.attributes["end"] = ir.AttrInt64("end", part[-1] + 1)
    f.rewired(x)
    return True


def _filled_shape(node: ir.Node, x: ir.Value | None) -> ir.Value | None:
    """The shape vector ``s`` of ``x = ConstantOfShape(s)`` when the Shape node takes all of
    it: a slice write into ``np.zeros(n)`` reshapes to ``Shape(x)``, which would otherwise keep
    the (possibly no longer needed) filled array alive."""
    producer = None if x is None else x.producer()
    if producer is None or producer.op_type != "ConstantOfShape" or producer.domain != "":
        return None
    if _attr(node, "start", 0) != 0 or _attr(node, "end", None) is not None:
        return None
    return producer.inputs[0]


@register("Size", partial=True)
def size(node: ir.Node, f: Inputs) -> Result:
    dims = _static_dims(node.inputs[0])
    if dims is None or any(d is None for d in dims):
        return None
    return [np.array(_size(dims), dtype=np.int64)]  # type: ignore[arg-type]
