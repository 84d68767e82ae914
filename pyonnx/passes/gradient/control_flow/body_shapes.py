"""Shapes in a Loop body that hold on every iteration (for the Loop VJP's records)."""

from __future__ import annotations

import onnx_ir as ir

from pyonnx.passes.gradient.backward import Backward
from pyonnx.passes.gradient.graphs import _captures

__all__: list[str] = []


class _BodyShapes:
    """Shapes in a Loop body that hold on every iteration.

    ONNX shape inference runs on the body alone, each state input declared with the shape of
    its initial value (unknown dims as fresh symbols) and captured values with theirs
    (constants with their values). A state whose output comes back with the same dims keeps
    that shape on every iteration (by induction): ``invariant[j]``. A state whose output has
    other dims is declared with those and the body inferred again: if they come back, the
    state keeps them from iteration 1 on (``eventual[j]``: an RNN's ``h = tanh(W @ h + ...)``
    has ``W``'s rows after the first iteration, whatever ``h0``'s symbolic size was).

    When every state is one or the other, a body value inferred with the same dims both ways,
    made only of ints and declared symbols, has that shape on every iteration (``fixed(v)``);
    a data-dependent size is a new symbol and does not qualify.
    """

    def __init__(self, b: Backward, node: ir.Node):
        body: ir.Graph = node.attributes["body"].value
        n = len(node.inputs) - 2
        self.invariant = [body.outputs[1 + j] is body.inputs[2 + j] for j in range(n)]
        self.eventual = [False] * n
        self.symbols: set[str] = set()
        self.dims: dict[str, tuple] = {}
        self._second: dict[str, tuple] | None = None
        inits = list(node.inputs[2:])
        first = [b.dims(v) for v in inits]
        self.dims = self._infer(b, node, body, first) or {}
        outs = [self.dims.get(body.outputs[1 + j].name or "") for j in range(n)]
        again = list(self._declared)
        for j in range(n):
            if self.invariant[j] or self._declared[j] is None or outs[j] is None:
                continue
            if outs[j] == self._declared[j]:
                self.invariant[j] = True
            elif all(d is not None for d in outs[j]):
                # Symbols inference made up are renamed: the second run makes up its own.
                again[j] = tuple(d if isinstance(d, int) or d in self.symbols
                                 else f"__eventual{j}_{d}" for d in outs[j])
        if again != self._declared:
            declared = self._declared
            second = self._infer(b, node, body, again) or {}
            self._second = second
            for j in range(n):
                if again[j] != declared[j] and again[j] is not None:
                    self.eventual[j] = second.get(body.outputs[1 + j].name or "") == again[j]
            self._declared = declared

    def fixed(self, v: ir.Value) -> bool:
        if not all(i or e for i, e in zip(self.invariant, self.eventual)):
            return False
        dims = self.dims.get(v.name or "")
        if dims is None or not all(isinstance(d, int) or d in self.symbols for d in dims):
            return False
        return self._second is None or self._second.get(v.name or "") == dims

    def _infer(self, b: Backward, node: ir.Node, body: ir.Graph,
               state_dims: list) -> dict[str, tuple] | None:
        """Body value name → inferred dims, the states declared with ``state_dims``."""
        import onnx

        n = len(state_dims)
        self._declared: list[tuple | None] = [None] * n
        try:
            proto = ir.serde.serialize_graph(body)
        except Exception:  # noqa: BLE001 - an optimization: records fall back to sequences
            return None

        def declare(vi, dims, fresh: str) -> tuple:
            dims = tuple(d if d is not None else f"{fresh}{k}" for k, d in enumerate(dims))
            tt = vi.type.tensor_type
            tt.ClearField("shape")
            tt.shape.SetInParent()
            for d in dims:
                dim = tt.shape.dim.add()
                if isinstance(d, int):
                    dim.dim_value = d
                else:
                    dim.dim_param = d
                    self.symbols.add(d)
            return dims

        for j in range(n):
            vi = proto.input[2 + j]
            if state_dims[j] is not None and vi.type.HasField("tensor_type"):
                self._declared[j] = declare(vi, state_dims[j], f"__state{j}_")
        for c in _captures(node):
            if c.const_value is not None:
                tensor = ir.serde.serialize_tensor(c.const_value)
                tensor.name = c.name
                proto.initializer.append(tensor)
                continue
            dt = b.dtype(c)
            if dt is None or not isinstance(c.type, (ir.TensorType, type(None))):
                continue
            vi = onnx.helper.make_tensor_value_info(c.name, int(dt), None)
            dims = b.dims(c)
            if dims is not None:
                declare(vi, dims, f"__capture_{c.name}_")
            proto.input.append(vi)
        opsets = [onnx.helper.make_opsetid(domain, version)
                  for domain, version in b.model.opset_imports.items()]
        model = onnx.helper.make_model(proto, opset_imports=opsets,
                                       ir_version=b.model.ir_version)
        try:
            inferred = onnx.shape_inference.infer_shapes(model, strict_mode=False,
                                                         data_prop=True)
        except Exception:  # noqa: BLE001 - an optimization: records fall back to sequences
            return None
        dims: dict[str, tuple] = {}
        for vi in (*inferred.graph.value_info, *inferred.graph.output):
            tt = vi.type.tensor_type if vi.type.HasField("tensor_type") else None
            if tt is not None and tt.HasField("shape"):
                dims[vi.name] = tuple(
                    d.dim_value if d.HasField("dim_value") else (d.dim_param or None)
                    for d in tt.shape.dim)
        return dims
