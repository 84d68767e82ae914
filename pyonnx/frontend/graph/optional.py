"""A number that may still be ``None``: the "not found yet" sentinel.

``best = None`` before a loop whose body binds ``best = v`` (a 0-d value) makes ``best`` after
an iteration either still None or a number, which only the run decides. pyonnx carries it as
two graph values: ``has`` (a 0-d bool, False while Python's value is None) and ``value`` (the
number; a zero of its dtype while ``has`` is False, never read then).

Reading such a name: ``best is None`` / ``best is not None`` is ``not has`` / ``has``; in the
operand of ``or``/``and`` or the branch of an ``if`` that such a test guards, the name is its
number (lower/optional_reads.py); anywhere else the read adds a run-time check that fails,
with TypeError, where Python's value would be None (Python raises TypeError when None meets
an operator; a model cannot return None, so a possibly-None value returned fails too).
"""

from __future__ import annotations

import dataclasses

from pyonnx.frontend.graph.values import Array

__all__ = ["Maybe"]


@dataclasses.dataclass(eq=False)
class Maybe:
    """``has``: 0-d bool Array (False: Python's value is None); ``value``: the 0-d number."""

    pyonnx_dynamic = True  # values.is_static: a graph value
    has: Array
    value: Array

    def __bool__(self) -> bool:  # (reads go through lower/optional_reads.py)
        raise TypeError("pyonnx bug: a possibly-None number read statically")
