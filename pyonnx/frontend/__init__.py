"""Python source → canonical AST → onnx-ir model. Only ``pyonnx.api`` imports this package."""

from pyonnx import lazy_modules

lazy_modules.install()  # (before onnx-ir is imported: it would import sympy, unused)
