"""Function transformations with jax's names: ``grad``, ``value_and_grad``, ``vjp``, ``jacobian``.

Input: a plain numpy-style Python function or a :class:`pyonnx.CompiledFunction` (itself
possibly a transformed one: ``grad(grad(f))``). Output: a compiled function whose model
computes the forward pass and the derivatives in one ONNX model, converted and cached per
input signature like :func:`pyonnx.compile`, with ``to_onnx``.

The derivatives are derived on the IR, not the Python source: the function is converted as
``compile`` would, its item assignments lowered (``LowerSetItemPass``), optimized, then
differentiated by :mod:`pyonnx.passes.gradient` (and the pipeline runs again), through
run-time ``if``/``for``/``while`` too (:mod:`pyonnx.passes.gradient.control_flow`).

Transformations stack: each one differentiates the model the previous one produced, so
``grad(grad(f))`` differentiates the gradient model.

A transformed function may be called inside a function being compiled (a training loop
calling ``value_and_grad`` at every step): its model for the arguments' types is inlined
into the caller's graph, so the whole loop is one model; ``pyonnx.grad(f)`` may also be
written inside. ``vjp`` cannot (it runs eagerly).

Semantics follow jax: ``grad`` needs a scalar float output and float arguments at ``argnums``
(arrays, numpy floats or Python floats, whose gradient is a numpy float64 scalar); ``argnums``
may be an int or a tuple (then a tuple of gradients); ``value_and_grad`` returns
``(value, grad)``; ``vjp(f, *primals)`` returns ``(f(*primals), vjp_fn)`` with ``vjp_fn(ct)``
giving one cotangent per primal (None for integer, bool and static primals, where jax gives
float0 zeros); ``jacobian`` is reverse mode (``jax.jacrev``): shape ``out.shape + in.shape``.
Not supported: ``has_aux``, ``holomorphic``, ``allow_int``, pytrees other than tuples of
arrays.

Modules: ``steps`` (one differentiation step), ``compiled`` (TransformedFunction), ``grads``
(grad, value_and_grad, jacobian), ``vjp_function`` (vjp), ``inside`` (the hooks for calls
inside compiled functions, set when this package is imported).
"""

from __future__ import annotations

from pyonnx.transforms import inside  # noqa: F401  (sets the __pyonnx_call__ hooks)
from pyonnx.transforms.compiled import TransformedFunction
from pyonnx.transforms.grads import grad, jacobian, value_and_grad
from pyonnx.transforms.vjp_function import vjp

__all__ = ["grad", "value_and_grad", "vjp", "jacobian", "TransformedFunction"]
