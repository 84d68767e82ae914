"""Run-time control flow: ``if``, conditional expressions, ``and``/``or``, ``for`` and ``while``
whose condition or trip count depends on array values → ONNX ``If`` and ``Loop``.

Input: canonical ASTs (jumps are flags, see :mod:`pyonnx.frontend.canonicalize`) annotated by
:mod:`pyonnx.frontend.analysis`, and the :class:`FunctionLowering` lowering them. Output: If and
Loop nodes whose subgraphs hold the lowered branches and bodies, and the environment after them.

The algorithm is onnxscript's: an ``If`` outputs the names a branch assigns that are live after
it; a ``Loop`` carries the names its body assigns that are live at its header. The types are
found by lowering: a branch or body is lowered into a subgraph, and the types its names end
with are joined with the types they started with (:mod:`structure`); a loop body whose state
types widen (a shape that grows, a Python number that becomes an array) is lowered again with
the wider types until they agree. Names bound on only some paths become
:class:`~pyonnx.frontend.graph.values.Undefined`: reading one later is a ConversionError naming
where it is missing.

Modules: :mod:`.common` (conditions, typed subgraph outputs, isolation), :mod:`.branches`
(``If``), :mod:`.select` (conditional expressions), :mod:`.loops` (``Loop``), :mod:`.maybe_bound`
(names first bound in a loop that may run 0 times), :mod:`.held_items` (containers of views
carried through a loop).
"""

from pyonnx.frontend.lower.control_flow.branches import lower_if, unrolled_iteration
from pyonnx.frontend.lower.control_flow.common import MISSING, condition
from pyonnx.frontend.lower.control_flow.loops import lower_loop
from pyonnx.frontend.lower.control_flow.select import select

__all__ = ["condition", "lower_if", "unrolled_iteration", "select", "lower_loop", "MISSING"]
