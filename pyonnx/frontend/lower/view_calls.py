"""Which numpy calls return views: the aliasing of a call's result, recorded for
:mod:`pyonnx.frontend.lower.aliases`.

Input: the numpy function or method name, its arguments and the lowered result. Output: the
result, registered as a view of its first argument when numpy returns one (the ones pyonnx
follows are recognized by the node that made the result: a reshape of a whole array or a
transpose; the others are registered UNKNOWN, so a write through them is refused), or made a
distinct Array object when numpy returns a copy that the lowering shared with an argument.
"""

from __future__ import annotations

from typing import Any

from pyonnx.frontend.lower.aliases import (
    UNKNOWN, AliasState, Reshape, Transpose, register_view)
from pyonnx.frontend.graph.scalar_kinds import is_array0d, mark_array0d
from pyonnx.frontend.graph.values import Array

__all__ = ["after_call", "VIEW_FUNCTIONS", "ALIAS_FUNCTIONS"]


# numpy functions and methods that return a view of their first argument (or the argument
# itself). The ones pyonnx follows are recognized by the node that made the result: a reshape
# of a whole array (Reshape/Squeeze/Unsqueeze/Flatten) or a transpose; the others are
# registered UNKNOWN, so that a write through them is refused instead of silently missing the
# base.
VIEW_FUNCTIONS = frozenset({
    "reshape", "ravel", "transpose", "permute_dims", "matrix_transpose", "swapaxes", "moveaxis",
    "rollaxis", "squeeze", "expand_dims", "atleast_1d", "atleast_2d", "atleast_3d",
    "broadcast_to", "diagonal", "flip", "fliplr", "flipud", "split", "array_split", "hsplit",
    "vsplit", "dsplit", "real", "imag", "view", "broadcast_arrays", "unstack",
})
# numpy returns its argument itself when nothing needs converting: an alias, not a copy
# (``np.array(x, copy=None/False)``, ``x.astype(x.dtype, copy=False)``). Their lowerings return
# the argument's own Array object exactly then, and a new object for a copy.
ALIAS_FUNCTIONS = frozenset({"asarray", "asanyarray", "ascontiguousarray", "array", "astype"})
_RESHAPES = frozenset({"Reshape", "Squeeze", "Unsqueeze", "Flatten"})
# numpy calls whose 0-d result is a 0-d array, not a numpy scalar; and those whose 0-d result
# is an array exactly when their first argument is one (``s.copy()`` of a numpy scalar is one).
ARRAY_MAKERS = frozenset({
    "array", "asarray", "asanyarray", "zeros", "ones", "full", "empty", "zeros_like",
    "ones_like", "full_like", "empty_like", "where", "select"})
KIND_KEEPERS = frozenset({"copy", "astype"})


def after_call(ctx, name: str, args: list, result: Any) -> Any:
    """The result of numpy function ``name`` with its aliasing recorded: views of the first
    argument registered, and a result that is an argument's own Array object but a copy in
    numpy (``x.copy()``, ``x.astype(x.dtype)``) made a distinct object."""
    base = args[0] if args else None
    if isinstance(result, Array) and result.ndim == 0 and not result.weak and (
            name in ARRAY_MAKERS or name in KIND_KEEPERS and isinstance(base, Array)
            and is_array0d(ctx, base)):
        mark_array0d(ctx, result)
    if name in VIEW_FUNCTIONS and isinstance(base, Array):
        if isinstance(result, (list, tuple)):
            return type(result)(_view_of(ctx, r, base, unknown=True) for r in result)
        return _view_of(ctx, result, base)
    if name in ALIAS_FUNCTIONS:
        if (name == "ascontiguousarray" and isinstance(base, Array) and not base.weak
                and isinstance(result, Array) and result.dtype == base.dtype):
            # A view exactly when the argument is C-contiguous, which depends on the caller's
            # strides (not in the signature): writes through it are refused.
            return _view_of(ctx, result, base, unknown=True)
        return result
    if isinstance(result, Array) and any(result is a for a in args):
        return Array(result.value, result.dtype, result.shape, result.weak)
    return result


def _view_of(ctx, result: Any, base: Array, unknown: bool = False) -> Any:
    if not isinstance(result, Array):
        return result
    state: AliasState = ctx.aliases
    if result is base:
        return register_view(ctx, result, base,
                             UNKNOWN if unknown else Transpose(tuple(range(base.ndim))))
    node = result.value.producer()
    hit = state.lookup(base)
    whole = hit is None or not hit[1]
    if not unknown and node is not None and result.dtype == base.dtype:
        if node.op_type == "Transpose" and node.inputs[0] is base.value:
            perm = node.attributes["perm"].as_ints() if "perm" in node.attributes else \
                list(reversed(range(base.ndim)))
            return register_view(ctx, result, base, Transpose(tuple(perm)))
        if node.op_type in _RESHAPES and node.inputs[0] is base.value and whole:
            # numpy reshapes a contiguous array in place; a reshaped view may be a copy.
            return register_view(ctx, result, base, Reshape(result.shape, ctx.shape_of(result)))
    return register_view(ctx, result, base, UNKNOWN)
