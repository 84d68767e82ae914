"""Constant folding on onnx-ir, after onnxscript's ``optimizer/_constant_folding.py``.

Input: an ``ir.Model``. Output: the same model where every default-domain node that can be
evaluated at conversion time is replaced: its outputs become main-graph initializers (or, for
rules such as ``Identity`` or ``Reshape`` to the same shape, the value it forwards) and its users
are rewired. Dead producers are removed here; constants left unused are removed by
``RemoveUnusedNodesPass``.

How a node is evaluated:

1. a partial evaluator from :mod:`pyonnx.passes.fold_rules` (``@register("Add")`` ...), fast numpy
   with ONNX's exact semantics; some also fire on non-constant inputs (``Shape`` of a value with
   static dims, ``Cast`` to the same dtype, chains);
2. otherwise, for ops without a rule whose inputs are all constant, onnx's reference
   implementation of the op (:mod:`pyonnx.passes.fold_reference`), after ONNX shape inference
   has given the output dtype and a static output shape within the size limit; the result must
   match that dtype and shape exactly;
3. ``If`` with a constant condition is replaced by the taken branch's nodes.

Subgraphs (``If``/``Loop``/``Scan`` bodies) are folded too: main-graph initializers are visible
there, and constants folded inside a body become main-graph initializers. Graph outputs keep
their name and a producer in their graph: a folded output gets an ``Identity`` of the constant
(named and located like the folded node). New nodes copy the folded node's name, ``doc_string``
and ``meta["pyonnx.loc"]``; new constants carry the location in ``meta``. Equal small constants are
shared. The result is deterministic: traversal is in graph order and names derive from node names.
"""

from __future__ import annotations

import logging
from collections.abc import Callable, Sequence
from typing import Any

import numpy as np
import onnx_ir as ir

from pyonnx.passes import fold_rules  # noqa: F401  (import for the registrations)
from pyonnx.passes.fold_rules.common import const_of
from pyonnx.passes.fold_reference import _infer_outputs, _reference_eval
from pyonnx.passes.fold_rules.ranges import OPS as RANGE_OPS
from pyonnx.passes.fold_rules.ranges import Facts, simplify
from pyonnx.passes.fold_rules.registry import PARTIAL, RULES
from pyonnx.passes.marks import replace_value

__all__ = ["FoldConstantsPass", "DEFAULT_INPUT_SIZE_LIMIT", "DEFAULT_OUTPUT_SIZE_LIMIT"]

logger = logging.getLogger(__name__)

# Constant inputs larger than this (in elements) are not read: folding them costs time and the
# node usually does not shrink the model.
DEFAULT_INPUT_SIZE_LIMIT = 1 << 16
# Results larger than this stay computed at run time (they would bloat the model).
DEFAULT_OUTPUT_SIZE_LIMIT = 1 << 16
# Constants up to this many elements are shared by value.
_DEDUP_LIMIT = 4096
_ONNX_DOMAINS = ("", "ai.onnx")
# Never evaluated by the generic fallback: random, stateful or non-tensor results.
_NEVER = frozenset({
    "RandomNormal", "RandomUniform", "RandomNormalLike", "RandomUniformLike", "Multinomial",
    "Bernoulli", "Dropout", "If", "Loop", "Scan", "Optional", "OptionalGetElement",
    "OptionalHasElement", "SequenceConstruct", "SequenceEmpty", "SequenceAt", "SequenceInsert",
    "SequenceErase", "SequenceLength", "SplitToSequence", "ConcatFromSequence", "SequenceMap",
})
_GRAPH_ATTRS = (ir.AttributeType.GRAPH, ir.AttributeType.GRAPHS)
_SUBGRAPH_OPS = frozenset({"If", "Loop", "Scan", "SequenceMap"})
_LOC = "pyonnx.loc"
_UNBOUNDED = 1 << 62


class FoldConstantsPass(ir.passes.InPlacePass):
    """Folds constant computations in the model and its subgraphs.

    Attributes:
        input_size_limit: constant inputs larger than this many elements are not folded.
        output_size_limit: results larger than this many elements are not created.
        should_fold: called with each candidate node; True folds it regardless of the size
            limits, False never folds it, None applies the default rules.
    """

    def __init__(self, *, input_size_limit: int = DEFAULT_INPUT_SIZE_LIMIT,
                 output_size_limit: int = DEFAULT_OUTPUT_SIZE_LIMIT,
                 should_fold: Callable[[ir.Node], bool | None] | None = None):
        super().__init__()
        self.input_size_limit = input_size_limit
        self.output_size_limit = output_size_limit
        self.should_fold = should_fold

    def call(self, model: ir.Model) -> ir.passes.PassResult:
        folding = _Folding(model, self)
        folding.visit_graph(model.graph)
        return ir.passes.PassResult(model, folding.modified)


def _through_identities(value: ir.Value | None) -> ir.Value | None:
    """``value``, or what the chain of ``Identity`` nodes producing it copies (an Identity
    stays where its output is a graph output: a branch's flag that is also its condition)."""
    for _ in range(8):
        node = value.producer() if value is not None else None
        if node is None or node.op_type != "Identity" or node.domain not in _ONNX_DOMAINS:
            break
        value = node.inputs[0]
    return value


class _Folding:
    """The state of one run of the pass (single-use); also the ``Inputs`` seen by rules."""

    def __init__(self, model: ir.Model, options: FoldConstantsPass):
        self.main = model.graph
        opsets = model.opset_imports
        self.opset = opsets.get("", opsets.get("ai.onnx"))
        self.should_fold = options.should_fold
        self.modified = False
        self._limits = (options.input_size_limit, options.output_size_limit)
        # The limits for the node being folded (unbounded when should_fold forces it).
        self.input_limit, self.limit = self._limits
        self._node: ir.Node | None = None
        self._dedup: dict[tuple, ir.Value] | None = None
        self._facts: Facts | None = None  # value ranges (fold_rules/ranges.py), on demand

    # ----------------------------------------------------------- Inputs protocol
    def const(self, index: int) -> np.ndarray | None:
        assert self._node is not None
        inputs = self._node.inputs
        if index >= len(inputs):
            return None
        value = inputs[index]
        if value is None or value.const_value is None:
            return None
        if value.const_value.size > self.input_limit or value.is_graph_input():
            return None
        return value.const_value.numpy()

    def consts(self) -> list[np.ndarray | None] | None:
        assert self._node is not None
        out: list[np.ndarray | None] = []
        for i, value in enumerate(self._node.inputs):
            if value is None:
                out.append(None)
                continue
            arr = self.const(i)
            if arr is None:
                return None
            out.append(arr)
        return out

    def rewired(self, detached: ir.Value) -> None:
        self.modified = True
        _remove_if_dead(detached.producer())

    # ------------------------------------------------------------------ traversal
    def visit_graph(self, graph: ir.Graph) -> None:
        for node in graph:  # onnx-ir allows removing/inserting around the current node
            self.visit_node(node)

    def visit_node(self, node: ir.Node) -> None:
        op_type = node.op_type
        onnx_op = node.domain in _ONNX_DOMAINS
        if onnx_op and (op_type in PARTIAL or op_type in RANGE_OPS or op_type == "If"
                        or _all_const(node)) and self._fold(node):
            return
        # Only these ONNX ops carry graphs (reading every node's attributes costs 0.3 µs).
        if not onnx_op or op_type in _SUBGRAPH_OPS:
            for attr in node.attributes.values():
                if attr.type not in _GRAPH_ATTRS or attr.is_ref():
                    continue
                for sub in (attr.as_graphs() if attr.type == ir.AttributeType.GRAPHS
                            else (attr.as_graph(),)):
                    self.visit_graph(sub)

    def _fold(self, node: ir.Node) -> bool:
        """Tries to fold ``node``; True when it was replaced (and removed)."""
        decision = self.should_fold(node) if self.should_fold is not None else None
        if decision is False:
            return False
        self.input_limit, self.limit = (_UNBOUNDED, _UNBOUNDED) if decision else self._limits
        self._node = node
        try:
            rule = RULES.get(node.op_type)
            if rule is not None:
                result = rule(node, self)
            elif node.op_type == "If":
                return self._inline_if(node)
            else:
                result = self._evaluate(node)
            if result is None and node.op_type in RANGE_OPS:
                # Bound arithmetic on lengths (trip counts, slice bounds): decided by ranges.
                if self._facts is None:
                    self._facts = Facts()
                result = simplify(node, self._facts, self.limit, self.rewired)
        finally:
            self._node = None
        if result is None:
            return False
        return self._apply(node, result)

    # ---------------------------------------------------------------- replacement
    def _apply(self, node: ir.Node, result: Sequence[Any]) -> bool:
        changed = False
        for i, (out, new) in enumerate(zip(node.outputs, result)):
            if new is None or new is out:
                continue
            if isinstance(new, np.generic):
                # numpy reductions and indexing in a rule give scalars: fold them as 0-d arrays.
                new = np.asarray(new)
            if isinstance(new, np.ndarray):
                if not self._valid_constant(node, out, new):
                    continue
                new = self._constant(new, node, i)
            changed |= self._replace(node, out, new)
        if changed:
            self.modified = True
            if all(not o.uses() and not o.is_graph_output() for o in node.outputs):
                node.graph.remove(node, safe=True)
                return True
        return False

    def _valid_constant(self, node: ir.Node, out: ir.Value, arr: np.ndarray) -> bool:
        if arr.size > self.limit:
            return False
        if out.dtype is not None and out.dtype.numpy() != arr.dtype:
            logger.warning("not folding %s (%s): result dtype %s, declared %s", node.name,
                           node.op_type, arr.dtype, out.dtype)
            return False
        if out.shape is not None and (len(out.shape) != arr.ndim or any(
                isinstance(d, int) and d != n for d, n in zip(out.shape.dims, arr.shape))):
            logger.warning("not folding %s (%s): result shape %s, declared %s", node.name,
                           node.op_type, arr.shape, out.shape)
            return False
        return True

    def _replace(self, node: ir.Node, out: ir.Value, new: ir.Value) -> bool:
        """Makes every use of ``out`` use ``new``; a graph output keeps its name and gets a
        producer in its graph."""
        if not out.is_graph_output():
            if new.type is None:
                new.type = out.type
            if new.shape is None and out.shape is not None:
                new.shape = out.shape
            replace_value(out, new)
            return True
        graph = node.graph
        if graph is None or not any(o is out for o in graph.outputs):
            return False  # an output of another graph: leave it alone
        producer = new.producer()
        if (producer is not None and producer.graph is graph and not new.is_graph_output()
                and not new.is_graph_input()):
            # The forwarded value takes over the output's name and declared type.
            name = out.name
            replace_value(out, new, replace_graph_outputs=True)
            out.name = None
            new.name = name
            new.type = out.type or new.type
            new.shape = _merge_shapes(out.shape, new.shape)
            return True
        if node.op_type == "Identity" and node.inputs[0] is new:
            return False  # already the minimal form
        identity = ir.Node("", "Identity", [new], name=node.name, doc_string=node.doc_string,
                           outputs=[ir.Value(name=out.name, type=out.type, shape=out.shape)])
        if _LOC in node.meta:
            identity.meta[_LOC] = node.meta[_LOC]
        graph.insert_before(node, identity)
        replace_value(out, identity.outputs[0], replace_graph_outputs=True)
        out.name = None
        return True

    def _constant(self, arr: np.ndarray, node: ir.Node, index: int) -> ir.Value:
        """A main-graph initializer holding ``arr`` (an equal small one is reused)."""
        arr = np.array(arr, order="C", copy=True)  # never alias an input constant's buffer
        key = None
        if arr.size <= _DEDUP_LIMIT:
            if self._dedup is None:
                self._dedup = self._existing_constants()
            key = (arr.dtype.str, arr.shape, arr.tobytes())
            hit = self._dedup.get(key)
            if hit is not None:
                return hit
        base = node.name or node.outputs[index].name or node.op_type
        base = f"{base}_folded" if len(node.outputs) == 1 else f"{base}_folded{index}"
        name, n = base, 0
        while name in self.main.initializers:
            n += 1
            name = f"{base}_{n}"
        tensor = ir.Tensor(arr, name=name)  # (ir.tensor spends ~25 µs on Protocol checks)
        value = ir.Value(name=name, shape=ir.Shape(arr.shape), type=ir.TensorType(tensor.dtype),
                         const_value=tensor)
        if _LOC in node.meta:
            value.meta[_LOC] = node.meta[_LOC]
        self.main.register_initializer(value)
        if key is not None:
            self._dedup[key] = value  # type: ignore[index]
        return value

    def _existing_constants(self) -> dict[tuple, ir.Value]:
        found: dict[tuple, ir.Value] = {}
        for value in self.main.initializers.values():
            c = value.const_value
            if c is None or c.size > _DEDUP_LIMIT or value.is_graph_input():
                continue
            arr = c.numpy()
            found.setdefault((arr.dtype.str, arr.shape, arr.tobytes()), value)
        return found

    # -------------------------------------------------------------------------- If
    def _inline_if(self, node: ir.Node) -> bool:
        """``If`` with a constant condition → the nodes of the taken branch."""
        cond = const_of(_through_identities(node.inputs[0])) if node.inputs else None
        if cond is None or cond.size != 1 or cond.dtype != np.bool_:
            return False
        attr = node.attributes.get("then_branch" if cond.reshape(()) else "else_branch")
        if attr is None or attr.is_ref() or attr.type != ir.AttributeType.GRAPH:
            return False
        branch = attr.as_graph()
        if branch.initializers or branch.inputs or len(branch.outputs) != len(node.outputs):
            return False
        graph = node.graph
        if any(o.is_graph_output() and not any(o is g for g in graph.outputs)
               for o in node.outputs):
            return False  # an output of another graph: it could not be rewired
        results = list(branch.outputs)
        branch.outputs.clear()
        moved = list(branch)
        branch.remove(moved)
        graph.insert_before(node, moved)
        self._apply(node, results)
        self.modified = True
        for inner in moved:  # now in this graph: fold them too
            if inner.graph is not None:
                self.visit_node(inner)
        return True

    # ------------------------------------------------------------------- fallback
    def _evaluate(self, node: ir.Node) -> list[np.ndarray] | None:
        """Evaluates an op without a rule with onnx's reference implementation."""
        if node.op_type in _NEVER or not node.inputs or self.opset is None:
            return None
        if any(a.is_ref() or a.type in _GRAPH_ATTRS for a in node.attributes.values()):
            return None
        args = self.consts()
        if args is None:
            return None
        expected = _infer_outputs(node, args, self.opset)
        if expected is None or any(shape is None or int(np.prod(shape)) > self.limit
                                   for _, shape in expected):
            return None
        outputs = _reference_eval(node, args, self.opset)
        if outputs is None or len(outputs) != len(expected):
            return None
        results = []
        for arr, (dtype, shape) in zip(outputs, expected):
            arr = np.asarray(arr)
            if arr.dtype != dtype or arr.shape != shape:
                logger.warning("not folding %s (%s): reference result %s%s, inferred %s%s",
                               node.name, node.op_type, arr.dtype, arr.shape, dtype, shape)
                return None
            results.append(arr)
        return results


def _remove_if_dead(node: ir.Node | None) -> None:
    if node is not None and node.graph is not None and all(
            not o.uses() and not o.is_graph_output() for o in node.outputs):
        node.graph.remove(node, safe=True)


def _all_const(node: ir.Node) -> bool:
    """Whether every present input has a constant value (cheap pre-filter)."""
    for value in node.inputs:
        if value is not None and value.const_value is None:
            return False
    return True


def _merge_shapes(declared: ir.Shape | None, other: ir.Shape | None) -> ir.Shape | None:
    """``declared`` with unknown dims filled from ``other`` (fixed dims win)."""
    if declared is None or other is None or len(declared) != len(other):
        return declared if declared is not None else other
    return ir.Shape([d if isinstance(d, int) or not isinstance(o, int) else o
                     for d, o in zip(declared.dims, other.dims)])
