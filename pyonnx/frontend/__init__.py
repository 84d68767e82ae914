"""Python source → canonical AST → onnx-ir model. Only ``pyonnx.api`` imports this package."""
