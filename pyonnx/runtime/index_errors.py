"""numpy's IndexError for an integer index out of bounds, read off onnxruntime's failure.

Input: the text of the exception onnxruntime raised. The frontend names a node that takes one
integer index with numpy's axis (``_numpy_index_axis<k>``, ``_size<n>`` when the size was known
at conversion): a Gather (a read, ``np.put``'s position check) or a ScatterND (a row write
``x[i] = v``). Output: the IndexError numpy raises there, or None for any other failure.
"""

from __future__ import annotations

import re

__all__ = ["from_failure"]


def from_failure(text: str) -> IndexError | None:
    """numpy's IndexError for the failure whose message is ``text``, or None."""
    m = re.search(r"[Nn]ame:\s*'[^']*_numpy_index_axis(\d+)(?:_size(\d+))?[^']*'", text)
    if m is None:
        return None
    axis = int(m.group(1))
    r = re.search(r"idx=(-?\d+) must be within the inclusive range \[(-?\d+),(-?\d+)\]",
                  text)
    if r is not None:  # a Gather (a read)
        idx, size = int(r.group(1)), int(r.group(3)) + 1
        return IndexError(f"index {idx} is out of bounds for axis {axis} with size {size}")
    w = re.search(r"invalid indice found, indice = (-?\d+)", text)
    if w is None:
        return None
    # a ScatterND (a write x[i] = v): onnxruntime's message has no size; the name has it
    # when it was known at conversion time
    size = f" with size {m.group(2)}" if m.group(2) else ""
    return IndexError(f"index {w.group(1)} is out of bounds for axis {axis}{size}")
