"""VJP rules by op family; importing this package registers them in
:mod:`pyonnx.passes.gradient.registry`."""

from pyonnx.passes.gradient.rules import (  # noqa: F401  (import for the registrations)
    composite,
    elementwise,
    linalg,
    nn,
    reductions,
    shape,
)
