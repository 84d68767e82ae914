"""AST → onnx-ir lowering: environment, builder, expressions, statements, indexing."""
