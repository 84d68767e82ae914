"""The package version, in a module of its own so that the converter can stamp models with it
without importing the ``pyonnx`` package (which imports the converter)."""

__version__ = "0.1.0"
