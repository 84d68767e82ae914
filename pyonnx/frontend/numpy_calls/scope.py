"""numpy callables refused on purpose, each with its reason (``registry.refuse``).

Input: nothing (module-level registrations). Output: entries in the registry's refusal table,
read by the call lowering (a call's ConversionError gives the reason) and by the coverage
table (``tools/numpy_coverage.py``, which prints the reason in the callable's row).

Two kinds:

* out of scope: no ONNX model could compute it, or it has no meaning inside one (files,
  text, datetimes, Python objects and callbacks, buffers, global state, build information);
  the coverage table lists these apart and does not count them;
* in scope but refused for now (complex numbers, issue 11): counted as not supported. A family
  that registers a lowering for one of these wins over the refusal (the row flips by itself).
"""

from __future__ import annotations

import numpy as np

from pyonnx.frontend.numpy_calls.registry import refuse

__all__: list[str] = []

_OUT_OF_SCOPE = {
    "files (I/O): read or write them outside the compiled function and pass arrays in": (
        "load", "save", "savez", "savez_compressed", "savetxt", "loadtxt", "genfromtxt",
        "fromfile", "fromregex", "memmap"),
    "text: an ONNX model computes arrays, not strings; format outside the compiled function": (
        "array2string", "array_repr", "array_str", "base_repr", "binary_repr",
        "format_float_positional", "format_float_scientific", "fromstring", "typename",
        "mintypecode", "info"),
    "printing options are Python state, not model values": (
        "set_printoptions", "get_printoptions", "printoptions"),
    "datetimes: pyonnx has no datetime64/timedelta64 values": (
        "busday_count", "busday_offset", "busdaycalendar", "is_busday", "datetime_as_string",
        "datetime_data", "isnat"),
    "Python objects, callbacks and buffers cannot live in an ONNX model": (
        "frombuffer", "from_dlpack", "fromiter", "frompyfunc", "vectorize", "nditer",
        "nested_iters", "ndenumerate", "recarray", "ndarray", "flatiter", "ufunc", "broadcast"),
    "floating-point error state is global Python state (ONNX raises no floating-point "
    "warnings; 'with np.errstate(...)' is accepted as a no-op)": (
        "seterr", "geterr", "seterrcall", "geterrcall", "getbufsize", "setbufsize"),
    "build and environment information, not computation": (
        "show_config", "show_runtime", "get_include", "test", "__array_namespace_info__"),
    "the np.matrix class (deprecated by numpy in favour of arrays)": (
        "matrix", "asmatrix", "bmat"),
    "memory identity and layout: pyonnx arrays are values, not buffers": (
        "may_share_memory", "shares_memory", "isfortran"),
}

for _reason, _names in _OUT_OF_SCOPE.items():
    refuse(*(getattr(np, n) for n in _names if hasattr(np, n)), reason=_reason,
           out_of_scope=True)

