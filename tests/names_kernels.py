"""Kernels exercising name resolution: aliases, module constants, closures, helpers."""

import math

import numpy
import numpy as xp
from numpy import add as plus

SCALE = 3
OFFSET = 0.5
WEIGHTS = numpy.array([1.0, 2.0, 3.0])
AXIS_ORDER = (1, 0)


def alias_numpy(x):
    return xp.multiply(numpy.add(x, 1), 2)


def imported_function(x):
    return plus(x, x)


def module_constants(x):
    return x * SCALE + OFFSET + WEIGHTS


def math_constants(x):
    return x * math.pi + math.sqrt(2.0) + math.e


def _affine(v, a=2.0, b=0.0):
    return v * a + b


def helper_defaults_and_keywords(x):
    return _affine(x) + _affine(x, b=1.0) + _affine(x, 3.0, b=-1.0)


def _normalize(v, eps=1e-6):
    centered = v - _affine(v, a=0.5)
    return centered / (abs_sum(centered) + eps)


def abs_sum(v):
    s = v
    return s * s


def nested_helpers(x):
    return _normalize(x)


def make_closure(k):
    def scaled(x):
        return x * k + SCALE
    return scaled


closure_fn = make_closure(4.0)


def static_python_arithmetic(x):
    n = SCALE * 2 + 1
    m = n // 2
    factors = (1.0, 2.0, 4.0)
    return x * (n - m) + factors[-1] + len(factors)


def tuple_unpacking(x):
    a, (b, c) = x, (x + 1, 2)
    d, e = AXIS_ORDER
    return a + b * c + d - e


def static_loop_unrolled(x):
    acc = x
    for k in range(3):
        acc = acc + k
    for w in (1.0, 2.0):
        acc = acc * w
    return acc


def static_if_on_dtype(x):
    if x.dtype == xp.float32:
        return x + 1
    elif x.ndim == 2:
        return x - 1
    return x


def list_comprehension(x):
    parts = [x * k for k in range(3) if k != 1]
    return parts[0] + parts[1]
