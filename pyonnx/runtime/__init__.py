"""onnxruntime sessions for serialized models: provider choice, fallback, cache, fast calls.

Sees only ``ModelProto`` bytes: never imports the frontend or the passes.
"""

from pyonnx.runtime.providers import default_providers
from pyonnx.runtime.session import Session, SessionCache

__all__ = ["Session", "SessionCache", "default_providers"]
