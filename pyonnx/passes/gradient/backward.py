"""The reverse walk: :class:`Backward` runs the VJP rules over a graph (see the package
docstring for the method)."""

from __future__ import annotations

import contextlib
from collections.abc import Iterator, Sequence

import onnx_ir as ir

from pyonnx.errors import ConversionError
from pyonnx.passes.gradient.builder import Builder
from pyonnx.passes.gradient.graphs import _DERIVATIVE, _captures, _inputs, _mark_inputs
from pyonnx.passes.gradient.registry import COMPOSITE_RULES, RULES
from pyonnx.passes.gradient.types import FLOAT_TYPES, TAPE, loc_of

__all__ = ["Backward"]

_GRAPH_ATTRS = (ir.AttributeType.GRAPH, ir.AttributeType.GRAPHS)
_SEQUENCE_OPS = frozenset({"SequenceInsert", "SequenceAt", "SequenceConstruct", "SequenceErase",
                           "ConcatFromSequence", "SplitToSequence", "SequenceEmpty"})


# ------------------------------------------------------------------ the builder rules use
class Backward(Builder):
    """One reverse walk's state, and the builder VJP rules emit through.

    Rules see ``b.node`` (the forward node), ``b.needs(i)`` (whether input i wants a
    cotangent), emit with :meth:`op` and :meth:`const`, and read types with :meth:`dtype`,
    :meth:`dims`, :meth:`rank`. Emitted nodes go to ``self.nodes`` (the caller places them:
    appended to the main graph, or into a Loop body for Jacobians).

    Attributes:
        model: the model being differentiated (constants become its initializers).
        info: value name → (dtype, dims), from :func:`infer_types`.
        nodes: the emitted nodes, in order.
        nested: another differentiation follows (``jacobian(grad(f))``): loops record their
            states as stacked tensors, never as ONNX sequences, which have no VJP rules
            (see ``control_flow/loops.py``).
    """

    nested = False

    # ---------------------------------------------------------------- rule context
    def needs(self, i: int) -> bool:
        """Whether input ``i`` of the current node wants a cotangent."""
        return i < len(self._needs) and self._needs[i]

    def error(self, message: str) -> ConversionError:
        return ConversionError(message, loc_of(self.node) if self.node is not None else None)

    def needs_capture(self, v: ir.Value) -> bool:
        """Whether the captured outer value ``v`` of the current node wants a cotangent."""
        return v in self._wanted_captures

    def is_varied(self, v: ir.Value) -> bool:
        """Whether ``v`` (a value of the graph being walked) depends on a differentiated input."""
        return v in self._varied

    @contextlib.contextmanager
    def subgraph(self) -> Iterator[list[ir.Node]]:
        """Emits into a new node list (yielded) for a subgraph body: a Loop running VJPs
        (Jacobians), the bodies of the If/Loop rules. Shapes memoized inside stay inside."""
        saved = (self.nodes, self._shapes, self.node, self._needs, self._varied,
                 self._wanted_captures)
        self.nodes, self._shapes = [], dict(self._shapes)
        try:
            yield self.nodes
        finally:
            (self.nodes, self._shapes, self.node, self._needs, self._varied,
             self._wanted_captures) = saved

    def clone_graph(self, graph: ir.Graph) -> tuple[ir.Graph, dict[ir.Value, ir.Value]]:
        """A copy of ``graph`` (subgraphs included; outer values it uses are shared) with fresh
        names, and the map original value → copy. Copies keep the originals' types (for the
        rules), locations and composite marks (pointing at the copies)."""
        copy = graph.clone(allow_outer_scope_values=True)
        mapping: dict[ir.Value, ir.Value] = {}
        pairs: list[tuple[ir.Node, ir.Node]] = []

        def pair(g0: ir.Graph, g1: ir.Graph) -> None:
            mapping.update(zip(g0.inputs, g1.inputs))
            for n0, n1 in zip(g0, g1):
                pairs.append((n0, n1))
                mapping.update(zip(n0.outputs, n1.outputs))
                for a0, a1 in zip(n0.attributes.values(), n1.attributes.values()):
                    if a0.type == ir.AttributeType.GRAPH:
                        pair(a0.value, a1.value)
                    elif a0.type == ir.AttributeType.GRAPHS:
                        for s0, s1 in zip(a0.value, a1.value):
                            pair(s0, s1)

        pair(graph, copy)
        for orig, new in mapping.items():
            self._extra[new] = (self.dtype(orig), self.dims(orig))
            new.name = self.fresh(f"{orig.name or 'v'}_r")
        for n0, n1 in pairs:
            n1.name = self.fresh(f"{n0.name or n0.op_type}_r")
            mark = n1.meta.get(_DERIVATIVE)
            if mark is not None:
                n1.meta[_DERIVATIVE] = (mark[0], [mapping.get(x, x) for x in mark[1]])
        return copy, mapping

    def captures(self, node: ir.Node) -> list[ir.Value]:
        """The outer values ``node``'s subgraphs use. A rule for a node with subgraphs returns
        one cotangent per input, then one per captured value, in this order."""
        return _captures(node)

    # ---------------------------------------------------------------- the walk
    def backward(self, graph: ir.Graph, seeds: Sequence[tuple[ir.Value, ir.Value]],
                 wrt: Sequence[ir.Value], stop: frozenset = frozenset()) -> list[ir.Value | None]:
        """Cotangents of ``wrt`` given ``seeds`` (value, cotangent) on values of ``graph``.

        ``stop``: nodes of ``graph`` the walk does not go through (those that make ``wrt``
        values: a loop iteration's recorded state, whose cotangent is carried, not passed on).

        Returns one value per ``wrt`` item, None where the cotangent is symbolically zero.

        Raises:
            ConversionError: an active node's op has no VJP rule (names the op and line).
        """
        nodes = [n for n in graph if n not in stop]
        captures = {node: self.captures(node) for node in nodes
                    if any(a.type in _GRAPH_ATTRS for a in node.attributes.values())}
        # A marked node's function inputs count as its inputs (see graphs._mark_inputs).
        ins_of = {node: (*_inputs(node), *captures.get(node, ())) for node in nodes}
        varied: set[ir.Value] = {v for v in wrt if self.is_float(v)}
        for node in nodes:
            if any(v in varied for v in ins_of[node]):
                for out in node.outputs:
                    if self.dtype(out) in FLOAT_TYPES or self.dtype(out) is None:
                        varied.add(out)
        self._varied = varied
        useful: set[ir.Value] = {v for v, _ in seeds if v in varied}
        for node in reversed(nodes):
            if any(out in useful for out in node.outputs):
                useful.update(v for v in ins_of[node] if v in varied)
        cts: dict[ir.Value, ir.Value] = {}
        for v, ct in seeds:
            if v in useful:
                self._accumulate(cts, v, ct)
        for node in reversed(nodes):
            gs = [cts.get(out) for out in node.outputs]
            if all(g is None for g in gs):
                continue
            marked = self._composite(node)
            if marked is not None:
                rule, xs = marked
                self.node = node
                self._needs = []
                for v, r in zip(xs, rule(self, gs[0], xs, node.outputs[0])):
                    if r is not None and v in useful:
                        self._accumulate(cts, v, r)
                continue
            needs = [v is not None and v in useful for v in node.inputs]
            captured = [v for v in captures.get(node, ()) if v in useful]
            if not any(needs) and not captured:
                continue
            rule = RULES.get(node.op_type) if node.domain in ("", "ai.onnx") else None
            self.node = node
            if rule is None:
                what = node.op_type if node.domain in ("", "ai.onnx") else \
                    f"{node.domain}.{node.op_type}"
                hint = ""
                if node.meta.get(TAPE):
                    raise self.error(
                        "cannot differentiate the gradient of this loop again (second "
                        "derivatives): its gradient records the loop's state in an ONNX sequence "
                        "(the state's shape may change from one iteration to the next, or shape "
                        f"inference could not tell it stays fixed), and {what} has no gradient "
                        "rule: second derivatives through such a loop are not supported")
                if node.op_type in _SEQUENCE_OPS and node.domain in ("", "ai.onnx"):
                    hint = ("; gradients through lists whose length is only known at run time "
                            "(ONNX sequences) are not supported: build the values with array "
                            "operations (np.stack of a fixed number of items, item assignment "
                            "into a preallocated array)")
                raise self.error(f"cannot differentiate through {what}: no gradient (VJP) rule "
                                 f"for the ONNX op {what} that this line produces{hint}")
            self._needs = needs
            self._wanted_captures = set(captured)
            self._varied = varied
            inputs = list(node.inputs)     # (a control-flow rule may replace the node)
            results = rule(self, node, gs)
            for i, (v, r) in enumerate(zip(inputs, results)):
                if r is None or not needs[i]:
                    continue
                self._accumulate(cts, v, r)
            if captured:
                extra = results[len(inputs):]
                for v, r in zip(captures[node], extra):
                    if r is not None and v in useful:
                        self._accumulate(cts, v, r)
        self.node = None
        return [cts.get(v) for v in wrt]


    def _accumulate(self, cts: dict[ir.Value, ir.Value], v: ir.Value, ct: ir.Value) -> None:
        """Adds ``ct`` to the cotangent of ``v`` (fan-out); cotangents have ``v``'s type."""
        total = ct if v not in cts else self.add(cts[v], ct)
        if total not in self._extra:
            self._extra[total] = (self.dtype(v), self.dims(v))
        cts[v] = total

    def _composite(self, node: ir.Node):
        """(rule, inputs) when ``node`` ends a construction marked with the numpy function it
        computes (``meta["pyonnx.derivative"]``), its inputs still in the model (followed to
        the values that replaced them); else None."""
        xs = _mark_inputs(node)
        rule = COMPOSITE_RULES.get(node.meta[_DERIVATIVE][0]) if xs else None
        if rule is None:
            return None
        return rule, xs
