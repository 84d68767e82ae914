"""TransformedFunction: a compiled function whose model goes through differentiation steps, and
its inlining when called inside another compiled function."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from pyonnx.api import CompiledFunction, _build_model
from pyonnx.errors import ConversionError
from pyonnx.transforms.steps import _Step

__all__ = ["TransformedFunction"]


# ------------------------------------------------------------------ compiled functions
class TransformedFunction(CompiledFunction):
    """A compiled function whose model is differentiated after conversion.

    Attributes:
        steps: the differentiations applied, innermost first.
    """

    def __init__(self, fn: Callable[..., Any], steps: tuple[_Step, ...], **options: Any):
        super().__init__(fn, **options)
        self.steps = steps

    def _build(self, params: list):
        last = len(self.steps) - 1
        steps = [lambda c, s=s, k=k: s.apply(c, params, nested=k < last)
                 for k, s in enumerate(self.steps)]
        return _build_model(self.fn, params, self.opset, steps)

    def __repr__(self) -> str:
        kinds = "".join(f"{s.kind}(" for s in reversed(self.steps))
        return f"<pyonnx.{kinds}{self.fn.__qualname__}{')' * len(self.steps)}>"

    def _model_for(self, params: list):
        """(optimized ir.Model, Converted) for ``params``: the model ``_build`` serializes."""
        from pyonnx.frontend.convert import convert
        from pyonnx.passes.pipeline import optimize

        converted = convert(self.fn, params, self.opset)
        for k, s in enumerate(self.steps):
            converted = s.apply(converted, params, nested=k < len(self.steps) - 1)
        return optimize(converted.model), converted

    def _pack(self, outputs: list, structure: str) -> Any:
        """The model's outputs as this function returns them (see ``__call__``)."""
        return outputs[0] if structure == "single" else tuple(outputs)

    def __pyonnx_call__(self, lowering, args: list, kwargs: dict) -> Any:
        """A call inside a function being converted (``value, grads = step(w, x, y)`` in a
        compiled training loop): the derivative model for the arguments' types, converted as
        a call would convert it, then its nodes inlined into the graph being built, so the
        caller stays one model.

        Raises:
            ConversionError: (at the call) an argument holds arrays in a container, or a
                Python-number argument would have to be known at conversion time.
        """
        return _inline_call(self, lowering, args, kwargs)


class _NestedGrads(TransformedFunction):
    """``value_and_grad`` with a tuple ``argnums``: the flat ``(value, g0, g1...)`` of the
    model returned as jax does, ``(value, (g0, g1...))``."""

    def __call__(self, *args: Any, **kwargs: Any) -> Any:
        out = self._call(*args, **kwargs)
        return out[0], tuple(out[1:])

    def _pack(self, outputs: list, structure: str) -> Any:
        return outputs[0], tuple(outputs[1:])


def _inline_call(f: TransformedFunction, lowering, args: list, kwargs: dict) -> Any:
    """:meth:`TransformedFunction.__pyonnx_call__`: returns frontend Arrays."""
    import onnx_ir as ir

    from pyonnx.frontend.convert import Param
    from pyonnx.frontend.graph.context import NeedStatic, NeedStaticShapes
    from pyonnx.frontend.graph.values import Array, is_static
    from pyonnx.specs import spec

    ctx = lowering.ctx
    try:
        bound = f._signature.bind(*args, **kwargs)
    except TypeError as e:
        raise ctx.error(f"{f!r}: {e}") from None
    bound.apply_defaults()
    params: list = []
    arrays: dict[str, Array] = {}
    for name, a in bound.arguments.items():
        if isinstance(a, Array):
            if name in f.static_argnames:
                raise ctx.error(f"{f!r}: argument '{name}' is static, so its value must be known "
                                "at conversion time, but it is an array computed in the model")
            dims = tuple(d if isinstance(d, int) else f"{name}_{k}" for k, d in enumerate(a.shape))
            params.append(Param(name, "scalar" if a.weak else "tensor", spec=spec(a.dtype, dims)))
            arrays[name] = a
        elif is_static(a):
            params.append(Param(name, "static", value=a))
        else:
            raise ctx.error(f"{f!r}: argument '{name}' holds arrays in a container; pass each "
                            "array as an argument of its own")
    try:
        model, converted = f._model_for(params)
    except NeedStaticShapes as e:
        raise e.error from None
    except NeedStatic as e:
        raise ctx.error(f"{f!r} needs the value of its argument(s) "
                        f"{', '.join(sorted(e.argnames))} at conversion time, but the call "
                        "passes a value computed in the model; pass a literal") from None
    if getattr(converted.structure, "writeback", ()):
        raise ctx.error(f"{f!r} writes into its array arguments, which a call inside a compiled "
                        "function cannot do; return the new values instead")
    graph = model.graph
    mapping: dict[ir.Value, ir.Value] = {}
    for inp, name in zip(graph.inputs, arrays):
        mapping[inp] = arrays[name].value
    for init in list(graph.initializers.values()):
        arr = init.const_value.numpy()
        mapping[init] = ctx.const(arr, arr.dtype)
    outputs = list(graph.outputs)
    graph.outputs.clear()
    for old, new in mapping.items():
        old.replace_all_uses_with(new)
    nodes = list(graph)
    graph.remove(nodes)
    for node in nodes:
        _rename(ctx, node, mapping)
        ctx.nodes.append(node)
    results = []
    for v in outputs:
        value = mapping.get(v, v)
        if v.shape is None or v.dtype is None:
            raise ctx.error(f"{f!r}: the rank of its output '{v.name}' is unknown")
        shape = []
        for d in v.shape:
            d = d if isinstance(d, int) else getattr(d, "value", None)
            if isinstance(d, str) and d.rpartition("_")[0] in arrays:
                name, _, k = d.rpartition("_")
                d = arrays[name].shape[int(k)]
            shape.append(d if isinstance(d, int) else None)
        if value.producer() is None or value in (r.value for r in results):
            value = ctx.op("Identity", value)
        results.append(Array(value, v.dtype.numpy(), tuple(shape)))
    return f._pack(results, str(converted.structure))


def _rename(ctx, node, mapping: dict) -> None:
    """Fresh value names for an inlined node's outputs (and its subgraphs' values); composite
    marks (``meta["pyonnx.derivative"]``) follow the inputs and constants replaced."""
    import onnx_ir as ir

    mark = node.meta.get("pyonnx.derivative")
    if mark is not None:
        node.meta["pyonnx.derivative"] = (mark[0], [mapping.get(x, x) for x in mark[1]])
    for out in node.outputs:
        if out.name:
            out.name = ctx.fresh_name(out.name)
    for attr in node.attributes.values():
        graphs = [attr.value] if attr.type == ir.AttributeType.GRAPH else \
            list(attr.value) if attr.type == ir.AttributeType.GRAPHS else []
        for g in graphs:
            for v in g.inputs:
                if v.name:
                    v.name = ctx.fresh_name(v.name)
            for n in g:
                _rename(ctx, n, mapping)
