"""The folding rule table: the :class:`Inputs` protocol a rule sees, ``RULES``, ``PARTIAL`` and
``register``. Imports no rule (the families import it)."""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Any, Protocol

import numpy as np
import onnx_ir as ir

__all__ = ["RULES", "PARTIAL", "register", "Inputs", "Result", "Rule"]


Result = Sequence[Any] | None


class Inputs(Protocol):
    """What a rule sees of the folding state (implemented by the pass)."""

    limit: int  # the largest output (in elements) a rule may create

    def const(self, index: int) -> np.ndarray | None:
        """The constant value of input ``index`` (None: absent, not constant or too large)."""

    def consts(self) -> list[np.ndarray | None] | None:
        """All present inputs' values (None for omitted optional inputs), or None if any present
        input is not constant."""

    def rewired(self, detached: ir.Value) -> None:
        """Records that the rule changed the node's inputs in place, no longer using
        ``detached`` (whose producer is removed if nothing else uses it)."""


Rule = Callable[[ir.Node, Inputs], Result]
RULES: dict[str, Rule] = {}
# Ops whose rule may fire when some input is not constant; the others are only tried when
# every input is (which keeps the pass at about a microsecond per ordinary node).
PARTIAL: set[str] = set()


def register(*op_types: str, partial: bool = False) -> Callable[[Rule], Rule]:
    """Registers a rule for default-domain ops.

    Args:
        op_types: the ops it evaluates.
        partial: the rule also looks at nodes with non-constant inputs (shapes, chains).
    """
    def decorator(fn: Rule) -> Rule:
        for op in op_types:
            RULES[op] = fn
            if partial:
                PARTIAL.add(op)
        return fn
    return decorator
