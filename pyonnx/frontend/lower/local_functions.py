"""Functions defined inside the compiled function: nested ``def`` and ``lambda``.

Input: the calls the canonicalization marks (:mod:`pyonnx.frontend.canonicalize.local_functions`):
``pyonnx_def`` (a definition: its defaults and the enclosing values it reads) and
``pyonnx_closure`` (a read of a name bound to a local function: the enclosing values now).
Output: a :class:`LocalFunction`, a static value; calling it inlines its body as a module-level
helper is inlined (:meth:`FunctionLowering.inline_local`), with the enclosing values bound as
its locals (so writes into an enclosing array reach the enclosing names, as numpy's shared
memory does). Python reads a closure's variables when it is called: a function value called
after an enclosing variable it reads was rebound is refused rather than read stale.
"""

from __future__ import annotations

import ast
import inspect
from typing import Any

from pyonnx.frontend.graph.values import Undefined

__all__ = ["LocalFunction", "define", "with_current_values"]

_MISSING = object()


class LocalFunction:
    """A nested function or lambda, as a conversion-time value.

    Attributes:
        tree: its canonical FunctionDef (``<lambda>`` for a lambda).
        signature: its parameters, with the default values evaluated at the definition.
        captured: enclosing name → value read at the last reference.
        frame: the lowering of the enclosing function.
    """

    def __init__(self, tree: ast.FunctionDef, signature: inspect.Signature,
                 captured: dict[str, Any], frame: Any):
        self.tree, self.signature, self.captured, self.frame = tree, signature, captured, frame
        self.__name__ = self.__qualname__ = tree.name

    def __repr__(self) -> str:
        return f"<local function {self.tree.name}>"

    def __pyonnx_call__(self, lowering, args: list[Any], kwargs: dict[str, Any]) -> Any:
        return lowering.inline_local(self, args, kwargs)

    def __call__(self, *args: Any, **kwargs: Any) -> Any:
        # Called by Python itself (sorted(key=f), functools.reduce(f, ...) on static values):
        # inlined into the lowering running now.
        return self.frame.ctx.frames[-1].inline_local(self, list(args), kwargs)

    def stale_names(self) -> list[str]:
        """Enclosing names rebound since the function was referenced."""
        env = self.frame.env.locals
        return [n for n, v in self.captured.items()
                if type(v) is not Undefined and env.get(n, _MISSING) is not v]


def _lenient(lowering, name: str) -> Any:
    found, value, why = lowering.env.lookup(name)
    return value if found else Undefined(why)


def define(lowering, node: ast.Call) -> LocalFunction:
    """Lowers a ``pyonnx_def`` call: evaluates the defaults here, as Python does."""
    tree: ast.FunctionDef = node.pyonnx_def
    late = node.__dict__.get("pyonnx_late_binding")
    if late:
        raise lowering.ctx.error(
            f"this function reads the comprehension variable '{late}', which Python reads when "
            f"the function is called (every function made here sees its last value); bind it "
            f"as a default instead: lambda ..., {late}={late}: ...")
    args = tree.args
    n_pos = len(args.defaults)
    n_kw = sum(d is not None for d in args.kw_defaults)
    values = [lowering.expr(a) for a in node.args[:n_pos + n_kw]]
    pos_defaults, kw_defaults = iter(values[:n_pos]), iter(values[n_pos:])
    params = []
    positional = args.posonlyargs + args.args
    first_default = len(positional) - n_pos
    for i, a in enumerate(positional):
        kind = (inspect.Parameter.POSITIONAL_ONLY if i < len(args.posonlyargs)
                else inspect.Parameter.POSITIONAL_OR_KEYWORD)
        default = next(pos_defaults) if i >= first_default else inspect.Parameter.empty
        params.append(inspect.Parameter(a.arg, kind, default=default))
    if args.vararg is not None:
        params.append(inspect.Parameter(args.vararg.arg, inspect.Parameter.VAR_POSITIONAL))
    for a, d in zip(args.kwonlyargs, args.kw_defaults):
        params.append(inspect.Parameter(a.arg, inspect.Parameter.KEYWORD_ONLY,
                                        default=inspect.Parameter.empty if d is None
                                        else next(kw_defaults)))
    if args.kwarg is not None:
        params.append(inspect.Parameter(args.kwarg.arg, inspect.Parameter.VAR_KEYWORD))
    captured = {n: _lenient(lowering, n) for n in node.pyonnx_free}
    return LocalFunction(tree, inspect.Signature(params), captured, lowering)


def with_current_values(lowering, node: ast.Call) -> Any:
    """Lowers a ``pyonnx_closure`` call: the function with the enclosing values it reads now."""
    fn = lowering.expr(node.func)
    if not isinstance(fn, LocalFunction):
        return fn
    captured = dict(fn.captured)
    captured.update({n: _lenient(lowering, n) for n in node.pyonnx_free if n in captured})
    return LocalFunction(fn.tree, fn.signature, captured, fn.frame)
