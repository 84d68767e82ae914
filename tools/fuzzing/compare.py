"""Comparing pyonnx's results with numpy's: structure, kind, dtype, shape, value, mutation.

``compare(want, got)`` returns None when they agree, else ``(class, detail)`` with class one of
``wrong-shape`` (structure or shape), ``wrong-dtype`` (dtype, or Python vs numpy scalar vs
array), ``wrong-value``.
"""

from __future__ import annotations

import numpy as np

# relative/absolute tolerance per float dtype: a few ulps of the chains the generator builds
TOL = {"float16": (2e-2, 2e-2), "float32": (2e-4, 1e-4), "float64": (1e-9, 1e-9),
       "complex64": (2e-4, 1e-4), "complex128": (1e-9, 1e-9),
       # np.linalg's LAPACK and pyonnx's own factorizations round differently and their error
       # grows with the condition number: a float64 program calling np.linalg is compared at
       # 1e-7 (the generator's matrices are well conditioned)
       "linalg": (1e-7, 1e-7)}


def kind(v) -> str:
    if isinstance(v, np.ndarray):
        return "ndarray"
    if isinstance(v, np.generic):
        return "numpy scalar"
    if isinstance(v, (bool, int, float, complex)):
        return f"Python {type(v).__name__}"
    if v is None:
        return "None"
    return type(v).__name__


def precision_floor(source: str, args, computed=()) -> str:
    """The least precise float dtype a program computes in: its arguments', the dtypes its
    source names and ``computed``, the dtypes numpy's ufuncs returned while it ran (a float ufunc
    of a uint16 is float32: fuzzing.ufunc_trace). A float32 value written into a float64 array
    carries float32's error (numpy's float32 ``exp`` is itself 1 ulp off the correctly rounded
    value), so float64 results are compared at that tolerance; a float64 program calling
    ``np.linalg`` at the ``linalg`` one."""
    names = {a.dtype.name for a in args if isinstance(a, (np.ndarray, np.generic))}
    names |= {n for n in TOL if n in source} | set(computed)
    if "complex64" in names:
        names.add("float32")  # its parts are float32
    least = next((n for n in ("float16", "float32") if n in names), "float64")
    return "linalg" if least == "float64" and "np.linalg." in source else least


def compare(want, got, where="result", floor="float64"):
    if isinstance(want, (tuple, list)) or isinstance(got, (tuple, list)):
        if type(want) is not type(got):
            return "wrong-shape", f"{where}: numpy gives a {kind(want)}, pyonnx a {kind(got)}"
        if len(want) != len(got):
            return "wrong-shape", f"{where}: numpy gives {len(want)} items, pyonnx {len(got)}"
        for i, (w, g) in enumerate(zip(want, got)):
            bad = compare(w, g, f"{where}[{i}]", floor)
            if bad:
                return bad
        return None
    if want is None or got is None:
        if want is got:
            return None
        return "wrong-shape", f"{where}: numpy gives {kind(want)}, pyonnx {kind(got)}"
    kw, kg = kind(want), kind(got)
    if {kw, kg} == {"ndarray", "numpy scalar"} and np.ndim(want) == 0 and np.ndim(got) == 0:
        kw = kg  # documented: pyonnx returns 0-d results as numpy scalars (README, API)
    if kw != kg:
        return "wrong-dtype", f"{where}: numpy gives a {kind(want)}, pyonnx a {kind(got)}"
    w, g = np.asarray(want), np.asarray(got)
    if isinstance(want, (np.ndarray, np.generic)) and w.dtype != g.dtype:
        return "wrong-dtype", f"{where}: dtype {g.dtype}, numpy {w.dtype}"
    if w.shape != g.shape:
        return "wrong-shape", f"{where}: shape {g.shape}, numpy {w.shape}"
    if not same_values(w, g, floor):
        return "wrong-value", f"{where}: got {_short(g)}, numpy {_short(w)}"
    return None


def same_values(w: np.ndarray, g: np.ndarray, floor: str = "float64") -> bool:
    if w.dtype.kind == "c" or g.dtype.kind == "c":  # each part as floats of the part dtype
        return same_values(w.real, g.real, floor) and same_values(np.imag(w), np.imag(g), floor)
    if w.dtype.kind == "f" or g.dtype.kind == "f":
        rt, at = max(TOL.get(w.dtype.name, TOL["float64"]), TOL[floor])
        wf, gf = w.astype(np.float64), g.astype(np.float64)
        scale = max(1.0, float(np.max(np.abs(wf[np.isfinite(wf)]), initial=0.0)))
        return bool(np.allclose(gf, wf, rtol=rt, atol=at * scale, equal_nan=True))
    return bool(np.array_equal(w, g))


def _short(v) -> str:
    s = np.array2string(np.asarray(v), threshold=20, precision=6) if np.ndim(v) else repr(v)
    return s.replace("\n", " ")

