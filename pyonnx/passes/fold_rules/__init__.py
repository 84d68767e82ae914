"""Partial evaluators for :class:`~pyonnx.passes.fold_constants.FoldConstantsPass`, one per op.

Each rule is registered with ``@register("OpType", ...)`` for the default ONNX domain and is
called as ``rule(node, f)`` where ``f`` is the folding state (:class:`Inputs` protocol below:
``f.const(i)``, ``f.consts()``, ``f.limit``...). It returns ``None`` (nothing to do) or one entry
per node output: a numpy array (the output is that constant), an ``ir.Value`` (the output *is*
that value, same dtype and shape) or ``None`` (leave that output alone). A rule may instead
rewire the node's inputs in place (chains such as ``Reshape(Reshape(x))``) and call
``f.rewired(old_input)``.

Every numpy evaluation follows ONNX semantics exactly and keeps the ONNX output dtype (integer
``Div`` truncates toward zero, ``Mod`` follows ``fmod``); where ONNX leaves a result undefined
or a runtime error would occur (integer division by zero, float → int casts out of range, an
out-of-range ``Gather`` index) the rule declines, so the model keeps failing or behaving as it
would at run time. Rules check output sizes against ``f.limit`` *before* allocating.

Rules (op: what is folded):

- Identity: always removed (the output becomes its input; graph outputs are kept by the pass).
- Constant: becomes a main-graph initializer.
- Cast: constants; a cast to the input's own (known) dtype; ``Cast(Cast(x, wider), T)`` where
  the inner cast is exact for every value → ``Cast(x, T)`` (or ``x``).
- Shape, Size: of constants and of any value whose shape annotation has the needed dims fixed.
- Add, Sub, Mul, Div, Mod, Neg, Abs, Equal, Less, LessOrEqual, Greater, GreaterOrEqual, Not,
  And, Or, Xor, Where: constants (numpy with ONNX's integer rules); ``x * 1``, ``x / 1``,
  ``x - 0`` and integer ``x + 0`` with a 0-d constant → ``x``.
- Gather, Slice, Concat, Transpose, Expand, Range (integers), ConstantOfShape: constants.
- Reshape: constants; ``Reshape(Reshape(x, a), b)`` → ``Reshape(x, b)``; a reshape to the
  input's own static shape → the input.
- Unsqueeze, Squeeze: constants; ``Squeeze(Unsqueeze(x, axes), axes)`` → ``x``.
- Transpose: ``Transpose(Transpose(x, p), q)`` → one Transpose, or ``x`` when they cancel.

Modules: ``registry`` (the table, ``register``, the :class:`Inputs` protocol), ``common``
(helpers), and the families ``casts``, ``elementwise``, ``movement``, which this package module
imports so that importing it registers every rule.
"""

from pyonnx.passes.fold_rules import (  # noqa: F401  (import for the registrations)
    casts,
    elementwise,
    movement,
)
