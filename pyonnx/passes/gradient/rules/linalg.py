"""VJP rules of products: MatMul, Gemm, Einsum."""

from __future__ import annotations

import re

import onnx_ir as ir

from pyonnx.passes.gradient.registry import vjp
from pyonnx.passes.gradient.rules.common import _inputs

__all__: list[str] = []


# ------------------------------------------------------------------ products
def _swap_last(b, v, rank):
    perm = list(range(rank))
    perm[-2], perm[-1] = perm[-1], perm[-2]
    return b.op("Transpose", v, perm=perm)


@vjp("MatMul")
def _matmul(b, node, gs):
    """numpy matmul: 1-D operands are promoted (a row for the left, a column for the right),
    batch dimensions broadcast and are summed back."""
    g = gs[0]
    x, y = node.inputs
    rx, ry = b.need_rank(x), b.need_rank(y)
    if rx == 1 and ry == 1:
        return [b.op("Mul", g, y) if b.needs(0) else None,
                b.op("Mul", g, x) if b.needs(1) else None]
    xd, yd = b.dims(x), b.dims(y)
    gd = b.dims(node.outputs[0])
    X = b.op("Unsqueeze", x, b.ints([0])) if rx == 1 else x
    Y = b.op("Unsqueeze", y, b.ints([-1])) if ry == 1 else y
    G = g
    if rx == 1:
        G = b.op("Unsqueeze", G, b.ints([-2]))
    if ry == 1:
        G = b.op("Unsqueeze", G, b.ints([-1]))
    pxd = (1,) + tuple(xd) if rx == 1 else tuple(xd)
    pyd = tuple(yd) + (1,) if ry == 1 else tuple(yd)
    rg = max(len(pxd), len(pyd))
    if gd is not None:
        gd = tuple(gd)
        if rx == 1:
            gd = gd[:-1] + (1,) + gd[-1:] if ry != 1 else gd + (1, 1)
        if ry == 1 and rx != 1:
            gd = gd + (1,)
    gx = gy = None
    if b.needs(0):
        full = b.op("MatMul", G, _swap_last(b, Y, len(pyd)))
        fd = None if gd is None else gd[:-2] + (pxd[-2], pxd[-1])
        gx = b.sum_to(full, X, fd, pxd) if len(pxd) < rg or _batch(pxd) else full
        if rx == 1:
            gx = b.op("Reshape", gx, b.shape(x))
    if b.needs(1):
        full = b.op("MatMul", _swap_last(b, X, len(pxd)), G)
        fd = None if gd is None else gd[:-2] + (pyd[-2], pyd[-1])
        gy = b.sum_to(full, Y, fd, pyd) if len(pyd) < rg or _batch(pyd) else full
        if ry == 1:
            gy = b.op("Reshape", gy, b.shape(y))
    return [gx, gy]


def _batch(dims) -> bool:
    return len(dims) > 2


@vjp("Gemm")
def _gemm(b, node, gs):
    g = gs[0]
    A, B, C = _inputs(node, 3)
    alpha = node.attributes.get_float("alpha", 1.0)
    beta = node.attributes.get_float("beta", 1.0)
    ta, tb = node.attributes.get_int("transA", 0), node.attributes.get_int("transB", 0)
    y = node.outputs[0]
    ga = gb = gc = None
    if b.needs(0):
        # Y = op(A) op(B): d op(A) = g op(B)^T
        ga = b.op("Gemm", g, B, alpha=alpha, transB=1 - tb) if not ta else \
            b.op("Gemm", B, g, alpha=alpha, transA=tb, transB=1)
    if b.needs(1):
        gb = b.op("Gemm", A, g, alpha=alpha, transA=1 - ta) if not tb else \
            b.op("Gemm", g, A, alpha=alpha, transA=1, transB=ta)
    if C is not None and b.needs(2):
        gc = b.sum_to(b.op("Mul", g, b.scalar(beta, y)) if beta != 1.0 else g, C)
    return [ga, gb, gc]


_TERM = re.compile(r"\.\.\.|[A-Za-z]")


@vjp("Einsum")
def _einsum(b, node, gs):
    """For operand i: the einsum of the output cotangent with the other operands onto i's
    labels; labels only i has (summed in i alone) are broadcast back with Expand."""
    g = gs[0]
    eq = node.attributes.get_string("equation").replace(" ", "")
    if "->" not in eq:
        raise b.error("the gradient of an implicit-output Einsum is not supported")
    lhs, out = eq.split("->")
    terms = lhs.split(",")
    parsed = [_TERM.findall(t) for t in terms]
    out_labels = _TERM.findall(out)
    results: list[ir.Value | None] = []
    for i, x in enumerate(node.inputs):
        if not b.needs(i):
            results.append(None)
            continue
        labels = parsed[i]
        if len(set(labels)) != len(labels):
            raise b.error(f"the gradient of Einsum '{eq}' (repeated label in operand {i}: a "
                          "diagonal) is not supported")
        elsewhere = set(out_labels)
        for j, p in enumerate(parsed):
            if j != i:
                elsewhere |= set(p)
        kept = [lab for lab in labels if lab in elsewhere]
        others = [j for j in range(len(terms)) if j != i]
        spec = ",".join(["".join(out_labels)] + [terms[j] for j in others]) + "->" + "".join(kept)
        r = b.op("Einsum", g, *[node.inputs[j] for j in others], equation=spec)
        if len(kept) != len(labels):
            missing = [k for k, lab in enumerate(labels) if lab not in elsewhere]
            if "..." in labels:
                raise b.error(f"the gradient of Einsum '{eq}' (a label summed in one operand "
                              "next to '...') is not supported")
            r = b.op("Expand", b.op("Unsqueeze", r, b.ints(missing)), b.shape(x))
        elif "..." in labels:
            # '...' dims of size 1 in this operand broadcast against the others: sum them back.
            r = b.sum_to(r, x, None, None)
        results.append(r)
    return results
