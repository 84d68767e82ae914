"""Per-conversion state of complex values kept on the Lowering context: a leaf module.

Input: the Lowering ``ctx``. Output: the mutable record, created empty on first use. These live
here, not in the modules that fill them (complex_writes, complex_calls), so that the real
alias machinery (alias_writes), iteration and the function lowerings can record into them
without importing the complex dispatcher or writer back (no import cycle,
tests/test_architecture.py). This module imports nothing from pyonnx.
"""

from __future__ import annotations

__all__ = ["written_arguments", "scalar_copies"]


def written_arguments(ctx) -> set:
    """Names of the complex arguments the function writes into."""
    found = getattr(ctx, "complex_written", None)
    if found is None:
        found = ctx.complex_written = set()
    return found


def scalar_copies(ctx) -> dict:
    """id → Complex of the numpy scalars read by an integer index (``z[i]``): immutable copies
    (their ``base`` is set all the same, to refuse writes through them)."""
    return ctx.__dict__.setdefault("complex_scalar_items", {})
