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

from pyonnx.frontend.lower import copy_or_view, layout
from pyonnx.frontend.lower.aliases import (
    UNKNOWN, AliasState, MaybeCopy, Reshape, Step, Transpose, register_view)
from pyonnx.frontend.graph import scalar_kinds
from pyonnx.frontend.graph.scalar_kinds import is_array0d, mark_array0d
from pyonnx.frontend.graph.values import Array

__all__ = ["after_call", "Recompute", "VIEW_FUNCTIONS", "ALIAS_FUNCTIONS"]


class Recompute(Step):
    """A view made by a numpy function (``np.flip``, ``np.diagonal``, ``np.broadcast_to``):
    ``forward`` runs the function's lowering again on the base. ``inverse`` writes a new value
    of the view back (``np.flip`` is its own inverse); None for the views numpy makes
    read-only (a write through one raises in numpy)."""

    def __init__(self, name: str, fn: Any, inverse: Any = None):
        self.name = name
        self.fn = fn
        self.inverse = inverse

    def forward(self, ctx, base: Array) -> Array:
        return self.fn(ctx, base)

    def backward(self, ctx, base: Array, view: Array) -> Array:
        if self.inverse is None:
            raise ctx.error(f"assignment destination is read-only (numpy raises ValueError: "
                            f"the view np.{self.name} returns cannot be written); write into "
                            "the original array, or take .copy() first")
        return self.inverse(ctx, view)



# numpy functions and methods that return a view of their first argument (or the argument
# itself). The ones pyonnx follows are recognized by the node that made the result: a reshape
# of a whole array (Reshape/Squeeze/Unsqueeze/Flatten) or a transpose; the others are
# registered UNKNOWN, so that a write through them is refused instead of silently missing the
# base.
VIEW_FUNCTIONS = frozenset({
    "reshape", "ravel", "transpose", "permute_dims", "matrix_transpose", "swapaxes", "moveaxis",
    "rollaxis", "squeeze", "expand_dims", "atleast_1d", "atleast_2d", "atleast_3d",
    "broadcast_to", "diagonal", "flip", "fliplr", "flipud", "split", "array_split", "hsplit",
    "vsplit", "dsplit", "real", "imag", "view", "broadcast_arrays", "unstack", "rot90",
    "trim_zeros", "sliding_window_view",
})
# numpy returns its argument itself when nothing needs converting: an alias, not a copy
# (``np.array(x, copy=None/False)``, ``x.astype(x.dtype, copy=False)``). Their lowerings return
# the argument's own Array object exactly then, and a new object for a copy.
ALIAS_FUNCTIONS = frozenset({"asarray", "asanyarray", "ascontiguousarray", "array", "astype",
                             "asfortranarray", "require", "to_device"})
# Alias functions that return their argument itself exactly when its memory layout already
# fits, which depends on the caller's strides (not in the signature).
_LAYOUT_ALIASES = frozenset({"ascontiguousarray", "asfortranarray", "require"})
_RESHAPES = frozenset({"Reshape", "Squeeze", "Unsqueeze", "Flatten"})
# numpy calls whose 0-d result is a 0-d array, not a numpy scalar; and those whose 0-d result
# is an array exactly when their first argument is one (``s.copy()`` of a numpy scalar is one).
ARRAY_MAKERS = frozenset({
    "array", "asarray", "asanyarray", "zeros", "ones", "full", "empty", "zeros_like",
    "ones_like", "full_like", "empty_like", "where", "select"})
KIND_KEEPERS = frozenset({"copy", "astype"})
# numpy calls whose result has their first argument's memory order (order='K') though the
# graph computing it reads only the argument's shape (layout.py).
_LIKE = frozenset({"zeros_like", "ones_like", "full_like", "empty_like"})
# Views followed by running the function again on the base's new contents (a Recompute step):
# the flips are their own inverse, so writes through them go back the same way; numpy makes
# the others read-only (only writes to their base matter).
_INVOLUTIONS = frozenset({"flip", "fliplr", "flipud"})
_READ_ONLY = frozenset({"diagonal", "broadcast_to", "sliding_window_view"})


def after_call(ctx, name: str, args: list, result: Any, recompute: Any = None) -> Any:
    """The result of numpy function ``name`` with its aliasing recorded: views of the first
    argument registered, and a result that is an argument's own Array object but a copy in
    numpy (``x.copy()``, ``x.astype(x.dtype)``) made a distinct object. ``recompute(ctx, b)``
    runs the call again with ``b`` for the first argument (views followed that way)."""
    base = args[0] if args else None
    if isinstance(result, Array) and result.ndim == 0 and not result.weak and (
            name in ARRAY_MAKERS or name in KIND_KEEPERS and isinstance(base, Array)
            and is_array0d(ctx, base)):
        mark_array0d(ctx, result)
    elif name in KIND_KEEPERS and isinstance(result, Array) and isinstance(base, Array) and \
            base.value in ctx.aliases.mixed0d and result.ndim == 0 and not result.weak:
        # (s.copy() is a numpy scalar or a 0-d array as s is)
        ctx.aliases.mixed0d.setdefault(result.value, ctx.aliases.mixed0d[base.value])
    if name in _LIKE and isinstance(base, Array) and isinstance(result, Array) and \
            result.value is not base.value:
        # np.zeros_like(x.T) is Fortran-ordered as x.T is (order='K'), though its graph
        # reads only x.T's shape
        ctx.aliases.follows[result.value] = base.value
    if name in VIEW_FUNCTIONS and isinstance(base, Array):
        if isinstance(result, (list, tuple)):
            return type(result)(_view_of(ctx, r, base, unknown=True) for r in result)
        if recompute is not None and (name in _INVOLUTIONS or name in _READ_ONLY):
            inverse = recompute if name in _INVOLUTIONS else None
            return _view_of(ctx, result, base, step=Recompute(name, recompute, inverse))
        return _view_of(ctx, result, base, same_shape=name == "reshape",
                        maybe_copy=name == "ravel")
    if name in ("asarray", "asanyarray") and isinstance(base, Array) and base.ndim == 0 and \
            not base.weak and isinstance(result, Array) and result is not base and \
            scalar_kinds.scalar_kind(ctx, base) == "unknown" and result.dtype == base.dtype:
        # numpy returns the argument itself where it is a 0-d array, a new array where it is
        # a numpy scalar: a write through the result is refused, and a write to the argument
        # makes the result stale (it is then refused where read)
        from pyonnx.frontend.lower import memory_sharing
        buffer, _ = ctx.aliases.buffer_of(base)
        memory_sharing.mark_ambiguous(ctx, result, frozenset({buffer}))
        return result
    if name in ALIAS_FUNCTIONS:
        if (name in _LAYOUT_ALIASES and isinstance(base, Array) and not base.weak
                and isinstance(result, Array) and result.dtype == base.dtype):
            # The argument itself when it is C-contiguous, else a C-ordered copy: an alias of
            # an array known to be C-ordered (layout.py); for the others a "view or copy"
            # (aliases.MaybeCopy: a write is refused unless nothing else sees the memory).
            hit = ctx.aliases.lookup(base)
            if hit is not None and (hit[1] or hit[0].param is not None) or \
                    id(base) in ctx.aliases.params or base.ndim == 0:
                # a view, or the caller's array: its strides are not in the signature
                return _view_of(ctx, result, base, unknown=True)
            assumed: set = set()
            if not layout.maybe_not_c(ctx, base, assumed) and not assumed:
                return result
            ctx.aliases.detach = copy_or_view.detach
            view = Array(ctx.op("Identity", base), base.dtype, base.shape)
            ctx.aliases.c_order.add(view.value)
            return register_view(ctx, view, base, MaybeCopy(base.shape, ctx.shape_of(base),
                                                            base=base))
        return result
    if isinstance(result, Array) and any(result is a for a in args):
        return Array(result.value, result.dtype, result.shape, result.weak)
    return result


def _view_of(ctx, result: Any, base: Array, unknown: bool = False, step: Any = None,
             same_shape: bool = False, maybe_copy: bool = False) -> Any:
    if not isinstance(result, Array):
        return result
    state: AliasState = ctx.aliases
    if step is not None and result.dtype == base.dtype:
        return register_view(ctx, result, base, step)
    hit = state.lookup(base)
    # (np.ascontiguousarray of an array of unknown order is C-ordered, copy or not: its
    # reshapes are views of it)
    whole = hit is None or not hit[1] or isinstance(hit[1][-1], MaybeCopy) and \
        base.value in state.c_order
    if hit is not None and any(steps for _, (_, steps) in hit[0].choice):
        # memory chosen at run time that is a view on some path (a0 or a0[::-1], choices.py):
        # its reshape is a view or a copy depending on the path (fuzz seed 14100841)
        whole = False
    if result is base and maybe_copy and whole and layout.strided(base.value):
        # x.ravel() of numpy's strided index array (np.nonzero of a 2-D x) is a copy
        return Array(ctx.op("Identity", base), base.dtype, base.shape, base.weak)
    if result is base:
        # x.ravel() of a view is a copy when the view is strided (x[::2]), which pyonnx does
        # not know; of a whole array it is the array.
        return register_view(ctx, result, base, UNKNOWN if unknown or maybe_copy and not whole
                             else Transpose(tuple(range(base.ndim))))
    node = result.value.producer()
    if state.flat_view and not unknown and node is not None and result.dtype == base.dtype \
            and node.op_type in _RESHAPES and node.inputs[0] is base.value:
        # x.flat's view (lower/function.py): C-order addressing of x's elements, exact for
        # any memory order or strides of x
        return register_view(ctx, result, base, Reshape(result.shape, ctx.shape_of(result),
                                                        frozenset()))
    if not unknown and node is not None and result.dtype == base.dtype:
        if node.op_type == "Transpose" and node.inputs[0] is base.value:
            perm = node.attributes["perm"].as_ints() if "perm" in node.attributes else \
                list(reversed(range(base.ndim)))
            return register_view(ctx, result, base, Transpose(tuple(perm)))
        if node.op_type in _RESHAPES and node.inputs[0] is base.value and (
                whole or node.op_type in ("Squeeze", "Unsqueeze")
                or same_shape and base.ndim == 1 and result.ndim == 1):
            # numpy reshapes a contiguous array in place; a reshaped view may be a copy. Adding
            # or removing length-1 axes is a view of any array, and so is x.reshape(-1) of a
            # 1-D x (not x.ravel(): it copies a strided 1-D view).
            assumed: set = set()
            if node.op_type in ("Reshape", "Flatten") and not (
                    same_shape and base.ndim == 1 and result.ndim == 1) and \
                    not _unit_axes_only(base.shape, result.shape) and \
                    not _same_shape_input(node, base):
                if layout.maybe_not_c(ctx, base, assumed):
                    # np.cosh(x.T).reshape(-1): a copy or a view, as the strides say
                    state.detach = copy_or_view.detach
                    return register_view(ctx, result, base, MaybeCopy(
                        result.shape, ctx.shape_of(result), base=base))
                if hit is not None and hit[0].param is not None:
                    assumed.add(hit[0].param)  # the caller's memory, written before
            return register_view(ctx, result, base, Reshape(
                result.shape, ctx.shape_of(result), frozenset(assumed)))
    return register_view(ctx, result, base, UNKNOWN)


def _unit_axes_only(before: tuple, after: tuple) -> bool:
    """Whether a reshape only adds or removes length-1 axes (known shapes): a view of any
    array, whatever its memory order."""
    if None in before or None in after:
        return False
    return [d for d in before if d != 1] == [d for d in after if d != 1]


def _same_shape_input(node, base: Array) -> bool:
    """Whether a Reshape node's target shape is ``Shape(base)`` (``y.reshape(y.shape)``): the
    same shape, a view of any array."""
    if node.op_type != "Reshape" or len(node.inputs) < 2 or node.inputs[1] is None:
        return False
    shape = node.inputs[1].producer()
    return shape is not None and shape.op_type == "Shape" and shape.inputs[0] is base.value \
        and not shape.attributes
