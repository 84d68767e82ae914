"""Double buffering (a, b = b, a in a loop that writes through the names), issue 15, for
test_python_buffers.py: the line numbers of the refusals are asserted, keep them stable."""

import numpy as np


def swap_arguments(a, b, n):
    for t in range(n):
        b[1:-1] = (a[:-2] + a[2:]) * 0.5
        a, b = b, a
    return a


def swap_private_copies(a, b, n):
    a, b = a.copy(), b.copy()
    for t in range(n):
        b[1:-1] = (a[:-2] + a[2:]) * 0.5
        a, b = b, a
    return a, b


def swap_with_scratch(u, n):
    u = u.copy()
    v = np.zeros_like(u)
    for t in range(n):
        v[1:-1] = u[1:-1] + 0.1 * (u[:-2] - 2 * u[1:-1] + u[2:])
        v[0], v[-1] = u[0], u[-1]
        u, v = v, u
    return u


def swap_scratch_with_argument(u, n):
    v = np.zeros_like(u)
    for t in range(n):
        v[1:-1] = u[1:-1] + 0.1 * (u[:-2] - 2 * u[1:-1] + u[2:])
        u, v = v, u
    return u


def _relax(src, dst):
    dst[1:-1] = (src[:-2] + src[2:]) * 0.5


def swap_through_helper(a, b, n):
    a, b = a.copy(), b.copy()
    for t in range(n):
        _relax(a, b)
        a, b = b, a
    return a
