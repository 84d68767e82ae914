"""One differentiation step of a transformed function (grad, jacobian, vjp with respect to chosen
arguments), applied to the converted model."""

from __future__ import annotations

import dataclasses
from collections.abc import Sequence

import numpy as np

from pyonnx.errors import ConversionError


# ------------------------------------------------------------------ steps
@dataclasses.dataclass(frozen=True)
class _Step:
    """One differentiation applied to the converted model.

    kind: "grad", "value_and_grad", "jacobian" or "vjp"; argnums: int or tuple of ints
    (for "vjp": the tuple of differentiated positions, decided per signature).
    """

    kind: str
    argnums: int | tuple[int, ...]

    @property
    def indices(self) -> tuple[int, ...]:
        return (self.argnums,) if isinstance(self.argnums, int) else tuple(self.argnums)

    def apply(self, converted, params: list, cotangents: Sequence = (), nested: bool = False):
        """Converted → Converted with the derivative outputs. ``nested``: another
        differentiation step follows this one."""
        from pyonnx.frontend.convert import Converted, OutputStructure
        from pyonnx.passes.gradient.entry import differentiate, differentiate_jacobian
        from pyonnx.passes.pipeline import optimize

        from pyonnx.passes.lower_setitem import LowerSetItemPass

        name = self.kind
        if converted.model.metadata_props.get("pyonnx.complex_values"):
            # The pairs of real values would differentiate as real arithmetic (jax's
            # convention for real-valued functions), but complex arguments, results and the
            # DFT have no rule here yet: refused rather than a gradient of the packed form.
            raise ConversionError(
                f"{name} of {_fn_name(converted.model)}: the function computes with complex "
                "values, which differentiation does not support yet; differentiate a function "
                "of real values only")
        inputs = _input_indices(params, self.indices, name)
        wrt_params = [params[i] for i in self.indices]
        # Item assignment (pyonnx.SetItem) becomes ScatterND & co., which have VJP rules:
        # GradientPass requires no pseudo-op left. (optimize runs it first too; explicit here
        # because differentiation depends on it.) Then unique names, a simpler forward graph.
        from pyonnx.check_protocol import strip

        # Run-time checks (raise/assert on values) are not differentiated: their outputs go
        # (first: they are the last outputs, after the written arguments').
        strip(converted.model)
        structure = converted.structure
        # the return statement: where the refusals of the returned value point
        at = getattr(structure, "loc", None)

        def kind(k: str) -> OutputStructure:  # the next step's refusals point there too
            return OutputStructure(k, loc=at)
        if _may_be_none(getattr(structure, "tree", None)):
            raise ConversionError(
                f"{name} of {_fn_name(converted.model)}: the function may return None (a 'not "
                "found yet' value returned as it is, e.g. 'best' after a loop that ran 0 "
                "times), which has no derivative; return a number on every path", at)
        flags = _python_flags(getattr(structure, "tree", None))
        if flags:
            # A result that is a Python number on some paths only (s = 0.0 before a loop that
            # may run 0 times) has a flag output saying which (frontend/convert.py "pyleaf"):
            # a transformed function returns numpy values, so the flags go.
            outs = converted.model.graph.outputs
            for i in sorted(flags, reverse=True):
                del outs[i]
            structure = type(structure)(str(structure), getattr(structure, "writeback", ()))
        written = getattr(structure, "writeback", ())
        if written:
            # A function that also writes into its arguments: the derivative is of its result
            # (the last outputs are the written arguments' final values, which a transformed
            # function does not write back: it is pure, as jax's are).
            outs = converted.model.graph.outputs
            del outs[len(outs) - len(written):]
            structure = str(structure)
        model = optimize(LowerSetItemPass()(converted.model).model)
        if self.kind in ("grad", "value_and_grad"):
            if structure != "single":
                raise ConversionError(
                    f"{name} requires a function returning one scalar, but "
                    f"{_fn_name(model)} returns a tuple of {len(model.graph.outputs)} values", at)
            names = [f"grad_{p.name}" for p in wrt_params]
            keep = self.kind == "value_and_grad"
            differentiate(model, inputs, keep_outputs=keep, names=names, nested=nested,
                          out_loc=at)
            grads = tuple(p.spec.ndim == 0 for p in wrt_params)
            if keep:
                return Converted(model, kind("tuple"), (converted.output_is_scalar[0], *grads))
            if isinstance(self.argnums, int):
                return Converted(model, kind("single"), grads)
            return Converted(model, kind("tuple"), grads)
        if self.kind == "jacobian":
            if structure != "single":
                raise ConversionError("jacobian needs a function returning one array, not a "
                                      "tuple", at)
            out_rank = 0 if converted.output_is_scalar[0] else None
            differentiate_jacobian(model, inputs, names=[f"jacobian_{p.name}"
                                                         for p in wrt_params], nested=nested,
                                  out_loc=at)
            scal = tuple(out_rank == 0 and p.spec.ndim == 0 for p in wrt_params)
            if isinstance(self.argnums, int):
                return Converted(model, kind("single"), scal)
            return Converted(model, kind("tuple"), scal)
        # vjp: one cotangent input per output, one output per differentiated primal.
        import onnx_ir as ir

        from pyonnx.frontend.graph import dtypes

        outs = list(model.graph.outputs)
        if len(cotangents) != len(outs):
            raise ConversionError(f"vjp: the function has {len(outs)} outputs but "
                                  f"{len(cotangents)} cotangents were given")
        ct_values = []
        for k, (p, out) in enumerate(zip(cotangents, outs)):
            want = out.dtype
            if want is not None and dtypes.to_ir(p.spec.dtype) != want:
                raise ConversionError(
                    f"vjp: cotangent {k} has dtype {p.spec.dtype}, but the output it stands for "
                    f"has dtype {want.numpy()}; pass a cotangent of the output's dtype")
            if out.shape is not None and len(out.shape) != p.spec.ndim:
                raise ConversionError(
                    f"vjp: cotangent {k} has rank {p.spec.ndim}, but its output has rank "
                    f"{len(out.shape)}")
            ct_values.append(ir.Value(name=p.name, shape=ir.Shape(p.spec.shape),
                                      type=ir.TensorType(dtypes.to_ir(p.spec.dtype))))
        differentiate(model, inputs, cotangents=ct_values,
                      names=[f"vjp_{p.name}" for p in wrt_params], nested=nested)
        return Converted(model, kind("tuple"), tuple(p.spec.ndim == 0 for p in wrt_params))


def _fn_name(model) -> str:
    return model.graph.name or "the function"


def _input_indices(params: list, argnums: Sequence[int], name: str) -> list[int]:
    """Graph input index of each argument (static arguments are no inputs)."""
    position = {}
    k = 0
    for i, p in enumerate(params):
        if p.kind != "static":
            position[i] = k
            k += 1
    result = []
    for i in argnums:
        if i >= len(params) or i < -len(params):
            raise ConversionError(f"{name}: argnums {i} is out of range for a function of "
                                  f"{len(params)} arguments")
        i %= len(params)
        p = params[i]
        if p.kind == "static":
            raise ConversionError(
                f"{name} cannot differentiate with respect to argument '{p.name}': its value is "
                "used at conversion time (a static argument, or a Python number that decides "
                "shapes or control flow); pass a float array")
        dt = p.spec.dtype
        if dt.kind != "f":
            raise ConversionError(
                f"{name} requires real-valued (float) inputs, but argument '{p.name}' has dtype "
                f"{dt}; differentiate with respect to float arrays or Python floats (e.g. pass "
                "x.astype(np.float64))")
        result.append(position[i])
    return result


def _may_be_none(tree) -> bool:
    """Whether an output tree (frontend.convert.OutputStructure.tree) holds a possibly-None
    number (``("maybe", flag, child)``)."""
    if not isinstance(tree, tuple):
        return False
    return (bool(tree) and tree[0] == "maybe") or any(_may_be_none(c) for c in tree)


def _python_flags(tree) -> list[int]:
    """The output indices of the "is a Python number" flags in an output tree
    (``("pyleaf", value, flag)`` nodes)."""
    if not isinstance(tree, tuple):
        return []
    if tree and tree[0] in ("pyleaf", "aleaf"):
        return [tree[2]]
    return [i for c in tree for i in _python_flags(c)]
