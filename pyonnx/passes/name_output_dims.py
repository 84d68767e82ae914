"""Names the output dimensions that derive from the input dimensions (``x_0*x_0``, ``a_0 + b_0``).

Input: a serialized ``onnx.ModelProto`` whose inputs carry symbolic dimension names (``x_0``...).
Output: the same model, changed in place: each graph output dimension that was unknown and that
onnx's shape inference gives as an input dimension name (``N`` carried through elementwise
ops, reductions, ``Concat``), or onnxruntime's symbolic shape inference expresses as a product
or sum of input dimensions, gets that name or expression as its ``dim_param``. Nothing else of the model changes (the inferred model's
intermediate value infos are not copied), so the model's meaning and validity are untouched.

Only what is true for every input size is kept: an expression with a subtraction or a ``max``/
``min``/``floor``/``mod`` (``a_0 - 1`` for ``a[1:]`` is ``max(a_0 - 1, 0)`` in numpy) stays
unknown, as does anything naming a dimension the inference made up (``unk__3``). Run it last, on
models meant to be read or deployed (``to_onnx``, ``save``, ``show``); the compiled call path does
not need it and skips its cost (tens of milliseconds).
"""

from __future__ import annotations

import re

import onnx

__all__ = ["name_output_dims"]

# Sums and products of names, positive integers and parentheses (``x_0**2``, ``3*a_0``): no
# subtraction, division or function (``Max``, ``floor``), whose value numpy clamps or rounds.
_MONOTONE = re.compile(r"^[\w.\s+*()]+$")
_NAME = re.compile(r"[A-Za-z_][\w.]*")


def name_output_dims(model: onnx.ModelProto) -> onnx.ModelProto:
    """Fills unknown output dimensions with expressions of input dimension names, where known.

    Returns ``model`` (changed in place). A model the symbolic inference cannot read (an op it
    does not know, a custom domain) is returned unchanged: the names are a convenience, never a
    reason to fail a conversion.
    """
    unknown = [(o, i) for o in model.graph.output if o.type.HasField("tensor_type")
               for i, d in enumerate(o.type.tensor_type.shape.dim)
               if not d.HasField("dim_value") and not d.HasField("dim_param")]
    if not unknown:
        return model
    names = {d.dim_param for v in model.graph.input if v.type.HasField("tensor_type")
             for d in v.type.tensor_type.shape.dim if d.HasField("dim_param")}
    # onnx's own inference carries input dimension names through most ops (elementwise,
    # reductions, Concat, Unsqueeze) and fails less often than onnxruntime's symbolic one
    # (which gives up on a whole model for one value it cannot type); the symbolic one then
    # names what is left with sums and products.
    unknown = _named_by_onnx(model, unknown, names)
    if not unknown:
        return model
    inferred = _infer(model)
    if inferred is None:
        return model
    outputs = {o.name: o for o in inferred.graph.output}
    for out, i in unknown:
        got = outputs.get(out.name)
        if got is None or not got.type.HasField("tensor_type"):
            continue
        dims = got.type.tensor_type.shape.dim
        if i >= len(dims) or len(dims) != len(out.type.tensor_type.shape.dim):
            continue
        expr = dims[i].dim_param if dims[i].HasField("dim_param") else ""
        if expr and _MONOTONE.match(expr) and set(_NAME.findall(expr)) <= names:
            out.type.tensor_type.shape.dim[i].dim_param = expr
    return model


def _named_by_onnx(model: onnx.ModelProto, unknown: list, names: set[str]) -> list:
    """Names the dimensions in ``unknown`` (output, index) that onnx's shape inference (with
    data propagation) gives as one input dimension name; returns the ones still unknown."""
    copy = onnx.ModelProto()
    copy.CopyFrom(model)
    try:
        inferred = onnx.shape_inference.infer_shapes(copy, data_prop=True)
    except Exception:  # noqa: BLE001 - an optional annotation never fails a conversion
        return unknown
    outputs = {o.name: o for o in inferred.graph.output}
    left = []
    for out, i in unknown:
        got = outputs.get(out.name)
        dims = got.type.tensor_type.shape.dim if got is not None and got.type.HasField(
            "tensor_type") else ()
        if len(dims) == len(out.type.tensor_type.shape.dim) and dims[i].dim_param in names:
            out.type.tensor_type.shape.dim[i].dim_param = dims[i].dim_param
        else:
            left.append((out, i))
    return left


def _infer(model: onnx.ModelProto) -> onnx.ModelProto | None:
    """onnxruntime's symbolic shape inference of a copy of ``model``, or None when it fails."""
    try:
        from onnxruntime.tools.symbolic_shape_infer import SymbolicShapeInference
    except ImportError:  # pragma: no cover - onnxruntime builds without its tools
        return None
    copy = onnx.ModelProto()
    copy.CopyFrom(model)
    # SymbolicShapeInference.infer_shapes, step by step: on an incomplete inference it saves
    # "sym_shape_infer_temp.onnx" (and .data files) into the working directory before raising,
    # and the user's directory is not ours to write (its steps are stable since onnxruntime 1.8).
    try:
        inference = SymbolicShapeInference(2**31 - 1, False, False, 0)
        inference._preprocess(copy)
        complete = False
        while inference.run_:
            complete = inference._infer_impl()
        inference._update_output_from_vi()
        return inference.out_mp_ if complete else None
    except Exception:  # noqa: BLE001 - any failure of an optional annotation keeps the model as is
        return None
