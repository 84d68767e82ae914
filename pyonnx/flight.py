"""One conversion per signature under concurrent first calls (``CompiledFunction._miss``).

The first caller of a signature registers a :class:`_Flight` and converts; the others wait on
it, then look the signature up again (or raise a copy of the conversion's error).
"""

from __future__ import annotations

import threading

from pyonnx.errors import ConversionError

__all__ = ["_Flight", "_copy_error"]


class _Flight:
    """One signature being converted: the other callers of that signature wait on ``done``.

    Attributes:
        static_idx: the static arguments the conversion was keyed with (an error is shared
            with the waiters only while they still hold).
        error: the ConversionError it raised, or None.
    """

    __slots__ = ("done", "error", "static_idx")

    def __init__(self, static_idx: frozenset[int]):
        self.done = threading.Event()
        self.error: ConversionError | None = None
        self.static_idx = static_idx


def _copy_error(error: ConversionError) -> ConversionError:
    """A copy of ``error`` for another thread to raise (one exception object raised in two
    threads at once would mix their tracebacks)."""
    copy = type(error).__new__(type(error))
    copy.__dict__.update(error.__dict__)
    copy.args = error.args
    return copy
