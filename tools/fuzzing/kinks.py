"""How far a gradient program's sample point is from the kinks and singular points of the
numpy functions it calls (the gradient mode's smoothness measure).

Finite differences at two steps find a discontinuity (a branch switch of ``if``/``while``/
``np.where``, a jump of ``arctan2``) wherever it is: the two steps' quotients then differ by
the jump over the step. They do not always find a *continuous* kink or a singular point near
the sample point: a kink just inside the larger step, or a point of large curvature (``np.hypot``
0.0085 from its origin, seed 17602612), moves both quotients by less than their agreement
tolerance but more than the comparison tolerance, and the oracle is wrong. So the program is run
once more with ``np`` replaced by a recorder that measures, at every call of a kinked function,
the distance of its arguments to the kink:

- kinks (the derivative jumps): ``abs`` at 0, ``maximum``/``minimum``/``fmax``/``fmin`` at ties,
  ``clip`` at its bounds, ``max``/``min``/``amax``/``amin``/``argmax``/``argmin`` reductions at
  ties of the extreme, ``sort``/``median``/``partition`` at ties of neighbours;
- singular points (a derivative grows without bound): ``hypot`` and ``arctan2`` at the origin,
  ``sqrt``/``cbrt`` at 0, ``log``/``log2``/``log10``/``reciprocal``/``log1p`` at their pole.

An exact tie or exact zero is not counted: at a random point it comes from constants (an item
assignment of a literal, a clipped or ``where``-selected constant) and is constant near the
point too, so no step crosses a kink there. Distances are in the units of the function's
arguments. Branch conditions are not measured: a switch is a jump, which the two steps find.
"""

from __future__ import annotations

import math

import numpy as np

# A kink nearer than the steps makes the two quotients disagree (the point is resampled), but
# one much nearer than the small step (1e-6) moves both to the mean of the two one-sided
# derivatives, where they agree: kinks 10 small steps away at least. (Not more: a near-tie of
# min(u, tanh(u)) is u**3 / 3 wide but u away in the input, seed 42000653.)
KINK_MIN = 1e-5
# Near a singular point the quotients agree on a wrong value: the truncation error of the
# large step (1e-4), about (step / distance)**2, below 4e-6 (seed 17602612: hypot 0.0085 away).
SINGULAR_MIN = 0.05


def _nonzero_min(d) -> float:
    d = np.abs(np.asarray(d, dtype=np.float64)).reshape(-1)
    d = d[d > 0]
    return float(d.min()) if d.size else math.inf


def _real(a) -> bool:
    return np.asarray(a).dtype.kind == "f"


class Recorder:
    """Stands in for the numpy module: every attribute is numpy's, the kinked functions also
    record the smallest distance of their arguments to a kink (``kink``) or a singular point
    (``singular``)."""

    def __init__(self):
        self.kink = math.inf
        self.singular = math.inf

    def __getattr__(self, name):
        return getattr(np, name)

    def _k(self, d):
        self.kink = min(self.kink, _nonzero_min(d))

    def _s(self, d):
        self.singular = min(self.singular, _nonzero_min(d))

    # -- kinks ---------------------------------------------------------------------------------
    def abs(self, a, *args, **kw):
        if _real(a):
            self._k(a)
        return np.abs(a, *args, **kw)

    absolute = abs

    def _tie(self, fn, a, b, *args, **kw):
        if _real(a) and _real(b):
            self._k(np.subtract(a, b, dtype=np.float64))
        return fn(a, b, *args, **kw)

    def maximum(self, a, b, *args, **kw):
        return self._tie(np.maximum, a, b, *args, **kw)

    def minimum(self, a, b, *args, **kw):
        return self._tie(np.minimum, a, b, *args, **kw)

    def fmax(self, a, b, *args, **kw):
        return self._tie(np.fmax, a, b, *args, **kw)

    def fmin(self, a, b, *args, **kw):
        return self._tie(np.fmin, a, b, *args, **kw)

    def clip(self, a, lo=None, hi=None, *args, **kw):
        if _real(a):
            for bound in (lo, hi):
                if bound is not None:
                    self._k(np.subtract(a, bound, dtype=np.float64))
        return np.clip(a, lo, hi, *args, **kw)

    def _extreme(self, fn, a, axis=None, sign=1.0, **kw):
        if _real(a) and np.size(a) > 1:
            s = np.sort(sign * np.asarray(a, dtype=np.float64), axis=axis)
            s = s.reshape(-1) if axis is None else np.moveaxis(s, axis, -1)
            top = s[..., -1:]
            gap = np.where(s < top, top - s, np.inf)  # to the nearest distinct value
            self._k(np.min(gap, axis=-1))
        return fn(a, axis=axis, **kw)

    def max(self, a, axis=None, **kw):
        return self._extreme(np.max, a, axis, 1.0, **kw)

    def min(self, a, axis=None, **kw):
        return self._extreme(np.min, a, axis, -1.0, **kw)

    amax, amin = max, min

    def argmax(self, a, axis=None, **kw):
        return self._extreme(np.argmax, a, axis, 1.0, **kw)

    def argmin(self, a, axis=None, **kw):
        return self._extreme(np.argmin, a, axis, -1.0, **kw)

    def _neighbours(self, fn, a, *args, axis=-1, **kw):
        if _real(a) and np.size(a) > 1:
            s = np.sort(np.asarray(a, dtype=np.float64), axis=axis)
            s = s.reshape(-1) if axis is None else s
            self._k(np.diff(s, axis=-1 if axis is None else axis))
        return fn(a, *args, axis=axis, **kw)

    def sort(self, a, axis=-1, **kw):
        return self._neighbours(np.sort, a, axis=axis, **kw)

    def argsort(self, a, axis=-1, **kw):
        return self._neighbours(np.argsort, a, axis=axis, **kw)

    def median(self, a, axis=None, **kw):
        return self._neighbours(np.median, a, axis=axis, **kw)

    # -- singular points -----------------------------------------------------------------------
    def hypot(self, a, b, *args, **kw):
        if _real(a) and _real(b):
            self._s(np.hypot(a, b))
        return np.hypot(a, b, *args, **kw)

    def arctan2(self, a, b, *args, **kw):
        if _real(a) and _real(b):
            self._s(np.hypot(a, b))
        return np.arctan2(a, b, *args, **kw)

    def _pole(self, fn, a, *args, at=0.0, **kw):
        if _real(a):
            self._s(np.subtract(a, at, dtype=np.float64))
        return fn(a, *args, **kw)

    def sqrt(self, a, *args, **kw):
        return self._pole(np.sqrt, a, *args, **kw)

    def cbrt(self, a, *args, **kw):
        return self._pole(np.cbrt, a, *args, **kw)

    def log(self, a, *args, **kw):
        return self._pole(np.log, a, *args, **kw)

    def log2(self, a, *args, **kw):
        return self._pole(np.log2, a, *args, **kw)

    def log10(self, a, *args, **kw):
        return self._pole(np.log10, a, *args, **kw)

    def reciprocal(self, a, *args, **kw):
        return self._pole(np.reciprocal, a, *args, **kw)

    def log1p(self, a, *args, **kw):
        return self._pole(np.log1p, a, *args, at=-1.0, **kw)


def distances(fn, args, run) -> tuple[float, float]:
    """(kink, singular): the smallest distances met while ``run(fn, args)`` runs with the
    function's module's ``np`` replaced by a Recorder (restored afterwards)."""
    glb = fn.__globals__
    rec, old = Recorder(), glb.get("np")
    glb["np"] = rec
    try:
        run(fn, args)
    finally:
        glb["np"] = old
    return rec.kink, rec.singular


# The Hessian's central differences (steps 1e-3 and 5e-4, both coordinates moved) reach 2e-3
# from the point and are close in size: a kink within that reach moves both to the same wrong
# value, where they agree (seed 29403601: |x| with x = 6.6e-4 gave 686 for a zero Hessian).
HESSIAN_KINK_MIN = 3e-3


def smooth_enough(kink: float, singular: float, scale: float = 1.0,
                  kink_min: float | None = None) -> bool:
    """Whether finite differences with steps up to ``1e-4 * scale`` are trustworthy here
    (``kink_min``: the smallest distance to a kink, instead of ``KINK_MIN * scale``)."""
    return kink >= (KINK_MIN * scale if kink_min is None else kink_min) and \
        singular >= SINGULAR_MIN * scale
