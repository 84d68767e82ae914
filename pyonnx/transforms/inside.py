"""The transforms written inside a function being converted (``pyonnx.grad(loss)`` in a compiled
function): their ``__pyonnx_call__`` hooks, set on import."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from pyonnx.transforms.grads import grad, jacobian, value_and_grad
from pyonnx.transforms.vjp_function import vjp

__all__: list[str] = []


# ------------------------------------------------------------------ inside compiled functions
def _transform_call(transform: Callable[..., Any]) -> Callable[..., Any]:
    """``pyonnx.grad(loss)`` written inside a function being converted: evaluated at
    conversion time (its arguments must be known then); the result is then called like a
    module-level transformed function (:meth:`TransformedFunction.__pyonnx_call__`)."""

    def call(lowering, args: list, kwargs: dict) -> Any:
        from pyonnx.frontend.graph.values import is_static

        if not is_static(list(args)) or not is_static(list(kwargs.values())):
            raise lowering.ctx.error(f"pyonnx.{transform.__name__}() takes a function and "
                                     "argnums known at conversion time")
        try:
            return transform(*args, **kwargs)
        except (TypeError, ValueError) as e:
            raise lowering.ctx.error(f"pyonnx.{transform.__name__}: {e}") from None

    return call


def _vjp_call(lowering, args: list, kwargs: dict) -> Any:
    raise lowering.ctx.error("pyonnx.vjp cannot be called inside a compiled function (it runs "
                             "the function eagerly); use pyonnx.grad, pyonnx.value_and_grad or "
                             "pyonnx.jacobian")


for _transform in (grad, value_and_grad, jacobian):
    _transform.__pyonnx_call__ = _transform_call(_transform)
vjp.__pyonnx_call__ = _vjp_call
