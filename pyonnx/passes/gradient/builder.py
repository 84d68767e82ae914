"""What VJP rules emit with: names, nodes, constants, types, broadcasting helpers."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import numpy as np
import onnx_ir as ir

from pyonnx.passes.gradient.graphs import _all_names
from pyonnx.passes.gradient.types import _LOC, FLOAT_TYPES, Dims, infer_types

__all__ = ["Builder"]


class Builder:
    """The emitting half of :class:`~pyonnx.passes.gradient.backward.Backward`: fresh names,
    nodes, constants, value types, and the shape helpers VJP rules build with.

    Attributes: see :class:`~pyonnx.passes.gradient.backward.Backward`.
    """

    def __init__(self, model: ir.Model, info: dict[str, tuple[Any, Any]] | None = None,
                 names: set[str] | None = None):
        self.model = model
        self.info = info if info is not None else infer_types(model)
        self.nodes: list[ir.Node] = []
        self.node: ir.Node | None = None
        self._needs: list[bool] = []
        self._names = names if names is not None else _all_names(model)
        self._counter = 0
        self._consts: dict[tuple, ir.Value] = {}
        self._shapes: dict[tuple, ir.Value] = {}
        self._extra: dict[ir.Value, tuple[Any, Any]] = {}  # types of values made here
        # The current walk's activity (read by the control-flow rules).
        self._varied: set[ir.Value] = set()
        self._wanted_captures: set[ir.Value] = set()

    # ---------------------------------------------------------------- names
    def fresh(self, base: str = "grad") -> str:
        while True:
            self._counter += 1
            name = f"{base}{self._counter}"
            if name not in self._names:
                self._names.add(name)
                return name

    # ---------------------------------------------------------------- emitting
    def op(self, op_type: str, *inputs: ir.Value | None, outputs: int = 1,
           copy_attrs: ir.Node | None = None, dtype: ir.DataType | None = None,
           dims: Dims | None = None, **attrs: Any) -> Any:
        """Emits one node (attributes: Python values; ``copy_attrs``: a node whose attributes
        are copied first). ``dtype``/``dims`` record the result's type when the rule knows it.
        Returns the output value, or a tuple of them."""
        if op_type == "Reshape" and "allowzero" not in attrs and inputs[1] is not None:
            target = inputs[1].const_value
            if target is None or -1 not in target.numpy():
                # Targets here are shapes of real values: a 0 is an empty dim, not "copy".
                attrs["allowzero"] = 1
        attributes = []
        if copy_attrs is not None:
            attributes += [a for name, a in copy_attrs.attributes.items() if name not in attrs]
        attributes += ir.convenience.convert_attributes(
            {k: v for k, v in attrs.items() if v is not None})
        inputs_ = list(inputs)
        while inputs_ and inputs_[-1] is None:    # omitted trailing optional inputs
            inputs_.pop()
        fwd = self.node
        base = fwd.name if fwd is not None and fwd.name else "grad"
        node = ir.Node("", op_type, inputs_, attributes, num_outputs=outputs,
                       name=self.fresh(f"{base}_vjp_{op_type}_"))
        if fwd is not None:
            loc = fwd.meta.get(_LOC)
            if loc is not None:
                node.meta[_LOC] = loc
            if fwd.doc_string:
                node.doc_string = fwd.doc_string
        for out in node.outputs:
            out.name = self.fresh()
        if dtype is not None or dims is not None:
            for out in node.outputs:
                self._extra[out] = (dtype, dims)
                if dtype is not None:
                    out.type = ir.TensorType(dtype)
        self.nodes.append(node)
        return node.outputs[0] if outputs == 1 else tuple(node.outputs)

    def const(self, array: Any, dtype: Any = None) -> ir.Value:
        """A main-graph initializer holding ``array`` (shared by value)."""
        arr = np.asarray(array, dtype=dtype)
        key = (arr.dtype.str, arr.shape, arr.tobytes())
        value = self._consts.get(key)
        if value is None:
            value = ir.Value(name=self.fresh("grad_const"), shape=ir.Shape(arr.shape),
                             type=ir.TensorType(ir.DataType.from_numpy(arr.dtype)),
                             const_value=ir.tensor(arr))
            self.model.graph.register_initializer(value)
            self._consts[key] = value
            self._extra[value] = (ir.DataType.from_numpy(arr.dtype), arr.shape)
        return value

    def ints(self, values: Sequence[int]) -> ir.Value:
        return self.const(np.asarray(list(values), np.int64))

    def scalar(self, x: float, like: ir.Value) -> ir.Value:
        """A 0-d constant ``x`` of ``like``'s dtype (CastLike when the dtype is unknown)."""
        dt = self.dtype(like)
        if dt is None:
            return self.op("CastLike", self.const(np.float64(x)), like)
        return self.const(np.asarray(x, dtype=dt.numpy()))

    # ---------------------------------------------------------------- types
    def dtype(self, v: ir.Value) -> ir.DataType | None:
        extra = self._extra.get(v)
        if extra is not None and extra[0] is not None:
            return extra[0]
        if v.dtype is not None:
            return v.dtype
        found = self.info.get(v.name) if v.name else None
        return found[0] if found else None

    def dims(self, v: ir.Value) -> Dims | None:
        extra = self._extra.get(v)
        if extra is not None and extra[1] is not None:
            return tuple(extra[1])
        found = self.info.get(v.name) if v.name else None
        if found is not None and found[1] is not None:
            return found[1]
        if v.shape is not None:
            return tuple(d if isinstance(d, int) else (d.value if d.value else None)
                         for d in v.shape)
        return None

    def rank(self, v: ir.Value) -> int | None:
        d = self.dims(v)
        return None if d is None else len(d)

    def need_rank(self, v: ir.Value) -> int:
        r = self.rank(v)
        if r is None:
            raise self.error(f"the gradient of {self.node.op_type} needs the rank of its "
                             f"operand '{v.name}', which shape inference could not find")
        return r

    def is_float(self, v: ir.Value) -> bool:
        return self.dtype(v) in FLOAT_TYPES

    # ---------------------------------------------------------------- helpers
    def shape(self, v: ir.Value, start: int = 0, end: int | None = None,
              rank: int | None = None) -> ir.Value:
        """``Shape(v)`` (dims ``start:end`` of a rank-``rank`` value), emitted once per value."""
        if end is not None and start == 0 and end == rank:
            end = None
        key = (v, start, end)
        s = self._shapes.get(key)
        if s is None:
            # Its length when v's rank is known: a Loop VJP that records this shape per
            # iteration gives the record that type, so a Reshape to it keeps v's rank for a
            # second differentiation (seed 42000176: MatMul's rank lost in a loop's Hessian).
            r = self.rank(v) if rank is None else rank
            n = None
            if r is not None:
                lo = start if start >= 0 else max(r + start, 0)
                hi = r if end is None else (end if end >= 0 else r + end)
                n = max(min(hi, r) - min(lo, r), 0)
            s = self._shapes[key] = self.op("Shape", v, start=start or None, end=end,
                                            dtype=ir.DataType.INT64,
                                            dims=None if n is None else (n,))
        return s

    def zeros_like(self, v: ir.Value) -> ir.Value:
        dt = self.dtype(v)
        if dt is None:
            return self.op("Mul", v, self.scalar(0.0, v))  # pragma: no cover - typed models
        return self.op("ConstantOfShape", self.shape(v),
                       value=ir.tensor(np.zeros(1, dt.numpy())), dtype=dt, dims=self.dims(v))

    def add(self, a: ir.Value, b: ir.Value) -> ir.Value:
        return self.op("Add", a, b)

    def iota(self, x: ir.Value) -> ir.Value:
        """int64 positions 0..size-1 in ``x``'s shape: gathering ops applied to it tell which
        element of ``x`` each output element came from."""
        n = self.op("Size", x)
        flat = self.op("Range", self.const(np.int64(0)), n, self.const(np.int64(1)))
        return self.op("Reshape", flat, self.shape(x))

    def scatter_add_flat(self, g: ir.Value, positions: ir.Value, x: ir.Value,
                         extra_slot: bool = False) -> ir.Value | tuple[ir.Value, ir.Value]:
        """The cotangent of ``x`` for an op that moved element ``positions[j]`` of ``x`` to
        position j (``positions`` from the op applied to :meth:`iota`): ``g`` summed into a
        zero array of ``x``'s shape. With ``extra_slot`` one more slot (index ``size(x)``)
        collects the cotangent of a fill value; returns (cotangent of x, of the fill)."""
        dt = self.dtype(x)
        if dt is None:
            raise self.error(f"the gradient of {self.node.op_type} needs the dtype of "
                             f"'{x.name}'")
        # onnxruntime has no float16 scatter-add: accumulate in float32.
        run = ir.DataType.FLOAT if dt in (ir.DataType.FLOAT16, ir.DataType.BFLOAT16) else dt
        n = self.op("Size", x)
        size = self.op("Add", n, self.const(np.int64(1))) if extra_slot else n
        zeros = self.op("ConstantOfShape", self.op("Reshape", size, self.ints([1])),
                        value=ir.tensor(np.zeros(1, run.numpy())))
        gv = self.op("Reshape", g, self.ints([-1]))
        if run != dt:
            gv = self.op("Cast", gv, to=run)
        flat = self.op("ScatterElements", zeros, self.op("Reshape", positions, self.ints([-1])),
                       gv, axis=0, reduction="add")
        if run != dt:
            flat = self.op("Cast", flat, to=dt)
        if not extra_slot:
            return self.op("Reshape", flat, self.shape(x), dtype=dt, dims=self.dims(x))
        body = self.op("Slice", flat, self.ints([0]), self.op("Reshape", n, self.ints([1])))
        fill = self.op("Gather", flat, n)
        return self.op("Reshape", body, self.shape(x), dtype=dt, dims=self.dims(x)), fill

    def sum_to(self, g: ir.Value, x: ir.Value, g_dims: Any = ...,
               x_dims: Any = ...) -> ir.Value:
        """``g`` (the shape of a broadcast result) summed down to ``x``'s shape: over the
        leading axes ``x`` lacks, and over the axes where ``x`` has size 1 and the result not.

        Uses known dims to decide axes at conversion time; a dim that may or may not be 1 is
        decided at run time (``Compress`` of the candidate axes). Without ranks, everything is
        decided at run time. ``g_dims`` defaults to the dims of the current node's output,
        ``x_dims`` to those of ``x``; None means unknown.
        """
        if g_dims is ...:
            g_dims = self.dims(self.node.outputs[0]) if self.node is not None else None
        if x_dims is ...:
            x_dims = self.dims(x)
        if g_dims is None or x_dims is None:
            return self._sum_to_dynamic(g, x)
        lead = len(g_dims) - len(x_dims)
        if lead < 0:
            return self._sum_to_dynamic(g, x)
        static: list[int] = []
        dynamic: list[int] = []
        for i, d in enumerate(x_dims):
            o = g_dims[lead + i]
            if d is not None and d == o:
                continue
            if d == 1:
                static.append(lead + i)
            elif isinstance(d, int):
                continue            # a known size other than 1 never broadcasts
            else:
                dynamic.append(i)
        r = g
        if static or dynamic:
            axes = self.ints(static) if static else None
            if dynamic:
                if dynamic == list(range(dynamic[0], dynamic[-1] + 1)):
                    # Contiguous: Shape's start/end slice them (one op less than a Gather).
                    x_sizes = self.shape(x, dynamic[0], dynamic[-1] + 1, len(x_dims))
                else:
                    x_sizes = self.op("Gather", self.shape(x), self.ints(dynamic))
                ones = self.op("Equal", x_sizes, self.const(np.int64(1)))
                picked = self.op("Compress", self.ints([lead + i for i in dynamic]), ones,
                                 axis=0)
                axes = picked if axes is None else self.op("Concat", axes, picked, axis=0)
            r = self.op("ReduceSum", r, axes, keepdims=1, noop_with_empty_axes=1)
        if lead:
            r = self.op("ReduceSum", r, self.ints(range(lead)), keepdims=0)
        if r is g:
            return g
        self._extra[r] = (self.dtype(x), x_dims)
        return r

    def _sum_to_dynamic(self, g: ir.Value, x: ir.Value) -> ir.Value:
        # Ranks unknown: compare the shapes at run time (x's padded with leading 1s).
        gs, xs = self.shape(g), self.shape(x)
        rg = self.op("Size", gs)
        lead = self.op("Sub", rg, self.op("Size", xs))
        pad = self.op("ConstantOfShape", self.op("Reshape", lead, self.ints([1])),
                      value=ir.tensor(np.ones(1, np.int64)))
        padded = self.op("Concat", pad, xs, axis=0)
        differ = self.op("Not", self.op("Equal", padded, gs))
        axes = self.op("Compress", self.op("Range", self.const(np.int64(0)), rg,
                                           self.const(np.int64(1))), differ, axis=0)
        r = self.op("ReduceSum", g, axes, keepdims=1, noop_with_empty_axes=1)
        return self.op("Reshape", r, xs)
