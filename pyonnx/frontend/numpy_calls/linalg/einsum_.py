"""numpy Einstein summation: ``np.einsum`` with string subscripts.

Input: the subscripts string and the operand arrays. Output: one Array with numpy's result
dtype (or ``dtype=``, checked with ``casting=``), from one onnxruntime Einsum run in a dtype it
has a kernel for; integer reductions are kept as trailing output axes and summed exactly, since
onnxruntime's integer ReduceSum goes through floating point.

Supported syntax:

* ``np.einsum("ij,jk->ik", *arrays)``: string subscripts, implicit or explicit output,
  ``...``, repeated labels (diagonals); ``dtype=`` and ``casting=``. The list form
  (``einsum(a, [0, 1], ...)``) is refused.
"""

from __future__ import annotations

import numpy as np

from pyonnx.frontend.graph.shapes import broadcast_shapes
from pyonnx.frontend.graph.values import Array, Dim
from pyonnx.frontend.numpy_calls.registry import register
from pyonnx.frontend.numpy_calls.linalg.common import (
    _finish, _product_dtype, _result_dtype, _sum_trailing,
)
from pyonnx.frontend.numpy_calls.shape import to_array, unsqueeze


# -------------------------------------------------------------------------------- einsum
def _parse_term(ctx, term: str) -> tuple[list[str], bool]:
    ell = term.count("...")
    if ell > 1 or (ell == 0 and "." in term) or (ell and "." in term.replace("...", "", 1)):
        raise ctx.error(f"einstein sum subscripts string contains a '.' that is not part of an "
                        f"ellipsis ('...') in '{term}'")
    labels = []
    for ch in term.replace("...", ""):
        if not ch.isascii() or not ch.isalpha():
            raise ctx.error(f"invalid subscript '{ch}' in einstein sum subscripts string, "
                            "subscripts must be letters")
        labels.append(ch)
    return list(term.replace("...", ".")) if ell else labels, bool(ell)


@register(np.einsum)
def einsum(ctx, *operands, out=None, optimize=False, dtype=None, order="K", casting="safe"):
    """``np.einsum("ij,jk->ik", a, b)`` with string subscripts (see the module docstring)."""
    if out is not None:
        raise ctx.error("np.einsum(..., out=...) is not supported; assign the result")
    if not operands or not isinstance(operands[0], str):
        raise ctx.error("np.einsum needs the subscripts string first; the operand/sublist form "
                        "einsum(a, [0, 1], ...) is not supported")
    subscripts = operands[0].replace(" ", "")
    arrays = [to_array(ctx, v) for v in operands[1:]]
    if "->" in subscripts:
        lhs, rhs = subscripts.split("->", 1)
        if "->" in rhs or "-" in rhs or ">" in rhs:
            raise ctx.error("einstein sum subscript string has a misplaced '->'")
    else:
        if "-" in subscripts or ">" in subscripts:
            raise ctx.error("einstein sum subscript string has a misplaced '->'")
        lhs, rhs = subscripts, None
    terms = lhs.split(",")
    if len(terms) != len(arrays):
        raise ctx.error(f"more operands provided to einstein sum function than specified in the "
                        f"subscripts string" if len(arrays) > len(terms) else
                        "fewer operands provided to einstein sum function than specified in the "
                        "subscripts string")
    parsed = [_parse_term(ctx, t) for t in terms]
    # Each label's size; the dims the ellipses stand for, right-aligned and broadcast.
    sizes: dict[str, Dim] = {}
    ell_shapes = []
    for (labels, has_ell), a in zip(parsed, arrays):
        named = [lab for lab in labels if lab != "."]
        if len(named) > a.ndim or (not has_ell and len(named) != a.ndim):
            raise ctx.error("operand has more dimensions than subscripts given in einstein sum, "
                            "but no '...' ellipsis provided to broadcast the extra dimensions."
                            if len(named) < a.ndim else
                            f"einstein sum subscripts string contains too many subscripts for "
                            f"operand {len(ell_shapes)}")
        ell_n = a.ndim - len(named)
        pos = labels.index(".") if has_ell else len(labels)
        dims = list(a.shape[:pos]) + list(a.shape[pos + ell_n:]) if has_ell else list(a.shape)
        ell_shapes.append(tuple(a.shape[pos:pos + ell_n]) if has_ell else ())
        for lab, d in zip(named, dims):
            # numpy broadcasts a size-1 dimension against the label's other sizes.
            if lab not in sizes or sizes[lab] == 1 or (sizes[lab] is None and d not in (None, 1)):
                sizes[lab] = d
            elif d is not None and d != 1 and sizes[lab] is not None and d != sizes[lab]:
                raise ctx.error(f"operands could not be broadcast together with remapped shapes: "
                                f"label '{lab}' has sizes {sizes[lab]} and {d}")
    try:
        ell_shape = broadcast_shapes(*ell_shapes)
    except ValueError as e:
        raise ctx.error(str(e)) from None
    any_ell = any(h for _, h in parsed)
    counts: dict[str, int] = {}
    for labels, _ in parsed:
        for lab in labels:
            if lab != ".":
                counts[lab] = counts.get(lab, 0) + 1
    if rhs is None:
        out_labels = sorted(lab for lab, c in counts.items() if c == 1)
        rhs = ("..." if any_ell else "") + "".join(out_labels)
    out_parsed, out_ell = _parse_term(ctx, rhs)
    for lab in out_parsed:
        if lab != "." and lab not in counts:
            raise ctx.error(f"einstein sum subscripts string included output subscript '{lab}' "
                            "which never appeared in an input")
    named_out = [lab for lab in out_parsed if lab != "."]
    if len(set(named_out)) != len(named_out):
        raise ctx.error("einstein sum subscripts string includes output subscript more than once")
    if not out_ell and any(d != 1 for d in ell_shape) and ell_shape:
        raise ctx.error("output has more dimensions than subscripts given in einstein sum, but "
                        "no '...' ellipsis provided to broadcast the extra dimensions.")
    shape: list[Dim] = []
    for lab in out_parsed:
        if lab == ".":
            shape.extend(ell_shape)
        else:
            shape.append(sizes[lab])
    # numpy's result dtype; with dtype= the operands are cast (casting rule checked) first.
    if dtype is None:
        dt = _result_dtype(ctx, *arrays) if arrays else np.dtype(np.float64)
    else:
        dt = np.dtype(ctx.static(dtype, "dtype"))
        casting = ctx.static(casting, "casting")
        for a in arrays:
            if not np.can_cast(a.dtype, dt, casting=casting):
                raise ctx.error(f"Cannot cast array data from dtype('{a.dtype}') to "
                                f"dtype('{dt}') according to the rule '{casting}'")
    run = _product_dtype(ctx, "Einsum", dt)
    reduced = sorted(lab for lab in counts if lab not in named_out)
    if run.kind in "iu" and reduced:
        # onnxruntime's Einsum sums some reductions with its inexact integer ReduceSum: keep the
        # summed labels as trailing output axes and add them exactly (_sum_trailing).
        rhs += "".join(reduced)
    # ONNX's Einsum shape inference wants every '...' to stand for the same number of dims:
    # pad shorter ones with leading 1s (numpy broadcasts them the same way).
    ell_rank = len(ell_shape)
    inputs = []
    for (labels, has_ell), a, es in zip(parsed, arrays, ell_shapes):
        if has_ell and len(es) < ell_rank:
            pos = labels.index(".")
            a = unsqueeze(ctx, a, list(range(pos, pos + ell_rank - len(es))))
        inputs.append(ctx.cast(ctx.cast(a, dt), run))
    value = ctx.op("Einsum", *inputs, equation=lhs + "->" + rhs)
    if run.kind in "iu" and reduced:
        full = Array(value, run, tuple(shape) + tuple(sizes[lab] for lab in reduced))
        return _finish(ctx, _sum_trailing(ctx, full, len(shape)), dt)
    return _finish(ctx, Array(value, run, tuple(shape)), dt)
