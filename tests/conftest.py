"""Test-session settings shared by every test module."""

import os

# Every model converted by the tests also checks pyonnx's fast serializer against onnx-ir's
# serde byte for byte (pyonnx/passes/pipeline.py reads this at import).
os.environ.setdefault("PYONNX_VERIFY_SERIALIZER", "1")
