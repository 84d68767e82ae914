"""A NaN rule paid only by inputs that hold a NaN: ``If(isnan(sum(x)))``.

Input: a float Array ``x``, the result ``plain`` computed as if ``x`` held no NaN, and a
function emitting the result with numpy's NaN rule (``np.argmax``'s first NaN index). Output:
an Array equal to the NaN rule's result for every input.

Why: the NaN rule of ``np.argmax``/``np.argmin`` costs two full passes more (``IsNaN`` then an
``ArgMax`` over the flags, heatmap decoding's costliest node), and real inputs almost never
hold a NaN. ``ReduceSum`` over all of ``x`` is NaN whenever some element is (IEEE addition
propagates NaN; it is also NaN for ``+inf`` with ``-inf``, which only sends such inputs down
the exact branch), so one cheap pass decides; the ``If`` runs the rule's nodes only then.

Where the ``If`` would cost more than it saves (inside a loop or branch body, where it runs
every iteration, or on an array known to be small) the rule is emitted unconditionally.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import numpy as np

from pyonnx.frontend.graph.values import Array
from pyonnx.frontend.graph.rare_case import only_if

__all__ = ["nan_rule"]

# Below this many elements (all dimensions known) the rule's nodes cost about what the If does.
SMALL = 4096


def _small(x: Array) -> bool:
    if any(not isinstance(d, int) for d in x.shape):
        return False
    return int(np.prod(x.shape, dtype=np.int64)) < SMALL


def nan_rule(ctx, x: Array, plain: Array, with_rule: Callable[[Any], Array]) -> Array:
    """``with_rule(ctx)``, computed only when ``x`` may hold a NaN (else ``plain``).

    Preconditions: ``x`` is a float Array; ``with_rule(ctx)`` gives ``plain``'s dtype and
    shape, and equals ``plain`` when ``x`` holds no NaN.
    """
    if not x.shape or _small(x) or len(ctx._scopes) > 1:
        return with_rule(ctx)
    total = ctx.op("ReduceSum", x, keepdims=0)  # over every axis: a 0-d value
    return only_if(ctx, ctx.op("IsNaN", total), plain, with_rule, "nan_rule")
