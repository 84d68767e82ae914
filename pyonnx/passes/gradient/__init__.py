"""Reverse-mode differentiation on onnx-ir: a model → the model with its gradients as outputs.

Input: an ``ir.Model`` as the frontend and the optimization pipeline leave it (unique value
names; no ``pyonnx``-domain pseudo-ops left). Output: the same model with new graph outputs,
the cotangents of chosen graph inputs, computed by nodes appended after the forward nodes.

How (JAX's ``backward_pass`` in ``interpreters/ad.py``, on a graph instead of a jaxpr):

1. ONNX shape inference gives every value a dtype and, where known, a rank and dims
   (symbolic dims by name: equal names are equal sizes). Rules need ranks (MatMul, Einsum) and
   use known dims to skip work (no reduction where an operand did not broadcast).
2. Activity: a value is *varied* when it is float and depends on a differentiated input; it is
   *useful* when a seeded output depends on it. Only nodes with useful outputs and varied inputs
   are differentiated, so integer, boolean and shape computations (comparisons, ``Shape``,
   ``ArgMax``, index arithmetic) stop the gradient by construction.
3. A reverse walk over the nodes calls each node's VJP rule (:mod:`pyonnx.passes.gradient.rules`,
   ``@vjp("Mul")``) with its output cotangents, ``None`` being the symbolic zero; a rule returns
   one cotangent per input (``None`` for zero or not needed). Cotangents of a value used several
   times are summed with ``Add`` (fan-out). Broadcasting is undone by ``ReduceSum`` over the
   broadcast axes (:meth:`Backward.sum_to`).
4. An active node whose op has no rule is a ConversionError naming the op and the Python line
   that produced it (``meta["pyonnx.loc"]``, or the ``doc_string`` a serialized model keeps).
5. A node marked ``meta["pyonnx.derivative"] = (name, inputs)`` ends a multi-node construction
   of a numpy function (the frontend's float64 math): it is differentiated as that function
   with respect to those inputs (``registry.COMPOSITE_RULES``), not node by node. Those inputs
   count as the node's inputs for activity, If/Loop captures and pruning (hoisting or CSE may
   leave a construction in a body that reads its argument only through outer values), and
   :mod:`pyonnx.passes.marks` keeps them valid while passes replace values.

:func:`differentiate_jacobian` runs the same walk inside a ``Loop`` body, once per output
element with a one-hot cotangent, for reverse-mode Jacobians.

New nodes copy the forward node's ``meta["pyonnx.loc"]`` and ``doc_string`` (errors and run-time
failures point at the user's line) and are named after it. The gradient model is itself
differentiable (every op a rule emits has a rule), so applying the pass twice gives second
derivatives. Run the optimization pipeline afterwards (folding, CSE, dead code).

Control flow (``If``, ``Loop``: :mod:`pyonnx.passes.gradient.control_flow`) goes through the same
table. The walk counts a node's implicit captures (outer values its bodies use) as inputs for
activity, and takes a rule's results past the node's inputs as the captures' cotangents
(:meth:`Backward.captures` order). Those rules build backward bodies with
:meth:`Backward.subgraph` and :meth:`Backward.backward` on the body graph, and may replace
the forward node (a Loop that also stacks its states, an If that also outputs what its
branch's backward pass needs): rules run during the reverse walk, whose results then point at
the replacement's outputs. ``Scan`` and the sequence ops have no rule (a ConversionError).

Modules: ``entry`` (:class:`GradientPass`, :func:`differentiate`,
:func:`differentiate_jacobian`); ``backward`` (:class:`Backward`, the reverse walk) on
``builder`` (what rules emit with); ``types`` (shape inference, source locations); ``graphs``
(subgraph captures, names); ``registry`` (the rule tables, no rule in it); ``rules/`` by op
family and ``control_flow/`` (If, Loop), imported by ``entry`` for their registrations.
"""
