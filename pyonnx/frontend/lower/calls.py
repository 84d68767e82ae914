"""Lowering of calls: numpy/builtin/math registry entries, dtype casts, and inlined user functions.

Input: the callee (a frontend value) and the evaluated arguments. Output: a frontend value.
Dispatch order: array methods (``x.sum``), registry entries (evaluated in numpy when every
argument is static), numpy scalar types used as casts (``np.float32(x)``), a few pure Python
builtins on static values (``isinstance``, ``tuple``), then user Python functions, which are
inlined with their defaults and keywords bound as Python binds them. Anything else is refused
with the callee's name: pyonnx converts numpy, math and the user's own Python code only.
"""

from __future__ import annotations

import builtins
import inspect
import types
from typing import Any

import numpy as np

from pyonnx.frontend.lower import complex_calls, out_calls, view_calls, writers
from pyonnx.frontend.lower.imports_contexts import NOOP_CALLS
from pyonnx.frontend.lower.followed import advice_for
from pyonnx.frontend.lower.method_hooks import call_hooked
from pyonnx.frontend.lower.stdlib_calls import STDLIB, type_of
from pyonnx.frontend.lower.iteration import lazy_call, range_sum
from pyonnx.frontend.lower.seq_sum import seq_sum
from pyonnx.frontend.graph import path_weak, scalar_kinds
from pyonnx.frontend.graph.iterables import DynamicRange
from pyonnx.frontend.graph.shapes import BroadcastError
from pyonnx.frontend.graph.values import Array, ArrayMethod, Seq, is_static
from pyonnx.frontend.numpy_calls import CallEntry, lookup, lookup_method, refusal

__all__ = ["call"]

# Pure builtins that may run on static arguments at conversion time.
_PURE_BUILTINS = {builtins.tuple, builtins.list, builtins.isinstance, builtins.enumerate,
                  builtins.zip, builtins.reversed, builtins.sorted, builtins.str,
                  builtins.type, builtins.dict, builtins.any, builtins.all, builtins.divmod,
                  builtins.pow, builtins.hasattr, builtins.getattr, builtins.callable,
                  builtins.repr, builtins.slice}
# Containers whose items may be Arrays: Python semantics still apply to the container itself.
_CONTAINER_BUILTINS = {builtins.tuple, builtins.list, builtins.enumerate, builtins.zip,
                       builtins.reversed}

# Methods that only read a dict, tuple or str known at conversion time.
_PURE_METHODS = {"get", "keys", "values", "items", "index", "count", "copy", "startswith",
                 "endswith", "lower", "upper", "format", "join", "split", "strip"}

_ITERATION_BUILTINS = {builtins.enumerate, builtins.zip, builtins.reversed}

# Python builtins whose result on a list built at run time has a type or value numpy code
# gets only from the list's contents (sum([]) is the int 0, max([]) raises): what to write.
# max/min of a run-time list are registry entries (numpy_calls/builtins_.py); list() and
# tuple() of one are handled in call() below.
_SEQ_BUILTINS = {
    builtins.sorted: "np.sort(x[keep]) on the array the items come from",
    builtins.set: "np.unique(x[keep]) on the array the items come from",
    builtins.any: "len(lst) > 0 and np.any(x[keep])",
    builtins.all: "np.all(x[keep])",
}

# What to write instead of a pure builtin given array values.
_ARRAY_HINTS = {
    builtins.sorted: "use np.sort(x), or np.argsort(x) for the indices in sorted order "
                     "(np.argsort(-scores, kind='stable') for descending scores)",
    builtins.any: "use np.any(x)",
    builtins.all: "use np.all(x)",
}

_IO_HINT = {
    builtins.print: "print() cannot run inside an ONNX model; return the value and print it "
                    "outside the compiled function",
    builtins.open: "open() cannot run inside an ONNX model; read the file outside and pass the "
                   "array in",
    builtins.input: "input() cannot run inside an ONNX model",
}


def call(lowering, func: Any, args: list[Any], kwargs: dict[str, Any]) -> Any:
    """Lowers ``func(*args, **kwargs)``; see the module docstring for the dispatch order."""
    ctx = lowering.ctx
    if complex_calls.involved(func, args, kwargs):  # complex values: complex_calls.py
        return complex_calls.call(lowering, func, args, kwargs)
    if isinstance(func, ArrayMethod):
        writer = writers.METHODS.get(func.name)
        if writer is not None:  # x.fill(v)
            return writer(lowering, func.array, *args, **kwargs)
        entry = lookup_method(func.name)
        result = _invoke(ctx, entry, [func.array, *args], kwargs)
        return view_calls.after_call(ctx, func.name, [func.array, *args], result,
                                     _recompute(entry, args, kwargs))
    receiver = getattr(func, "__self__", None)
    if isinstance(func, types.BuiltinMethodType) and isinstance(receiver, (np.ndarray, np.generic)):
        return _constant_method(lowering, receiver, func, args, kwargs)
    if func is builtins.sum and args and isinstance(args[0], Seq) and len(args) <= 2 and \
            set(kwargs) <= {"start"}:
        return seq_sum(ctx, *args, **kwargs)
    if _hashable(func) and func in _SEQ_BUILTINS and any(isinstance(a, Seq) for a in args):
        raise ctx.error(f"{func.__name__}() of a list built at run time (appended to in a "
                        "run-time loop or branch) is not supported; write "
                        f"{_SEQ_BUILTINS[func]}")
    if func is builtins.sum and args and isinstance(args[0], DynamicRange) and not kwargs:
        total = range_sum(ctx, args[0])  # sum(range(n)) with a run-time n: the series
        return total if len(args) == 1 else lookup(np.add).fn(ctx, args[1], total)
    if out_calls.handles(func, kwargs):  # np.exp(a, out=b), np.sum(x, out=r): a write
        return out_calls.call_with_out(lowering, func, args, kwargs,
                                       lambda f, a, k: call(lowering, f, a, k))
    writer = writers.function_writer(func)
    if writer is not None:  # np.copyto, np.add.at, ...: numpy writes into an argument
        try:
            return writer(lowering, *args, **kwargs)
        except TypeError as e:
            if e.__traceback__ is not None and e.__traceback__.tb_next is None:
                raise ctx.error(f"{getattr(func, '__name__', 'call')}(): {e}") from None
            raise
    entry = lookup(func)
    if entry is not None:
        if entry.static_eval and is_static(args) and is_static(list(kwargs.values())):
            try:
                return entry.target(*args, **kwargs)
            except Exception as e:
                raise ctx.error(f"{entry.name}: {type(e).__name__}: {e}") from None
        numpy_call = str(getattr(entry.target, "__module__", "")).startswith("numpy") or \
            isinstance(entry.target, np.ufunc)
        if numpy_call and not isinstance(entry.target, np.ufunc) and args:
            _python_first_argument(ctx, entry, args[0])
        # (a numpy function's result is a numpy scalar, also of Python numbers: the operators'
        # "still a Python number" rule is off inside it, graph/path_weak.check; fuzz seed
        # 44000024: np.sinh(sum(L, 0.5)) came back as a Python float)
        ctx.numpy_call_depth += numpy_call
        try:
            result = _invoke(ctx, entry, args, kwargs)
        finally:
            ctx.numpy_call_depth -= numpy_call
        result = view_calls.after_call(ctx, getattr(entry.target, "__name__", ""), args, result,
                                       _recompute(entry, args[1:], kwargs))
        if isinstance(entry.target, np.ufunc):
            # np.sqrt(n) is a numpy scalar, strong in promotion (the operators keep weak ones)
            for r in result if isinstance(result, tuple) else (result,):
                if isinstance(r, Array):
                    r.weak = False
        return result
    if isinstance(func, type) and issubclass(func, np.generic):
        return _scalar_type_call(ctx, func, args, kwargs)
    if isinstance(func, np.dtype):
        raise ctx.error(f"a dtype object is not callable; use np.{func.name}(x) or "
                        f"x.astype(np.{func.name})")
    if _hashable(func) and func in NOOP_CALLS:  # warnings.simplefilter(...): no model value
        if not is_static(args) or not is_static(list(kwargs.values())):
            raise ctx.error(f"{func.__name__}() takes conversion-time values here")
        return None
    if func in _IO_HINT if _hashable(func) else False:
        raise ctx.error(_IO_HINT[func])
    if func is np.ndindex or (_hashable(func) and func in _ITERATION_BUILTINS):
        lazy = lazy_call(func, args, kwargs)
        if lazy is not None:
            return lazy
        if func is np.ndindex:
            try:
                return list(np.ndindex(*args, **kwargs))
            except Exception as e:
                raise ctx.error(f"np.ndindex: {type(e).__name__}: {e}") from None
    stdlib = STDLIB.get(func) if _hashable(func) else None
    if stdlib is not None and not (func is builtins.type and is_static(args)):
        return stdlib(lowering, args, kwargs)
    if func in (builtins.any, builtins.all) and len(args) == 1 and not kwargs and \
            isinstance(args[0], (list, tuple)) and not is_static(args[0]):
        return _any_all(lowering, func is builtins.any, args[0])
    if func in (builtins.list, builtins.tuple) and len(args) == 1 and isinstance(args[0], Seq):
        if func is builtins.list:
            return args[0]  # a run-time list is a value: the copy is the same sequence
        raise ctx.error("tuple() of a list built at run time: a tuple's length must be known at "
                        "conversion time; keep the list, or use np.array(...) of it")
    if _hashable(func) and func in _PURE_BUILTINS:
        if func is builtins.isinstance and args and isinstance(args[0], Array):
            return _isinstance_array(ctx, args[0], args[1])
        if func is builtins.hasattr and len(args) == 2 and isinstance(args[0], Array) \
                and isinstance(args[1], str) and not kwargs:
            # hasattr(X, "values"), "iloc", "toarray": answered by the argument's kind (an
            # ndarray, a numpy scalar or a Python number), known when converting
            return hasattr(type_of(ctx, args[0]), args[1])
        if is_static(args) or func in _CONTAINER_BUILTINS:
            try:
                return func(*args, **kwargs)
            except TypeError as e:
                if func in _ARRAY_HINTS:  # e.g. sorted(range(len(x)), key=...): a run-time range
                    raise ctx.error(f"{func.__name__}() of values known only at run time (a "
                                    "range of a run-time length, an array) is not supported; "
                                    + _ARRAY_HINTS[func]) from None
                raise ctx.error(f"{type(e).__name__}: {e}") from None
            except Exception as e:
                raise ctx.error(f"{type(e).__name__}: {e}") from None
        raise ctx.error(f"{func.__name__}() of array values is not supported"
                        + ("; " + _ARRAY_HINTS[func] if func in _ARRAY_HINTS else ""))
    if isinstance(func, types.BuiltinMethodType) and type(func.__self__) in (dict, tuple, str) \
            and func.__name__ in _PURE_METHODS and is_static(args) \
            and is_static(list(kwargs.values())):
        # opts.get("alpha", 1.0), names.index("b"): reads of a conversion-time container
        try:
            return func(*args, **kwargs)
        except Exception as e:
            raise ctx.error(f"{type(e).__name__}: {e}") from None
    hook = getattr(func, "__pyonnx_call__", None)  # pyonnx's own callables (pyonnx.transforms)
    if hook is not None:
        return hook(lowering, args, kwargs)
    if isinstance(func, types.FunctionType):
        return lowering.inline(func, args, kwargs)
    if isinstance(func, types.MethodType) and isinstance(func.__func__, types.FunctionType):
        hooked = call_hooked(lowering, func, args, kwargs)  # a library's own conversion
        if hooked is not NotImplemented:
            return hooked
        return lowering.inline(func.__func__, [func.__self__, *args], kwargs)
    raise ctx.error(_unsupported_call_message(func))


def _any_all(lowering, is_any: bool, items: list | tuple) -> Any:
    """``any(items)``/``all(items)`` of a list holding array values: the truth values combined
    (each item's truth as Python's bool() takes it: 0-d or one element only)."""
    import ast

    acc: Any = not is_any
    for v in items:
        truth = call(lowering, builtins.bool, [v], {})
        acc = lowering.binary(ast.BitOr if is_any else ast.BitAnd, acc, truth)
    return acc


# ndarray methods that neither write into their array nor return a view of it: on an array
# known at conversion time (``np.zeros(3).astype(np.int32)``, ``np.arange(5).sum()``) with
# static arguments, numpy runs them during the conversion.
_PURE_ARRAY_METHODS = frozenset({
    "astype", "sum", "prod", "any", "all", "min", "max", "mean", "std", "var", "argmin",
    "argmax", "cumsum", "cumprod", "item", "tolist", "copy", "round", "clip", "nonzero",
    "dot", "repeat", "take", "trace", "flatten", "conj", "conjugate", "searchsorted",
    "argsort", "__array__", "__len__", "__getitem__", "__contains__", "__eq__", "__ne__",
    "__lt__", "__le__", "__gt__", "__ge__", "__bool__", "__int__", "__float__", "__index__",
    "tobytes"})


def _constant_method(lowering, receiver: Any, func: Any, args: list[Any],
                     kwargs: dict[str, Any]) -> Any:
    """``a.name(*args)`` where ``a`` is an array or numpy scalar known at conversion time:
    numpy runs the pure methods on static arguments; with array arguments the constant is
    lowered and the method lowered on it; writes go through :mod:`writers` (the array is
    materialized, every name of it rebound)."""
    ctx = lowering.ctx
    name = func.__name__
    writer = writers.METHODS.get(name)
    if writer is not None and isinstance(receiver, np.ndarray):
        return writer(lowering, receiver, *args, **kwargs)
    if name in _PURE_ARRAY_METHODS and is_static(args) and is_static(list(kwargs.values())):
        try:
            with np.errstate(all="ignore"):
                return func(*args, **kwargs)
        except Exception as e:
            raise ctx.error(f"{type(receiver).__name__}.{name}: {type(e).__name__}: {e}") \
                from None
    entry = lookup_method(name)
    if entry is not None and name not in view_calls.VIEW_FUNCTIONS and (
            name in _PURE_ARRAY_METHODS or not is_static(args)):
        # Read-only use of the constant: its lowered value is a copy nobody writes.
        return call(lowering, ArrayMethod(ctx.asarray(receiver), name), args, kwargs)
    if entry is not None and isinstance(receiver, np.ndarray):
        # A view or an in-place method: keep one memory with the names bound to the array.
        from pyonnx.frontend.lower.alias_writes import materialize
        array = materialize(lowering, receiver, f"the array whose .{name}() is called")
        return call(lowering, ArrayMethod(array, name), args, kwargs)
    raise ctx.error(_unsupported_call_message(func))


def _recompute(entry: CallEntry, rest: list[Any], kwargs: dict[str, Any]) -> Any:
    """``entry`` called again on another first argument (a view re-derived from its base's new
    contents); ``portable`` when the other arguments are conversion-time values (usable in any
    graph scope)."""
    def again(ctx, base):
        return _invoke(ctx, entry, [base, *rest], kwargs)
    again.portable = is_static(list(rest)) and is_static(list(kwargs.values()))
    return again


def _hashable(x: Any) -> bool:
    try:
        hash(x)
        return True
    except TypeError:
        return False


# numpy functions that take a Python number first argument as it is or as weak (np.where's
# first argument is the condition; np.clip is a ufunc underneath; np.isscalar and the like
# ask about the object)
_KEEPS_PYTHON_FIRST = frozenset({np.where, np.clip, np.isscalar, np.ndim, np.shape, np.size,
                                 np.iscomplexobj, np.isrealobj, np.real, np.imag})


def _python_first_argument(ctx, entry: CallEntry, a: Any) -> None:
    """A numpy function (not a ufunc; Python's builtins keep a Python number) whose first
    argument is a Python number on some run-time paths (graph/path_weak.py) and a numpy value
    of another dtype than that number's on the others (``s = 0.1 if c else x32[0]``, then
    ``np.mean(s)``): numpy makes the Python number
    a float64 (int64, bool) array there, the model computes in the numpy value's dtype: the
    call fails at run time on those paths (refused at the line where they are not known)."""
    if not isinstance(a, Array) or a.weak or a.ndim or id(a.value) not in ctx.path_weak or \
            not _hashable(entry.target) or entry.target in _KEEPS_PYTHON_FIRST:
        return
    entry_ = ctx.path_weak[id(a.value)]
    if len(entry_) not in (2, 4):
        return
    kind = entry_[3] if len(entry_) == 4 else {"b": "b", "i": "i", "u": "i", "f": "f"}.get(
        a.dtype.kind)
    default = {"b": np.dtype(np.bool_), "i": np.dtype(np.int64), "f": np.dtype(np.float64)}
    if kind is None or a.dtype == default[kind]:
        return
    where, flag = entry_[0], entry_[1]
    python = {"b": "bool", "i": "int", "f": "float"}[kind]
    name = f"np.{entry.target.__name__}" if hasattr(entry.target, "__name__") else entry.name
    message = (f"{name}() of a value that is a Python {python} on some paths ({where}) and "
               f"a numpy {a.dtype} on others: numpy makes the Python {python} a "
               f"{default[kind]} array, the model computes in {a.dtype}; make it the same type "
               f"on every path (np.{a.dtype}(...))")
    path_weak.fail_on_path(ctx, flag, ("python_first_argument", id(flag), message), message)


def _invoke(ctx, entry: CallEntry, args: list[Any], kwargs: dict[str, Any]) -> Any:
    try:
        return entry.fn(ctx, *args, **kwargs)
    except BroadcastError as e:  # (a function that does not word it itself: np.where...)
        name = entry.name.replace("numpy.", "np.", 1)
        raise ctx.error(f"{name}(): {e} (numpy raises ValueError)") from None
    except TypeError as e:
        # A TypeError raised by the binding itself (the traceback has no deeper frame) is the
        # user's wrong arguments; deeper ones are pyonnx bugs and propagate.
        tb = e.__traceback__
        if tb is not None and tb.tb_next is None:
            raise ctx.error(f"{entry.name}(): {e}".replace(f"{entry.fn.__name__}()", "")) from None
        raise


def _scalar_type_call(ctx, scalar_type: type, args: list[Any], kwargs: dict[str, Any]) -> Any:
    """``np.float32(x)``: a cast (a 0-d strong value for scalars, an array for arrays)."""
    if kwargs or len(args) > 1:
        raise ctx.error(f"np.{scalar_type.__name__}() takes one argument here")
    value = args[0] if args else 0
    if is_static(value):
        try:
            return scalar_type(value)
        except Exception as e:
            raise ctx.error(f"np.{scalar_type.__name__}: {type(e).__name__}: {e}") from None
    out = ctx.asarray(value)
    return ctx.cast(Array(out.value, out.dtype, out.shape), np.dtype(scalar_type))


def _isinstance_array(ctx, array: Array, classinfo: Any) -> bool:
    classes = classinfo if isinstance(classinfo, tuple) else (classinfo,)
    if not array.weak and array.ndim == 0 and scalar_kinds.scalar_kind(ctx, array) == "unknown":
        raise ctx.error("isinstance() of a 0-d value that comes out of a run-time 'if' or loop: "
                        "numpy may hold a numpy scalar or a 0-d array there; test x.ndim "
                        "instead")
    if not array.weak and array.ndim == 0 and scalar_kinds.scalar_kind(ctx, array) == "scalar":
        # a numpy scalar (np.float64(...)): not an ndarray; an instance of its scalar type
        # (and of float/int for np.float64/np.int64, as numpy's types subclass them)
        t = type_of(ctx, array)
        return any(isinstance(c, type) and issubclass(t, c) for c in classes)
    for c in classes:
        if c is np.ndarray or c is object:
            return True
        if array.weak and array.ndim == 0 and c in (int, float, bool, complex):
            return {"b": bool, "i": int, "u": int, "f": float}.get(array.dtype.kind) in (c,) or (
                c is int and array.dtype.kind == "b")
    return False


def _unsupported_call_message(func: Any) -> str:
    refused = refusal(func)
    if refused is not None:
        name = getattr(func, "__name__", None) or repr(func)
        module = (getattr(func, "__module__", None) or "numpy").replace("numpy", "np", 1)
        module = {"np._core.multiarray": "np", "np.lib._npyio_impl": "np"}.get(module, module)
        if module.startswith(("np._", "np.lib.")):
            module = "np"
        return f"{module}.{name} is not supported: {refused[0]}"
    module = getattr(func, "__module__", None) or ""
    name = getattr(func, "__qualname__", None) or getattr(func, "__name__", None) or repr(func)
    full = f"{module}.{name}" if module and module != "builtins" else name
    if module.startswith("numpy"):
        return (f"{full} is not supported by pyonnx yet; the supported numpy functions are "
                "listed in the README")
    if module in ("time", "os", "sys", "io", "pathlib", "random", "logging", "pickle"):
        return (f"{full} cannot run inside an ONNX model ({module} is I/O or state); call it "
                "outside the compiled function and pass the result in")
    if name == "list.extend" and module in ("", "builtins"):
        return ("list.extend() is not supported inside a compiled function; append the items "
                "one by one (for v in items: lst.append(v))")
    if module == "builtins":
        return f"the builtin {name}() is not supported inside a compiled function"
    if inspect.isclass(func):
        advice = advice_for(full) or ("build it outside the compiled function (a fitted "
                                      "object in fit(), kept on self) and pass it in, or "
                                      "compute its result with numpy")
        return f"creating {full} objects is not supported inside a compiled function: {advice}"
    return (f"call to {full} is not supported: pyonnx converts numpy, math and your own Python "
            "functions; compute it outside the compiled function and pass the result in")


