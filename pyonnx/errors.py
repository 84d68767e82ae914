"""The exceptions pyonnx raises.

``PyonnxError`` is the base. ``ConversionError`` points at the user's line: it is raised for a
user mistake or a construct pyonnx cannot convert, and renders like a compiler diagnostic::

    kernel.py:12:9: error: 'with' statements are not supported
        with open(path) as f:
        ^
"""

from __future__ import annotations

from pyonnx.loc import SourceLoc

__all__ = ["PyonnxError", "ConversionError", "short_filename", "RuntimeFallbackError", "ExecutionError",
           "numpy_execution_error"]


class PyonnxError(Exception):
    """Base class of every error pyonnx raises on purpose."""


class ConversionError(PyonnxError):
    """The Python source cannot be converted; ``loc`` says where.

    Attributes:
        message: what is wrong and, where possible, what to write instead.
        loc: the absolute source location, or None when no line applies (e.g. a bad signature).
        frames: for a refusal inside followed calls (helpers, library source), the call sites
            from the converted function's line inward and the refusing line, rendered as a
            traceback (``model.py:12 in transform → sklearn/utils/validation.py:290 in
            as_float_array: '.flags' is not supported``); empty otherwise.
        cause: what the innermost line refused, for that last line.
    """

    def __init__(self, message: str, loc: SourceLoc | None = None,
                 frames: tuple[SourceLoc, ...] = (), cause: str | None = None):
        self.message = message
        self.loc = loc
        # The followed calls, outermost first, ending at the line that refused (empty when
        # the refusal is in the function being converted itself).
        self.frames = tuple(frames)
        # What the innermost line refused (shown on the chain's last line).
        self.cause = cause
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
        if len(self.frames) > 1:
            text += "\n  call chain (outermost first):"
            for i, frame in enumerate(self.frames):
                arrow = "    " if i == 0 else "  → "
                where = f"{short_filename(frame.filename)}:{frame.lineno}"
                text += f"\n  {arrow}{where} in {frame.function or '?'}"
            if self.cause:
                text += f": {self.cause}"
        return text

    def with_loc(self, loc: SourceLoc) -> ConversionError:
        """Returns this error placed at ``loc`` if it has no location yet."""
        if self.loc is not None:
            return self
        return type(self)(self.message, loc, self.frames, self.cause)


def short_filename(filename: str) -> str:
    """A file's name as a traceback line shows it: the path inside ``site-packages`` for an
    installed package (``sklearn/utils/validation.py``), else the file's own name."""
    parts = filename.replace("\\", "/").split("/")
    for marker in ("site-packages", "dist-packages"):
        if marker in parts:
            return "/".join(parts[len(parts) - parts[::-1].index(marker):])
    return parts[-1]


class RuntimeFallbackError(PyonnxError):
    """No execution provider could create a session for, or run, the model."""


class ExecutionError(PyonnxError):
    """onnxruntime failed while running a model; the message names the Python source line."""


_NUMPY_KINDS = (ValueError, IndexError, TypeError, ZeroDivisionError, OverflowError,
                UnboundLocalError)
_EXECUTION_KINDS: dict[str, type] = {}


def numpy_execution_error(kind: str, explained: str) -> ExecutionError | None:
    """The error for a run-time check that stands for a numpy exception: an ExecutionError
    that is also numpy's exception class (``kind``, e.g. ``"ValueError"``), so that both
    ``except ValueError`` (as around the numpy code) and ``except pyonnx.ExecutionError`` catch
    it; ``explained`` is its message (numpy's words at the user's line). None for a kind
    numpy does not raise here."""
    if kind == "ExecutionError":  # a run-time refusal of pyonnx's, not numpy's error
        return ExecutionError(explained)
    base = next((c for c in _NUMPY_KINDS if c.__name__ == kind), None)
    if kind == "LinAlgError":  # np.linalg's ValueError subclass
        import numpy as np
        base = np.linalg.LinAlgError
    if base is None:
        return None
    cls = _EXECUTION_KINDS.get(kind)
    if cls is None:
        cls = _EXECUTION_KINDS[kind] = type(f"Execution{kind}", (ExecutionError, base), {
            "__module__": __name__,
            "__doc__": f"A run-time check failed where numpy raises {kind}."})
    return cls(explained)
