"""AST → onnx-ir lowering on top of the graph builder and the numpy registry: environment, expressions, statements, control flow, aliases."""
