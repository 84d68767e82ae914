"""VJP rules for ONNX control flow: ``If`` and ``Loop`` as the frontend emits them.

Input: the :class:`~pyonnx.passes.gradient.backward.Backward` builder, the forward ``If``/``Loop``
node (in the graph being walked), and the cotangents of its outputs. Output: one cotangent per input
(none for conditions and trip counts), then one per captured outer value in
:meth:`Backward.captures` order. Registered in :data:`pyonnx.passes.gradient.registry.RULES`.

``If`` (the branch's backward pass, run on the same condition): each branch's body is
differentiated where it is, giving a backward branch that uses values computed inside the
forward branch (residuals). The forward ``If`` is replaced by one that also outputs those
residuals (the branch not taken outputs an empty placeholder of the same dtype and rank), and
the backward ``If`` on the same condition runs the taken branch's VJP on them. A branch that
does not use a captured value gives it a zero cotangent.

``Loop`` (``for`` and ``while`` alike; breaks, continues and early returns are flags in the
body's condition, so only the run tells how many iterations ran): the forward ``Loop`` is
replaced by one that also records, per iteration, the state each iteration starts from and
the body values the backward pass reads (residuals), as scan outputs (stacked along a new
first axis). The number of iterations run is the length of that record (a loop that ran 0
times records nothing, and the reverse loop runs 0 times). The backward ``Loop`` runs that
many iterations, iteration k replaying forward iteration ``t = trips-1-k``: it reads
iteration t's state and residuals from the records (``Gather``) and runs the body's VJP,
carrying the cotangents of the loop states from one iteration to the previous one, and
summing those of captured outer values (their cotangents add up over iterations).

Scan outputs need one shape on every iteration. ONNX shape inference on the body
(:class:`_BodyShapes`) decides which states and residuals keep theirs; a state whose shape
settles after the first iteration is recorded as it leaves each iteration instead. What cannot
be recorded is recomputed: the backward body starts with a copy of the forward body (from the
recorded states), pruned to what the VJP still reads; a state whose shape may change from one
iteration to the next (an array growing by concatenation) is recorded in an ONNX sequence.

Cotangents flow only through float states that depend on a differentiated value
(fixed points over the body), so integer counters, flags and constant states cost nothing but
their recording when the recomputation needs them.

Modules: ``common`` (graph helpers), ``branches`` (If), ``body_shapes`` (what a Loop body keeps
from one iteration to the next), ``loops`` (Loop). Importing the package registers the rules.
"""

from pyonnx.passes.gradient.control_flow import branches, loops  # noqa: F401  (registrations)
