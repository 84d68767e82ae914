"""onnx-ir passes, one per module; :mod:`pyonnx.passes.pipeline` runs them in order.

Passes see only ``onnx_ir.Model``: they never import :mod:`pyonnx.frontend`.
"""
