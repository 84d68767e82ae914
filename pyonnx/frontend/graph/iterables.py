"""Run-time iterables: what a ``for`` loop over values only known at run time iterates.

``DynamicRange`` is ``range(...)`` with a run-time bound (made by the ``range`` entry of the numpy
registry, consumed by ``lower/iteration.py``); ``DynamicIter`` is any run-time sequence of items
(made by iteration and by run-time lists in ``sequences.py``). They live here, under both, so the
registry, the sequences and the statement lowering need not import each other.
"""

from __future__ import annotations

import dataclasses
from typing import Any, Callable

from pyonnx.frontend.graph.values import Array

__all__ = ["DynamicIter", "DynamicRange"]


@dataclasses.dataclass
class DynamicIter:
    """A run-time sequence: ``count`` items (an int64 0-d Array), item ``k`` from ``item``."""

    count: Array
    item: Callable[[Any, Array], Any]


@dataclasses.dataclass
class DynamicRange:
    """``range(start, stop, step)`` where some bound is only known at run time."""

    start: Any
    stop: Any
    step: Any
