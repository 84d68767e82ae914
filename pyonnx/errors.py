"""The exceptions pyonnx raises.

``PyonnxError`` is the base. ``ConversionError`` points at the user's line: it is raised for a
user mistake or a construct pyonnx cannot convert, and renders like a compiler diagnostic::

    kernel.py:12:9: error: 'with' statements are not supported
        with open(path) as f:
        ^
"""

from __future__ import annotations

from pyonnx.loc import SourceLoc

__all__ = ["PyonnxError", "ConversionError", "RuntimeFallbackError", "ExecutionError"]


class PyonnxError(Exception):
    """Base class of every error pyonnx raises on purpose."""


class ConversionError(PyonnxError):
    """The Python source cannot be converted; ``loc`` says where.

    Attributes:
        message: what is wrong and, where possible, what to write instead.
        loc: the absolute source location, or None when no line applies (e.g. a bad signature).
    """

    def __init__(self, message: str, loc: SourceLoc | None = None):
        self.message = message
        self.loc = loc
        super().__init__(self._render())

    @property
    def filename(self) -> str | None:
        return self.loc.filename if self.loc else None

    @property
    def lineno(self) -> int | None:
        return self.loc.lineno if self.loc else None

    @property
    def col(self) -> int | None:
        return self.loc.col if self.loc else None

    def _render(self) -> str:
        if self.loc is None:
            return f"error: {self.message}"
        text = f"{self.loc}: error: {self.message}"
        line = self.loc.source_line
        if line:
            stripped = line.rstrip("\n")
            text += f"\n    {stripped}\n    {' ' * self.loc.col}^"
        return text

    def with_loc(self, loc: SourceLoc) -> ConversionError:
        """Returns this error placed at ``loc`` if it has no location yet."""
        if self.loc is not None:
            return self
        return type(self)(self.message, loc)


class RuntimeFallbackError(PyonnxError):
    """No execution provider could create a session for, or run, the model."""


class ExecutionError(PyonnxError):
    """onnxruntime failed while running a model; the message names the Python source line."""
