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
"""

from __future__ import annotations

import dataclasses
import inspect
from collections.abc import Callable, Sequence
from typing import Any

import numpy as np

from pyonnx.api import DEFAULT_OPSET, CompiledFunction, _build_model
from pyonnx.errors import ConversionError

__all__ = ["grad", "value_and_grad", "vjp", "jacobian", "TransformedFunction"]


# ------------------------------------------------------------------ steps
@dataclasses.dataclass(frozen=True)
class _Step:
    """One differentiation applied to the converted model.

    kind: "grad", "value_and_grad", "jacobian" or "vjp"; argnums: int or tuple of ints
    (for "vjp": the tuple of differentiated positions, decided per signature).
    """

    kind: str
    argnums: int | tuple[int, ...]

    @property
    def indices(self) -> tuple[int, ...]:
        return (self.argnums,) if isinstance(self.argnums, int) else tuple(self.argnums)

    def apply(self, converted, params: list, cotangents: Sequence = ()):
        """Converted → Converted with the derivative outputs."""
        from pyonnx.frontend.convert import Converted
        from pyonnx.passes.gradient.entry import differentiate, differentiate_jacobian
        from pyonnx.passes.pipeline import optimize

        from pyonnx.passes.lower_setitem import LowerSetItemPass

        name = self.kind
        inputs = _input_indices(params, self.indices, name)
        wrt_params = [params[i] for i in self.indices]
        # Item assignment (pyonnx.SetItem) becomes ScatterND & co., which have VJP rules:
        # GradientPass requires no pseudo-op left. (optimize runs it first too; explicit here
        # because differentiation depends on it.) Then unique names, a simpler forward graph.
        model = optimize(LowerSetItemPass()(converted.model).model)
        structure = converted.structure
        if self.kind in ("grad", "value_and_grad"):
            if structure != "single":
                raise ConversionError(
                    f"{name} requires a function returning one scalar, but "
                    f"{_fn_name(model)} returns a tuple of {len(model.graph.outputs)} values")
            names = [f"grad_{p.name}" for p in wrt_params]
            keep = self.kind == "value_and_grad"
            differentiate(model, inputs, keep_outputs=keep, names=names)
            grads = tuple(p.spec.ndim == 0 for p in wrt_params)
            if keep:
                return Converted(model, "tuple", (converted.output_is_scalar[0], *grads))
            if isinstance(self.argnums, int):
                return Converted(model, "single", grads)
            return Converted(model, "tuple", grads)
        if self.kind == "jacobian":
            if structure != "single":
                raise ConversionError("jacobian needs a function returning one array, not a "
                                      "tuple")
            out_rank = 0 if converted.output_is_scalar[0] else None
            differentiate_jacobian(model, inputs, names=[f"jacobian_{p.name}"
                                                         for p in wrt_params])
            scal = tuple(out_rank == 0 and p.spec.ndim == 0 for p in wrt_params)
            if isinstance(self.argnums, int):
                return Converted(model, "single", scal)
            return Converted(model, "tuple", scal)
        # vjp: one cotangent input per output, one output per differentiated primal.
        import onnx_ir as ir

        from pyonnx.frontend.graph import dtypes

        outs = list(model.graph.outputs)
        if len(cotangents) != len(outs):
            raise ConversionError(f"vjp: the function has {len(outs)} outputs but "
                                  f"{len(cotangents)} cotangents were given")
        ct_values = []
        for k, (p, out) in enumerate(zip(cotangents, outs)):
            want = out.dtype
            if want is not None and dtypes.to_ir(p.spec.dtype) != want:
                raise ConversionError(
                    f"vjp: cotangent {k} has dtype {p.spec.dtype}, but the output it stands for "
                    f"has dtype {want.numpy()}; pass a cotangent of the output's dtype")
            if out.shape is not None and len(out.shape) != p.spec.ndim:
                raise ConversionError(
                    f"vjp: cotangent {k} has rank {p.spec.ndim}, but its output has rank "
                    f"{len(out.shape)}")
            ct_values.append(ir.Value(name=p.name, shape=ir.Shape(p.spec.shape),
                                      type=ir.TensorType(dtypes.to_ir(p.spec.dtype))))
        differentiate(model, inputs, cotangents=ct_values,
                      names=[f"vjp_{p.name}" for p in wrt_params])
        return Converted(model, "tuple", tuple(p.spec.ndim == 0 for p in wrt_params))


def _fn_name(model) -> str:
    return model.graph.name or "the function"


def _input_indices(params: list, argnums: Sequence[int], name: str) -> list[int]:
    """Graph input index of each argument (static arguments are no inputs)."""
    position = {}
    k = 0
    for i, p in enumerate(params):
        if p.kind != "static":
            position[i] = k
            k += 1
    result = []
    for i in argnums:
        if i >= len(params) or i < -len(params):
            raise ConversionError(f"{name}: argnums {i} is out of range for a function of "
                                  f"{len(params)} arguments")
        i %= len(params)
        p = params[i]
        if p.kind == "static":
            raise ConversionError(
                f"{name} cannot differentiate with respect to argument '{p.name}': its value is "
                "used at conversion time (a static argument, or a Python number that decides "
                "shapes or control flow); pass a float array")
        dt = p.spec.dtype
        if dt.kind != "f":
            raise ConversionError(
                f"{name} requires real-valued (float) inputs, but argument '{p.name}' has dtype "
                f"{dt}; differentiate with respect to float arrays or Python floats (e.g. pass "
                "x.astype(np.float64))")
        result.append(position[i])
    return result


# ------------------------------------------------------------------ compiled functions
class TransformedFunction(CompiledFunction):
    """A compiled function whose model is differentiated after conversion.

    Attributes:
        steps: the differentiations applied, innermost first.
    """

    def __init__(self, fn: Callable[..., Any], steps: tuple[_Step, ...], **options: Any):
        super().__init__(fn, **options)
        self.steps = steps

    def _build(self, params: list):
        steps = [lambda c, s=s: s.apply(c, params) for s in self.steps]
        return _build_model(self.fn, params, self.opset, steps)

    def __repr__(self) -> str:
        kinds = "".join(f"{s.kind}(" for s in reversed(self.steps))
        return f"<pyonnx.{kinds}{self.fn.__qualname__}{')' * len(self.steps)}>"

    def _model_for(self, params: list):
        """(optimized ir.Model, Converted) for ``params``: the model ``_build`` serializes."""
        from pyonnx.frontend.convert import convert
        from pyonnx.passes.pipeline import optimize

        converted = convert(self.fn, params, self.opset)
        for s in self.steps:
            converted = s.apply(converted, params)
        return optimize(converted.model), converted

    def _pack(self, outputs: list, structure: str) -> Any:
        """The model's outputs as this function returns them (see ``__call__``)."""
        return outputs[0] if structure == "single" else tuple(outputs)

    def __pyonnx_call__(self, lowering, args: list, kwargs: dict) -> Any:
        """A call inside a function being converted (``value, grads = step(w, x, y)`` in a
        compiled training loop): the derivative model for the arguments' types, converted as
        a call would convert it, then its nodes inlined into the graph being built, so the
        caller stays one model.

        Raises:
            ConversionError: (at the call) an argument holds arrays in a container, or a
                Python-number argument would have to be known at conversion time.
        """
        return _inline_call(self, lowering, args, kwargs)


class _NestedGrads(TransformedFunction):
    """``value_and_grad`` with a tuple ``argnums``: the flat ``(value, g0, g1...)`` of the
    model returned as jax does, ``(value, (g0, g1...))``."""

    def __call__(self, *args: Any, **kwargs: Any) -> Any:
        out = self._call(*args, **kwargs)
        return out[0], tuple(out[1:])

    def _pack(self, outputs: list, structure: str) -> Any:
        return outputs[0], tuple(outputs[1:])


def _inline_call(f: TransformedFunction, lowering, args: list, kwargs: dict) -> Any:
    """:meth:`TransformedFunction.__pyonnx_call__`: returns frontend Arrays."""
    import onnx_ir as ir

    from pyonnx.frontend.convert import Param
    from pyonnx.frontend.graph.context import NeedStatic
    from pyonnx.frontend.graph.values import Array, is_static
    from pyonnx.specs import spec

    ctx = lowering.ctx
    try:
        bound = f._signature.bind(*args, **kwargs)
    except TypeError as e:
        raise ctx.error(f"{f!r}: {e}") from None
    bound.apply_defaults()
    params: list = []
    arrays: dict[str, Array] = {}
    for name, a in bound.arguments.items():
        if isinstance(a, Array):
            if name in f.static_argnames:
                raise ctx.error(f"{f!r}: argument '{name}' is static, so its value must be known "
                                "at conversion time, but it is an array computed in the model")
            dims = tuple(d if isinstance(d, int) else f"{name}_{k}" for k, d in enumerate(a.shape))
            params.append(Param(name, "scalar" if a.weak else "tensor", spec=spec(a.dtype, dims)))
            arrays[name] = a
        elif is_static(a):
            params.append(Param(name, "static", value=a))
        else:
            raise ctx.error(f"{f!r}: argument '{name}' holds arrays in a container; pass each "
                            "array as an argument of its own")
    try:
        model, converted = f._model_for(params)
    except NeedStatic as e:
        raise ctx.error(f"{f!r} needs the value of its argument(s) "
                        f"{', '.join(sorted(e.argnames))} at conversion time, but the call "
                        "passes a value computed in the model; pass a literal") from None
    if getattr(converted.structure, "writeback", ()):
        raise ctx.error(f"{f!r} writes into its array arguments, which a call inside a compiled "
                        "function cannot do; return the new values instead")
    graph = model.graph
    mapping: dict[ir.Value, ir.Value] = {}
    for inp, name in zip(graph.inputs, arrays):
        mapping[inp] = arrays[name].value
    for init in list(graph.initializers.values()):
        arr = init.const_value.numpy()
        mapping[init] = ctx.const(arr, arr.dtype)
    outputs = list(graph.outputs)
    graph.outputs.clear()
    for old, new in mapping.items():
        old.replace_all_uses_with(new)
    nodes = list(graph)
    graph.remove(nodes)
    for node in nodes:
        _rename(ctx, node, mapping)
        ctx.nodes.append(node)
    results = []
    for v in outputs:
        value = mapping.get(v, v)
        if v.shape is None or v.dtype is None:
            raise ctx.error(f"{f!r}: the rank of its output '{v.name}' is unknown")
        shape = []
        for d in v.shape:
            d = d if isinstance(d, int) else getattr(d, "value", None)
            if isinstance(d, str) and d.rpartition("_")[0] in arrays:
                name, _, k = d.rpartition("_")
                d = arrays[name].shape[int(k)]
            shape.append(d if isinstance(d, int) else None)
        if value.producer() is None or value in (r.value for r in results):
            value = ctx.op("Identity", value)
        results.append(Array(value, v.dtype.numpy(), tuple(shape)))
    return f._pack(results, str(converted.structure))


def _rename(ctx, node, mapping: dict) -> None:
    """Fresh value names for an inlined node's outputs (and its subgraphs' values); composite
    marks (``meta["pyonnx.derivative"]``) follow the inputs and constants replaced."""
    import onnx_ir as ir

    mark = node.meta.get("pyonnx.derivative")
    if mark is not None:
        node.meta["pyonnx.derivative"] = (mark[0], [mapping.get(x, x) for x in mark[1]])
    for out in node.outputs:
        if out.name:
            out.name = ctx.fresh_name(out.name)
    for attr in node.attributes.values():
        graphs = [attr.value] if attr.type == ir.AttributeType.GRAPH else \
            list(attr.value) if attr.type == ir.AttributeType.GRAPHS else []
        for g in graphs:
            for v in g.inputs:
                if v.name:
                    v.name = ctx.fresh_name(v.name)
            for n in g:
                _rename(ctx, n, mapping)


def _options(f: Any) -> tuple[Callable[..., Any], tuple[_Step, ...], dict[str, Any]]:
    """(python function, steps so far, compile options) of a function or compiled function."""
    if isinstance(f, CompiledFunction):
        options = dict(providers=f._providers_arg, static_argnames=tuple(f.static_argnames),
                       opset=f.opset, cache_size=f._cache_size, static_shapes=f.static_shapes)
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
        steps = [lambda c, s=s: s.apply(c, fn_params) for s in self.steps[:-1]]
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


_VJP_CACHE: dict[tuple, tuple[CompiledFunction, dict[int, _VJPModel]]] = {}


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
    key = (fn, steps, tuple(sorted(options.get("static_argnames", ()))))
    if key not in _VJP_CACHE:
        forward = f if isinstance(f, CompiledFunction) else CompiledFunction(fn, **options)
        _VJP_CACHE[key] = (forward, {})
    forward, models = _VJP_CACHE[key]
    out = forward(*args)
    n_out = len(out) if isinstance(out, tuple) else 1
    model = models.get(n_out)
    if model is None:
        model = models[n_out] = _VJPModel(fn, (*steps, _Step("vjp", ())), n_out, **options)
    static = set(options.get("static_argnames", ()))
    diff = [name not in static and _is_float_value(a)
            for name, a in zip(sig.parameters, args)]
    return out, VJPFunction(model, args, out, diff)


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
