"""pyonnx: compile plain numpy-style Python into one ONNX model by reading its source.

``import pyonnx`` stays light: the converter (onnx-ir, which imports sympy) loads on the first
conversion, and onnxruntime on the first session.
"""

from __future__ import annotations

from pyonnx.api import CompiledFunction, compile, spec
from pyonnx.errors import ConversionError, ExecutionError, PyonnxError, RuntimeFallbackError
from pyonnx.loc import SourceLoc
from pyonnx.saved import SavedFunction, load, save
from pyonnx.transforms import grad, jacobian, value_and_grad, vjp
from pyonnx.version import __version__ as __version__  # re-exported

__all__ = [
    "CompiledFunction",
    "ConversionError",
    "ExecutionError",
    "PyonnxError",
    "RuntimeFallbackError",
    "SavedFunction",
    "SourceLoc",
    "compile",
    "grad",
    "jacobian",
    "load",
    "save",
    "spec",
    "value_and_grad",
    "vjp",
]
