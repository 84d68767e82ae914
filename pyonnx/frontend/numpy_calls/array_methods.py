"""ndarray methods and attributes that are neither reductions nor shape functions:
``x.item()``, ``x.tolist()``, ``x.nbytes``, ``x.device``, ``x.to_device()``, ``x.view()``.

Input: an Array and the method's arguments. Output:

* ``x.item()``: the one element of a size-1 array as a Python number (a weak 0-d value: bool,
  int64 or float64; a uint64 value beyond int64, which pyonnx's Python ints cannot hold, fails
  at run time); ``x.item(i)``: the
  element at flat (C-order) index ``i``; ``x.item(i, j, ...)``: the element ``x[i, j, ...]``. A
  size only known at run time is checked at run time (numpy raises ValueError: "can only
  convert an array of size 1 to a Python scalar");
* ``x.tolist()``: of a 1-D array, a run-time list (an ONNX sequence) of Python numbers, as
  ``item()`` makes them, returned as a Python list; of a 0-d array, ``item()``. Nested lists
  (rank >= 2) are refused: return the array, or ``[row.tolist() ...]`` is not expressible;
* ``x.nbytes``: ``x.size * x.itemsize`` (a Python int when the shape is known, else a
  run-time int);
* ``x.device`` is ``"cpu"`` and ``x.to_device("cpu")`` is ``x`` itself (the Array API; one
  device);
* ``x.view()`` (or ``x.view(x.dtype)``, ``x.view(np.ndarray)``): a view of all of ``x``, writes
  through it followed; reinterpreting the bytes as another dtype is refused.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from pyonnx.frontend.graph.checks import runtime_check
from pyonnx.frontend.graph.values import Array
from pyonnx.frontend.numpy_calls.registry import lookup, register, register_attribute

__all__: list[str] = []

_I64 = np.dtype(np.int64)
_PYTHON_DTYPE = {"b": np.dtype(np.bool_), "i": _I64, "u": _I64, "f": np.dtype(np.float64)}


def _python_number(ctx, element: Array) -> Array:
    """Elements as the Python numbers ``item()`` returns (weak in promotion)."""
    if element.dtype == np.uint64:
        # pyonnx's Python ints are int64: a larger value fails at run time rather than wrap
        big = lookup(np.greater).fn(ctx, element, np.iinfo(np.int64).max)
        element = runtime_check(ctx, big, element, "Python_int_beyond_int64",
                                "ExecutionError: a uint64 value above 2**63 - 1 does not fit the "
                                "int64 pyonnx holds Python ints in; keep it a numpy value "
                                "(x[i] rather than x.item(i) or int(x[i]))")
    out = ctx.cast(element, _PYTHON_DTYPE[element.dtype.kind])
    return Array(out.value, out.dtype, element.shape, weak=True)


def _one_element(ctx, x: Array) -> Array:
    """The only element of ``x``; numpy's ValueError when ``x`` does not have size 1."""
    size = x.static_size
    if size is not None and size != 1:
        raise ctx.error("can only convert an array of size 1 to a Python scalar (numpy raises "
                        f"ValueError: x.item() of an array of shape {x.shape})")
    if size is None:
        n = Array(ctx.op("Size", x), _I64, ())
        n = runtime_check(ctx, lookup(np.not_equal).fn(ctx, n, 1), n,
                          "can_only_convert_an_array_of_size_1",
                          "ValueError: can only convert an array of size 1 to a Python scalar")
        shape = ctx.op("Unsqueeze", n, ctx.const(np.array([0], np.int64)))
    else:
        shape = ctx.const(np.array([1], np.int64))
    flat = Array(ctx.op("Reshape", x, shape), x.dtype, (1,))
    return Array(ctx.op("Squeeze", flat, ctx.const(np.array([0], np.int64))), x.dtype, ())


@register(methods=("item",))
def item(ctx, a, *args):
    """``x.item()``, ``x.item(i)``, ``x.item(i, j, ...)`` (``x.item((i, j))`` too)."""
    from pyonnx.frontend.graph.indexing import getitem

    x = ctx.asarray(a)
    if len(args) == 1 and isinstance(args[0], tuple):
        args = args[0]
    if not args:
        return _python_number(ctx, _one_element(ctx, x))
    for v in args:
        if isinstance(v, Array) and (v.ndim or v.dtype.kind not in "iu") or \
                not isinstance(v, Array) and not isinstance(v, (int, np.integer)):
            raise ctx.error("x.item() takes integer indices (numpy raises TypeError)")
    if len(args) == 1:
        flat = lookup(np.ravel).fn(ctx, x)
        return _python_number(ctx, getitem(ctx, flat, args[0]))
    if len(args) != x.ndim:
        raise ctx.error(f"incorrect number of indices for array: x.item() of a {x.ndim}-d array "
                        f"with {len(args)} indices (numpy raises ValueError)")
    return _python_number(ctx, getitem(ctx, x, tuple(args)))


@register(methods=("tolist",), limits={"a": "0-d and 1-D arrays; nested lists (rank >= 2) refused"})
def tolist(ctx, a):
    """``x.tolist()`` of a 0-d or 1-D array."""
    from pyonnx.frontend.graph import sequences

    x = ctx.asarray(a)
    if x.ndim == 0:
        return _python_number(ctx, x)
    if x.ndim > 1:
        raise ctx.error(f"x.tolist() of a {x.ndim}-d array makes nested lists, which pyonnx "
                        "does not return; return the array and call .tolist() on the result")
    return sequences.from_rows(ctx, _python_number(ctx, Array(x.value, x.dtype, x.shape)),
                               weak=True)


@register_attribute("nbytes")
def nbytes(ctx, x: Array) -> Any:
    known = x.static_size
    if known is not None:
        return known * x.dtype.itemsize
    n = ctx.op("Mul", ctx.op("Size", x), ctx.const(np.array(x.dtype.itemsize, np.int64)))
    return Array(n, _I64, (), weak=True)


@register_attribute("device")
def device(ctx, x: Array) -> str:
    return "cpu"



@register(methods=("to_device",))
def to_device(ctx, a, device, /, *, stream=None):
    """``x.to_device("cpu")``: ``x`` itself, as numpy returns it."""
    if ctx.static(device, "device") != "cpu" or stream is not None:
        raise ctx.error(f"x.to_device({device!r}): the only device is 'cpu'")
    return a


@register(methods=("view",), limits={"dtype": "the array's own dtype only (no reinterpreting)"})
def view(ctx, a, dtype=None, type=None):
    """``x.view()``: ``x`` itself, registered as a view of all of it by the call lowering."""
    x = ctx.asarray(a)
    if dtype is np.ndarray:  # x.view(np.ndarray): numpy reads a subclass as type=
        dtype = None
    if dtype is not None:
        try:
            dt = np.dtype(ctx.static(dtype, "dtype"))
        except TypeError as e:
            raise ctx.error(f"x.view: {e}") from None
        if dt != x.dtype:
            raise ctx.error(f"x.view({dt}) reinterprets the bytes of a {x.dtype} array, which "
                            "pyonnx does not convert; use x.astype(...) to convert values")
    if type is not None and type is not np.ndarray:
        raise ctx.error("x.view(type=...) of another array class is not supported")
    return x
