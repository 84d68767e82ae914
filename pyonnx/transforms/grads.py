"""pyonnx.grad, pyonnx.value_and_grad, pyonnx.jacobian."""

from __future__ import annotations

import inspect
from collections.abc import Callable, Sequence
from typing import Any

from pyonnx.api import DEFAULT_OPSET, CompiledFunction
from pyonnx.errors import ConversionError
from pyonnx.transforms.compiled import TransformedFunction, _NestedGrads
from pyonnx.transforms.steps import _Step

__all__ = ["grad", "value_and_grad", "jacobian"]


def _options(f: Any) -> tuple[Callable[..., Any], tuple[_Step, ...], dict[str, Any]]:
    """(python function, steps so far, compile options) of a function or compiled function."""
    if isinstance(f, CompiledFunction):
        options = dict(providers=f._providers_arg, static_argnames=tuple(f.static_argnames),
                       opset=f.opset, cache_size=f._cache_size, static_shapes=f.static_shapes,
                       cache=f.cache)
        return f.fn, getattr(f, "steps", ()), options
    if callable(f):
        return f, (), dict(opset=DEFAULT_OPSET)
    raise TypeError(f"expected a function, got {type(f).__name__}")


def _check_argnums(fn: Callable[..., Any], argnums: Any, name: str) -> int | tuple[int, ...]:
    if isinstance(argnums, (list, tuple)):
        nums = tuple(argnums)
    else:
        nums = (argnums,)
    if not nums or not all(isinstance(a, int) and not isinstance(a, bool) for a in nums):
        raise TypeError(f"{name}: argnums must be an int or a tuple of ints, got {argnums!r}")
    try:
        n = len(inspect.signature(fn).parameters)
    except (TypeError, ValueError):  # pragma: no cover - builtins
        n = None
    if n is not None:
        for a in nums:
            if not -n <= a < n:
                raise ValueError(f"{name}: argnums {a} is out of range for {fn.__qualname__}, "
                                 f"which has {n} parameters")
        nums = tuple(a % n for a in nums)
    return nums if isinstance(argnums, (list, tuple)) else nums[0]


def grad(f: Callable[..., Any], argnums: int | Sequence[int] = 0) -> TransformedFunction:
    """The gradient of a scalar-valued function, as a compiled function (``jax.grad``).

    Args:
        f: a numpy-style Python function or a :class:`~pyonnx.CompiledFunction` (also a
            transformed one: ``grad(grad(f))``). Its output must be a float scalar.
        argnums: the argument (int) or arguments (tuple) to differentiate with respect to.

    Returns:
        A compiled function with ``f``'s parameters returning the gradient (shaped like the
        argument), or a tuple of gradients for a tuple ``argnums``.

    Raises:
        ConversionError: (at the first call) the output is not a float scalar, an argument at
            ``argnums`` is not float, or an op in ``f`` has no derivative rule (at its line).
    """
    fn, steps, options = _options(f)
    argnums = _check_argnums(fn, argnums, "grad")
    return TransformedFunction(fn, (*steps, _Step("grad", argnums)), **options)


def value_and_grad(f: Callable[..., Any],
                   argnums: int | Sequence[int] = 0) -> TransformedFunction:
    """``f``'s value and gradient from one model (``jax.value_and_grad``).

    Returns:
        A compiled function returning ``(value, grad)``; ``grad`` is a tuple for a tuple
        ``argnums``.
    """
    fn, steps, options = _options(f)
    argnums = _check_argnums(fn, argnums, "value_and_grad")
    cls = _NestedGrads if isinstance(argnums, tuple) else TransformedFunction
    return cls(fn, (*steps, _Step("value_and_grad", argnums)), **options)


def jacobian(f: Callable[..., Any], argnums: int | Sequence[int] = 0) -> TransformedFunction:
    """The Jacobian of an array-valued function in reverse mode (``jax.jacrev``).

    One model: the forward pass, then a ``Loop`` over the output's elements running the VJP
    with each one-hot cotangent. ``jacobian(grad(f))`` gives the Hessian.

    Returns:
        A compiled function returning ``d out / d x`` of shape ``out.shape + x.shape`` (a tuple
        of them for a tuple ``argnums``).
    """
    fn, steps, options = _options(f)
    argnums = _check_argnums(fn, argnums, "jacobian")
    return TransformedFunction(fn, (*steps, _Step("jacobian", argnums)), **options)
