"""``x[m] = c`` and ``x[m] = f(x[m])``: boolean-mask writes as one ``Where``.

Input: the Array written to, its :class:`~pyonnx.frontend.graph.indexing.plan.IndexPlan` and
the value, already of x's dtype. Output: the new Array, or None when the write is not of this
form (the caller then takes the flat ``ScatterElements`` form).

The form: the subscript is one boolean mask ``m`` over x's leading k axes (``x[x < 0] = 0``,
``img[mask] = 255``, ``a[m, ...] = v``), and the value has one element (numpy broadcasts it to
every selected position; shapes ``()``, ``(1,)``, ``(1, 1)``...). Then
``y = Where(m[..., None...], c, x)``: one pass, no positions, no ``Compress`` (uint64, which
onnxruntime's Where lacks, keeps the flat form).

``x[m] = f(x[m])`` with ``m`` over all of x's axes and ``f`` a chain of elementwise ops that
cannot fail on any element and have bounded derivatives (``_SAFE``, and ``Mul`` by a finite
constant; other operands 0-d or one-element): f is computed on the whole of x and
``Where(m, f(x), x)`` keeps it where m holds -- the same value per element as numpy's ``f`` on
the selected ones, with no ``Compress`` and no scatter.

numpy raises IndexError when m's shape differs from x's leading dimensions; ``Where`` would
broadcast instead. When the shapes are not known equal at conversion time, the mask goes
through ``Reshape(Expand(m, x.shape[:k]), m.shape)`` (fails unless m's shape is x's, or m is
larger) and the result through ``Reshape(·, x.shape)`` (fails when m was larger), so a
mismatch fails at run time instead of writing elsewhere.
"""

from __future__ import annotations

import numpy as np

from pyonnx.frontend.graph.indexing.forms import MASK
from pyonnx.frontend.graph.kernels import compute_dtype, where
from pyonnx.frontend.graph.values import Array

__all__ = ["mask_fill", "mask_apply"]

# Elementwise ops an ``a[m] = f(a[m])`` may compute on the whole array: they cannot fail on any
# element, and their derivative is bounded for every finite input. The second matters for
# gradients: Where's backward pass sends zeros through f on the unselected elements, and
# 0 * inf is NaN (sqrt or log at 0, exp overflowing, x * x overflowing in float16 would poison
# the gradient of elements f never touched in numpy). Mul only by a finite constant.
_SAFE = frozenset({
    "Add", "Sub", "Neg", "Abs", "Identity", "Sin", "Cos", "Tanh", "Sigmoid", "Erf", "Floor",
    "Ceil", "Round", "Sign", "Relu", "Clip", "Max", "Min", "Cast",
})


def mask_fill(ctx, x: Array, plan, v: Array) -> Array | None:
    """``x`` after ``x[m] = v`` for one leading mask and a one-element value (see the module
    docstring); None for any other write."""
    items = plan.items
    masks = [it for it in items if it.kind == MASK]
    if len(masks) != 1 or items[0] is not masks[0]:
        return None
    if any(not (it.kind == "slice" and it.value == slice(None)) for it in items[1:]):
        return None
    if v.static_size != 1:  # (numpy drops any leading length-1 dimensions of the value)
        return None
    if compute_dtype("Where", x.dtype) is None:  # uint64: no Where kernel, nor a wider exact one
        return None
    scalar = v if v.ndim == 0 else Array(ctx.op("Reshape", v, ctx.const(np.array([], np.int64))),
                                          v.dtype, ())
    return _where(ctx, x, masks[0], scalar)


def mask_apply(ctx, x: Array, plan, v: Array) -> Array | None:
    """``x`` after ``x[m] = f(x[m])`` (``m`` one boolean mask over all of x's axes, ``f`` a
    chain of the elementwise ops in ``_SAFE`` or ``Mul`` by a finite constant, with one-element
    or 0-d other operands):
    ``Where(m, f(x), x)``. None for any other write."""
    items = plan.items
    if len(items) != 1 or items[0].kind != MASK or items[0].consumes != x.ndim or \
            compute_dtype("Where", x.dtype) is None or not isinstance(v, Array):
        return None
    m = items[0].value
    mask = ctx.const(m) if isinstance(m, np.ndarray) else m.value
    chain = _chain(v.value, x.value, mask)
    if chain is None:
        return None
    values = {}
    for node in chain:  # producers first
        inputs = [values.get(i, i) if i is not None else None for i in node.inputs]
        if node.op_type == "Compress":
            values[node.outputs[0]] = x.value
            continue
        attrs = {k: a.value for k, a in node.attributes.items()}
        values[node.outputs[0]] = ctx.op(node.op_type, *inputs, **attrs)
    fx = Array(values[v.value], x.dtype, x.shape)
    return _where(ctx, x, items[0], fx)


def _chain(value, x, mask, limit: int = 32):
    """The nodes from the read ``x[mask]`` (its ``Compress``) to ``value``, producers first,
    when every step is a safe elementwise op whose other operands are 0-d or one-element; else
    None."""
    order: list = []
    seen: set = set()

    def visit(v) -> bool:
        if v is None or id(v) in seen:
            return True
        node = v.producer()
        if node is None or node.domain != "":
            return _scalar(v)
        if node.op_type == "Compress":
            if not _reads(node, x, mask):
                return False
            seen.add(id(v))
            order.append(node)
            return True
        if node.op_type == "Mul":
            if not any(_finite_const(i) for i in node.inputs):
                return _scalar(v)
        elif node.op_type not in _SAFE:
            return _scalar(v)
        if len(order) >= limit:
            return False
        on_path = [i for i in node.inputs if i is not None and not _scalar(i)]
        if not on_path or not all(visit(i) for i in on_path):
            return False
        seen.add(id(v))
        order.append(node)
        return True

    if not visit(value) or not order or order[-1].outputs[0] is not value:
        return None
    if not any(n.op_type == "Compress" for n in order):
        return None
    return order


def _finite_const(v) -> bool:
    const = None if v is None else v.const_value
    if const is None or const.size != 1:
        return False
    arr = const.numpy()
    return arr.dtype.kind in "biu" or bool(np.isfinite(arr).all())


def _scalar(v) -> bool:
    """A 0-d or one-element value that does not depend on the read."""
    const = v.const_value
    if const is not None:
        return const.size == 1
    return v.shape is not None and len(v.shape) == 0


def _reads(node, x, mask) -> bool:
    """``node`` is the Compress of ``x[mask]``: ``Compress(Reshape(x, [-1]), Reshape(mask))``."""
    flat, sel = node.inputs[0], node.inputs[1] if len(node.inputs) > 1 else None
    pf = None if flat is None else flat.producer()
    ps = None if sel is None else sel.producer()
    return (pf is not None and pf.op_type == "Reshape" and pf.inputs[0] is x
            and ps is not None and ps.op_type == "Reshape" and ps.inputs[0] is mask)


def _where(ctx, x: Array, item, value: Array) -> Array:
    """``Where(mask, value, x)`` with the mask's shape checked against x's leading axes."""
    m = item.value
    k = item.consumes
    i64 = np.int64
    mask = ctx.const(m) if isinstance(m, np.ndarray) else m.value
    lead = x.shape[:k]
    known = None not in lead and tuple(m.shape) == tuple(lead)
    if not known:
        target = ctx.op("Shape", x, start=0, end=k) if None in lead else \
            ctx.const(np.array(lead, i64))
        mask = ctx.op("Reshape", ctx.op("Expand", mask, target), ctx.op("Shape", mask))
    if k < x.ndim:
        mask = ctx.op("Unsqueeze", mask, ctx.const(np.arange(k, x.ndim, dtype=i64)))
    mask_shape = tuple(m.shape) + (1,) * (x.ndim - k)
    out = where(ctx, Array(mask, np.dtype(bool), mask_shape), value, x)
    if not known:
        out = Array(ctx.op("Reshape", out, ctx.shape_of(x)), x.dtype, x.shape)
    return Array(out.value, x.dtype, x.shape)
