"""The IR pass pipeline: an ``onnx_ir.Model`` from the frontend → a serialized, checked model.

Input: the lowered model (node names carry source lines, ``meta["pyonnx.loc"]`` locations).
Output: the optimized model, then checked ``onnx.ModelProto`` bytes (:func:`to_bytes`). The
same model in gives byte-identical bytes out: every pass walks graphs in order and derives names
from existing names (never from ``id()``, hashes or set order).

The passes, in order (:func:`passes`), and why that order:

0. ``LowerSetItemPass``: lowers item assignment (the ``pyonnx.SetItem`` pseudo-op, which
   onnxruntime cannot run) to ScatterND/ScatterElements, row writes in loops to scan outputs.
   First: the nodes it makes are then folded, shared and named like the frontend's.
0b. ``HoistLoopInvariantsPass``: non-failing nodes of a Loop body whose inputs come from
   outside it move before the Loop (after SetItem lowering, whose index arithmetic may be
   invariant; before folding and CSE, which then see them in the outer graph).
1. ``FoldConstantsPass``: constants, shape arithmetic on fixed dims, identities, chains.
   First, because it makes more nodes dead and more nodes identical (folded constants are
   shared by value, so CSE then sees equal inputs).
1'. ``LoopColumnReadsPass``: two or more column reads of one outer array in a Loop body
   (``boxes[rest, 0]``, ``boxes[rest, 2]`` in NMS) read rows of a transposed copy made before
   the Loop. After folding (which turns ``boxes[rest, 0]`` into a Gather of the column of
   ``boxes``), before CSE (which shares one copy between loops).
1a. ``DropSameShapeExpandsPass`` (below) first, for the Reshapes of whole-array writes that
   would keep the next pass's Transposes apart, and ``RemoveUnusedPass`` (their shape reads
   count as uses); then ``ColumnsFromTransposePass``: column reads (``x[:, k]``,
   ``b[..., 0::2]``) of an array a column write transposed anyway read rows of that
   transposed copy. After folding (which
   cancels the Transposes between consecutive writes), before ``RewriteIdiomsPass`` (which
   turns the last-axis Gathers left into strided Slices).
1a'. ``DropSameShapeExpandsPass``: an ``Expand`` to its input's own shape (followed
   symbolically from the graph inputs) reads the input (onnxruntime's Expand copies). After
   ``ColumnsFromTransposePass``, whose row reads it follows through.
1b. ``RewriteIdiomsPass``: op chains replaced by one cheaper op (``np.cumsum(x[::-1])[::-1]``
   → ``CumSum(reverse=1)``, ``np.sum(x * x)`` → ``ReduceSumSquare``...). After folding, which
   makes the Slice bounds and axes it reads constants; its dead leftovers go with step 3.
1b'. ``UnobservedZeroSignsPass``: the exact sign of a ``±0`` tie of ``np.maximum``/``minimum``
   (an ``If``) is dropped where nothing can observe it (the box arithmetic of NMS/IoU: ``x2 -
   x1 + 1``, a comparison). After folding, which tells the constants it reasons with.
1c. ``NarrowSelectsPass``: a prefix of a full ``TopK`` becomes a smaller ``TopK``
   (``np.argsort(x)[:, :5]``), a Slice taking one part of a ``Concat`` that part
   (``np.argpartition(x, -k)[-k:]``). After folding, for the same constant bounds.
1d. ``ShareReductionsPass``: one reduction for its keepdims=0 and keepdims=1 twins (a mean
   and a std's mean), the Unsqueeze between them moved down and broadcast away. After
   folding (constant axes), before CSE, which merges the duplicates it exposes.
2. ``EliminateCommonSubexpressionsPass``: merges identical nodes, subgraphs included (onnx-ir's
   CSE does the main graph only, and is slower). Dead nodes left by folding do not disturb it (a
   live duplicate of a dead node keeps the dead one alive instead: the same graph), so no
   removal is needed before it; one removal after both saves a whole walk.
3. ``RemoveUnusedPass``: what folding and CSE disconnected: nodes, unused optional outputs,
   then initializers and opset imports (after the nodes, so it sees the final domains).
4. ``UniqueNamesPass``: last, after every pass that creates values: subgraphs may have named a
   value ``val_0`` like their parent, and a returned variable may share a generated name; then
   onnx-ir's ``NameFixPass`` makes every name unique (deterministically, in graph order).

:func:`to_bytes` then runs the execution-only rewrites (:func:`finish`): ``ShiftedDifferencesPass``
computes ``np.concatenate((s[:1], s[1:] - c * s[:-1]))`` as ``s - Pad(c * s)`` (three passes,
not five), then ``SequenceAppendsPass``
carries a list of numbers appended to in a loop as a 1-D tensor (onnxruntime's SequenceInsert
copies the whole sequence per append), then ``LoopToScanPass``
turns full-trip ``Loop`` nodes into ``Scan`` (half the cost per iteration), then
``HoistScanMapsPass`` computes elementwise maps of scan input elements (``alpha * x[i]``) on
the whole input before the Scan (one body node less per iteration), then
``ScatterRowsPass`` forwards reads of rows written by ``ScatterND`` and makes a chain of
whole-row writes covering every row one ``Concat`` (a grid filled column by column), then
``UnitRowSlicesPass`` reads a strided Slice of a transposed array's short first axis
row by row (onnxruntime would push the Transpose in and slice the last axis with a stride),
then ``BroadcastMapsPass`` computes elementwise maps (sin/cos included) of ``Expand(w, S)`` on
``w``
and expands after, then ``GatherElementsPass`` takes lookups from 1-D data with ``GatherElements`` (onnxruntime's
Gather copies element by element), and ``ExpandBroadcastsPass`` expands the row-vector operands of binary ops (``img - mean`` with
``mean`` of shape (3,)), which onnxruntime's broadcast walks in short spans, and
``GroupSlicesPass`` lists the Slices of one array back to back (read while in cache). Not in
:func:`optimize`, whose result differentiation may still read (``Scan`` has no gradient rule).
"""

from __future__ import annotations

import logging
import os

import onnx
import onnx_ir as ir

from pyonnx.passes.broadcast_maps import BroadcastMapsPass
from pyonnx.passes.columns_from_transpose import ColumnsFromTransposePass
from pyonnx.passes.common_subexpressions import EliminateCommonSubexpressionsPass
from pyonnx.passes.expand_broadcasts import ExpandBroadcastsPass
from pyonnx.passes.fold_constants import FoldConstantsPass
from pyonnx.passes.gather_elements import GatherElementsPass
from pyonnx.passes.group_slices import GroupSlicesPass
from pyonnx.passes.hoist_loop_invariants import HoistLoopInvariantsPass
from pyonnx.passes.hoist_scan_maps import HoistScanMapsPass
from pyonnx.passes.loop_column_reads import LoopColumnReadsPass
from pyonnx.passes.loop_to_scan import LoopToScanPass
from pyonnx.passes.lower_setitem import LowerSetItemPass
from pyonnx.passes.narrow_selects import NarrowSelectsPass
from pyonnx.passes.remove_unused import RemoveUnusedPass
from pyonnx.passes.rewrite_idioms import RewriteIdiomsPass
from pyonnx.passes.same_shape_expands import DropSameShapeExpandsPass
from pyonnx.passes.scatter_rows import ScatterRowsPass
from pyonnx.passes.sequence_appends import SequenceAppendsPass
from pyonnx.passes.serialize import serialize_model
from pyonnx.passes.share_reductions import ShareReductionsPass
from pyonnx.passes.shifted_differences import ShiftedDifferencesPass
from pyonnx.passes.unique_names import UniqueNamesPass
from pyonnx.passes.unit_row_slices import UnitRowSlicesPass
from pyonnx.passes.unroll_scans import UnrollScansPass
from pyonnx.passes.zero_signs import UnobservedZeroSignsPass

__all__ = ["finish", "optimize", "passes", "serialize", "to_bytes"]

logger = logging.getLogger(__name__)


def passes() -> list[ir.passes.PassBase]:
    """Fresh instances of the pipeline's passes, in the order :func:`optimize` runs them."""
    return [
        LowerSetItemPass(),
        HoistLoopInvariantsPass(),
        FoldConstantsPass(),
        LoopColumnReadsPass(),
        DropSameShapeExpandsPass(),
        RemoveUnusedPass(),
        ColumnsFromTransposePass(),
        DropSameShapeExpandsPass(),
        RewriteIdiomsPass(),
        UnobservedZeroSignsPass(),
        NarrowSelectsPass(),
        ShareReductionsPass(),
        EliminateCommonSubexpressionsPass(),
        RemoveUnusedPass(),
        UniqueNamesPass(),
    ]


def optimize(model: ir.Model) -> ir.Model:
    """Runs the optimization passes in place and returns the model."""
    # CSE can replace a typed graph output by an identical, untyped intermediate value
    # (``return (x + 1) * 2, x + 1``): give the outputs their types back afterwards.
    typed = [(v.type, v.shape) for v in model.graph.outputs]
    for p in passes():
        p(model)
    for v, (type_, shape) in zip(model.graph.outputs, typed):
        if v.type is None:
            v.type = type_
        if v.shape is None:
            v.shape = shape
    return model


def finish(model: ir.Model) -> ir.Model:
    """The rewrites for onnxruntime only, in place, after :func:`optimize` (see the module
    docstring); returns the model."""
    # First: before GatherElementsPass could change the Gather of np.append(s[0], ...).
    ShiftedDifferencesPass()(model)
    # Before LoopToScanPass: a for loop appending numbers then carries tensors only (a Scan
    # state cannot be a sequence).
    SequenceAppendsPass()(model)
    if os.environ.get("PYONNX_SCAN", "1") != "0":  # 0: keep every Loop (to compare both)
        LoopToScanPass()(model)
    # After every Scan exists (LoopToScanPass's and the row writes' of LowerSetItemPass).
    HoistScanMapsPass()(model)
    # After it: the bodies it shortened are the ones worth unrolling (a recurrence's 2 nodes).
    UnrollScansPass()(model)
    # Before GatherElementsPass, which turns the Gathers it forwards into GatherElements;
    # the chains it bypasses are removed here (optimize's removal has run).
    # BroadcastMapsPass after it: the forwarded reads expose the Expands it looks through.
    rows = ScatterRowsPass()(model).modified
    # After it: a cover it made leaves the Transpose of a column read without the ScatterND
    # that kept onnxruntime from pushing it into the read.
    rows |= UnitRowSlicesPass()(model).modified
    if BroadcastMapsPass()(model).modified or rows:
        RemoveUnusedPass()(model)
    GatherElementsPass()(model)
    # Last: the main graph's final ops (nothing after it matches their operands).
    ExpandBroadcastsPass()(model)
    # After every rewrite that adds Slices; only reorders nodes.
    GroupSlicesPass()(model)
    return model


def serialize(model: ir.Model) -> onnx.ModelProto:
    """Serializes and runs the ONNX checker (the cheap structural check).

    Raises:
        onnx.checker.ValidationError: the model is invalid (a pyonnx bug).
    """
    proto = serialize_model(model)
    onnx.checker.check_model(proto)
    return proto


def to_bytes(model: ir.Model) -> bytes:
    """The model as deterministic protobuf bytes, checked by the ONNX checker.

    The checker is given the bytes: given a ModelProto it would serialize it once more
    (checking bytes took 37 µs, a proto 60-120 µs, on a 50-node model).

    Raises:
        onnx.checker.ValidationError: the model is invalid (a pyonnx bug).
    """
    finish(model)
    # (serialize_model: onnx-ir's serde, byte for byte, at about half its cost.)
    data = serialize_model(model).SerializeToString(deterministic=True)
    if _VERIFY_SERIALIZER:
        # The test suite sets this: every model it converts checks the hand-written serializer
        # against onnx-ir's own, so a divergence (e.g. after an onnx-ir upgrade) fails loudly.
        expected = ir.serde.serialize_model(model).SerializeToString(deterministic=True)
        if data != expected:
            raise AssertionError("pyonnx.passes.serialize diverged from onnx_ir.serde for "
                                 f"model {model.graph.name!r}")
    onnx.checker.check_model(data)
    return data


_VERIFY_SERIALIZER = bool(os.environ.get("PYONNX_VERIFY_SERIALIZER"))
