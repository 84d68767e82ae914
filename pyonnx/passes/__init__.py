"""onnx-ir passes, one per module; :mod:`pyonnx.passes.pipeline` runs them in order.

Passes see only ``onnx_ir.Model``: they never import :mod:`pyonnx.frontend`.
"""

from pyonnx import lazy_modules

lazy_modules.install()  # (before onnx-ir is imported: it would import sympy, unused)

