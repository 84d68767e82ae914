"""Kernels using Python builtins, math and numpy scalar casts on arrays."""

import math

import numpy as np


def len_and_range(x):
    n = len(x)
    return x * n + len(x.shape)


def builtin_abs(x):
    return abs(x)


def builtin_minmax_scalars(x):
    a = x[0]
    b = x[1]
    return max(a, b), min(a, b), max(a, b, 1), min(x[2], 10)


def builtin_max_of_array(x):
    return max(x), min(x)


def builtin_round(x):
    return round(x[0]), round(x[1], 1), np.round(x, 1)


def builtin_float_int_bool(x):
    return float(x[0]) * 2, int(x[1]) + 1, bool(x[2])


def builtin_sum(x):
    return sum(x), sum([x[0], x[1], 3.0])


def math_functions(x):
    v = x[0]
    return math.sqrt(v * v) + math.exp(0.0) + math.log(2.0), math.floor(x[1]), math.cos(v)


def int_div_is_float(x):
    n = x.shape[0]
    return n / 2, n // 2, x / 2


def numpy_casts(x):
    return np.float32(x), np.int64(x[0]), np.float16(2.5) * x


def constants(x):
    return x * np.pi + np.e, np.isinf(np.inf + x), x[:, np.newaxis]


def builtin_max_mixed_kinds(x):
    return max(x[0], 0.5)


def int_of_element(x):
    return int(x[0]) + 1
