"""pyonnx.vjp: the outputs at the primals and a VJPFunction mapping cotangents to the cotangents
of the arguments."""

from __future__ import annotations

import dataclasses
import inspect
from collections.abc import Callable
from typing import Any

import numpy as np

from pyonnx.api import CompiledFunction, _build_model
from pyonnx.errors import ConversionError
from pyonnx.transforms.compiled import TransformedFunction
from pyonnx.transforms.grads import _options
from pyonnx.transforms.steps import _Step

__all__ = ["vjp", "VJPFunction"]


# ------------------------------------------------------------------ vjp
class _VJPModel(TransformedFunction):
    """The compiled ``(*primals, *cotangents) -> cotangents of the float primals``."""

    def __init__(self, fn: Callable[..., Any], steps: tuple[_Step, ...], n_out: int,
                 **options: Any):
        super().__init__(fn, steps, **options)
        P = inspect.Parameter
        params = list(self._signature.parameters.values())
        if any(p.kind in (P.VAR_POSITIONAL, P.VAR_KEYWORD, P.KEYWORD_ONLY) for p in params):
            raise TypeError("pyonnx.vjp needs a function with positional parameters only")
        taken = {p.name for p in params}
        base = "cotangent"
        while any(n.startswith(base) for n in taken):
            base += "_"
        self._ct_names = [base] if n_out == 1 else [f"{base}_{k}" for k in range(n_out)]
        params += [P(n, P.POSITIONAL_OR_KEYWORD) for n in self._ct_names]
        self._signature = self._signature.replace(parameters=params)
        self._params = [p.name for p in params]
        self._user_static = set(self.static_argnames)

    def _build(self, params: list):
        n_ct = len(self._ct_names)
        fn_params, ct_params = params[:-n_ct], params[-n_ct:]
        for p in ct_params:
            if p.kind == "static":
                raise ConversionError(f"vjp: the cotangent '{p.name}' must be an array")
        wrt = []
        for i, p in enumerate(fn_params):
            if p.kind != "static":
                if p.spec.dtype.kind == "f":
                    wrt.append(i)
            elif p.name not in self._user_static and _is_float_value(p.value):
                raise ConversionError(
                    f"vjp cannot differentiate with respect to argument '{p.name}': its value is "
                    "used at conversion time; pass a float array")
        if not wrt:
            raise ConversionError("vjp: no primal is a float array or Python float, so there "
                                  "is nothing to differentiate")
        last = dataclasses.replace(self.steps[-1], argnums=tuple(wrt))
        steps = [lambda c, s=s: s.apply(c, fn_params, nested=True) for s in self.steps[:-1]]
        steps.append(lambda c: last.apply(c, fn_params, ct_params))
        return _build_model(self.fn, fn_params, self.opset, steps)


def _is_float_value(a: Any) -> bool:
    if isinstance(a, float) or isinstance(a, np.floating):
        return True
    return isinstance(a, np.ndarray) and a.dtype.kind == "f"


class VJPFunction:
    """``vjp_fn`` of :func:`vjp`: cotangent(s) of the output(s) → one cotangent per primal.

    Attributes:
        compiled: the compiled model ``(*primals, *cotangents) -> cotangents``.
        primals: the primal arguments (full positional tuple).
    """

    def __init__(self, compiled: _VJPModel, primals: tuple, out: Any, diff: list[bool]):
        self.compiled = compiled
        self.primals = primals
        self._outs = out if isinstance(out, tuple) else (out,)
        self._tuple = isinstance(out, tuple)
        self._diff = diff

    def _cts(self, ct: Any) -> tuple:
        cts = ct if self._tuple else (ct,)
        if self._tuple and (not isinstance(ct, tuple) or len(ct) != len(self._outs)):
            raise TypeError(f"vjp_fn expects a tuple of {len(self._outs)} cotangents")
        result = []
        for k, (c, o) in enumerate(zip(cts, self._outs)):
            if o is None:  # (a function that may return None: its conversion refuses it)
                result.append(np.asarray(c))
                continue
            o = np.asarray(o)
            c = np.asarray(c, dtype=o.dtype) if not isinstance(c, np.ndarray) else c
            if c.shape != o.shape or c.dtype != o.dtype:
                raise ValueError(f"vjp_fn: cotangent {k} has shape {c.shape} and dtype {c.dtype}"
                                 f", but the output has shape {o.shape} and dtype {o.dtype}")
            result.append(c)
        return tuple(result)

    def __call__(self, ct: Any) -> tuple:
        grads = self.compiled(*self.primals, *self._cts(ct))
        it = iter(grads)
        return tuple(next(it) if d else None for d in self._diff)

    def to_onnx(self, ct: Any):
        """The ``onnx.ModelProto`` computing the cotangents for these primals' signature."""
        return self.compiled.to_onnx(*self.primals, *self._cts(ct))


# The compiled models are cached on the function itself (this attribute of its __dict__), per
# steps and static argument names: a function made on the fly, a lambda or a generated
# program, takes its models and onnxruntime sessions with it when it goes (a module-level
# dict, or a weak one whose values hold the function, kept them all).
_VJP_CACHE = "_pyonnx_vjp_cache"


def vjp(f: Callable[..., Any], *primals: Any) -> tuple[Any, VJPFunction]:
    """``(f(*primals), vjp_fn)`` as ``jax.vjp``: ``vjp_fn(ct)`` returns the cotangents of the
    primals (a tuple, one per primal; None for integer, bool and static ones).

    The forward value comes from ``f`` compiled; ``vjp_fn`` runs a second model (forward and
    backward pass) taking the primals and the cotangent(s). Both are cached per function (and
    per signature, like ``compile``).

    Raises:
        ConversionError: ``f`` cannot be converted or differentiated (at the line).
    """
    fn, steps, options = _options(f)
    sig = inspect.signature(fn)
    try:
        bound = sig.bind(*primals)
    except TypeError as e:
        raise TypeError(f"vjp: {e}") from None
    bound.apply_defaults()
    args = tuple(bound.arguments[p] for p in sig.parameters)
    key = (steps, tuple(sorted(options.get("static_argnames", ()))))
    per_function = fn.__dict__.setdefault(_VJP_CACHE, {})
    if key not in per_function:
        forward = f if isinstance(f, CompiledFunction) else CompiledFunction(fn, **options)
        per_function[key] = (forward, {})
    forward, models = per_function[key]
    # The backward model runs at the primals as they were: a function that writes into an
    # argument changes it in the forward call (numpy's meaning), not the point of the VJP.
    primal_args = tuple(a.copy() if isinstance(a, np.ndarray) else a for a in args)
    out = forward(*args)
    n_out = len(out) if isinstance(out, tuple) else 1
    model = models.get(n_out)
    if model is None:
        model = models[n_out] = _VJPModel(fn, (*steps, _Step("vjp", ())), n_out, **options)
    static = set(options.get("static_argnames", ()))
    diff = [name not in static and _is_float_value(a)
            for name, a in zip(sig.parameters, args)]
    return out, VJPFunction(model, primal_args, out, diff)
