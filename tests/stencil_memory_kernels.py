"""Names rebound in loops while sharing memory, as stencil codes write them (issue 15)."""

import numpy as np


def double_buffer_argument(a, n):
    out = a.copy()
    for _ in range(n):
        out[1:-1] = (a[:-2] + a[2:]) / 2
        a, out = out, a
    return a


def double_buffer(a, n):
    a = a.copy()
    out = a.copy()
    for _ in range(n):
        out[1:-1] = (a[:-2] + a[2:]) / 2
        a, out = out, a
    return a


def double_buffer_empty_like(a, n):
    a = a.copy()
    out = np.empty_like(a)
    out[0], out[-1] = a[0], a[-1]
    for _ in range(n):
        out[1:-1] = 0.25 * a[:-2] + 0.5 * a[1:-1] + 0.25 * a[2:]
        a, out = out, a
    return a  # (out's inner elements are uninitialized when n == 0)


def views_written_in_loop(U, V, n):
    u, v = U[1:-1, 1:-1], V[1:-1, 1:-1]
    for _ in range(n):
        uc = u.copy()
        u += 0.1 * (U[:-2, 1:-1] + U[2:, 1:-1] - 2 * uc) - 0.01 * v
        v *= 0.5
        U[0, :] = U[-2, :]
    return U, V


def view_rebound_to_new_array(U, n):
    u = U[1:-1, 1:-1]
    for _ in range(n):
        u = u + 0.1 * (U[:-2, 1:-1] + U[2:, 1:-1] - 2 * u)
        U[1:-1, 1:-1] = u
    return U


def view_written_then_rebound(U, n):
    u = U[1:-1]
    for _ in range(n):
        u += 1
        u = u * 2
    return U, u
