"""Source locations: where in the user's file a piece of a model came from."""

from __future__ import annotations

import dataclasses

__all__ = ["SourceLoc"]


@dataclasses.dataclass(frozen=True, slots=True)
class SourceLoc:
    """An absolute position in a user's source file.

    Attributes:
        filename: path of the file, as ``inspect`` reports it.
        lineno: 1-based line number in that file (absolute, not function-relative).
        col: 0-based column offset in that line.
        function: name of the Python function the position is in.
        source_line: the text of that line, for error messages (may be empty).
    """

    filename: str
    lineno: int
    col: int
    function: str = ""
    source_line: str = ""

    def __str__(self) -> str:
        return f"{self.filename}:{self.lineno}:{self.col + 1}"
