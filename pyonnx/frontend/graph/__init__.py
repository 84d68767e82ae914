"""The graph builder: what every lowering function builds with (the conversion context, values,
shapes, dtypes, kernels, indexing, run-time sequences). Imports nothing from the numpy registry
(``frontend.numpy_calls``) or statement lowering (``frontend.lower``); see docs/architecture.md."""
