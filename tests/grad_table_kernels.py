"""Generated kernels for tests/test_grad_table.py: each entry of tests/grad_table.py placed at
top level, in a run-time ``for`` and in a run-time ``if``.

The kernels are generated source (registered in ``linecache``, so pyonnx reads it as it reads a
file): ``top_<k>``, ``loop_<k>`` (the function of loop-invariant arguments, which hoisting moves
out, or part of it, and of loop states, which it cannot), ``branch_<k>``; each reduces ``e``
through ``_out`` (position-dependent weights, so a permuted cotangent is caught). ``_pre``
computes common construction prefixes before the body (CSE may then make the body read its
argument only through outer values: issue 19 item 1).
"""

from __future__ import annotations

import linecache

from tests.grad_table import TABLE, ZEROS

# ---------------------------------------------------------------- generated kernels
_HEADER = '''\
import math
import operator

import numpy as np


def _out(e):
    s = np.ravel(e)
    return np.sum(np.cumsum(s * s))


def _pre(x, y):
    # Computed before the loop or branch: CSE may then merge the first nodes of a construction
    # inside the body with these, so that the body reads x only through outer values.
    return np.sum(np.abs(x) + x * x - x) * 0.25 + np.sum(np.abs(y) + y * y) * 0.25
'''

_TOP = '''
def top_{k}(x, y, c, n):
{body_xy}
    return _out(e)
'''

# The function of x and y (loop-invariant: hoisting moves it out, or part of it) and of the
# loop states xs, ys (not invariant); x and y are read in the body only by the function.
_LOOP = '''
def loop_{k}(x, y, c, n):
    p = _pre(x, y)
    acc = 0.0
    xs = x
    ys = y
    for i in range(n):
{body_xy2}
        a = _out(e)
{body_xsys2}
        acc = acc + a + _out(e)
        xs = xs * 0.9375
        ys = ys * 0.9375
    return acc * 0.5 + p
'''

_BRANCH = '''
def branch_{k}(x, y, c, n):
    p = _pre(x, y)
    if c > 0.0:
{body_xy2}
        r = _out(e)
    else:
        r = 0.0
    return r * 1.5 + p
'''


# The zero variants: x (and y) copied, zeros written into the copies, in the same places.
_ZERO_X = "{x}z = {x}.copy()\n{x}z[0, 1] = 0.0\n{x}z[2, 0] = 0.0"
_ZERO_Y = "{y}z = {y}.copy()\n{y}z[3] = 0.0"


def _zeroed(body: str, zero_x: bool, zero_y: bool) -> str:
    pre = ([_ZERO_X] if zero_x else []) + ([_ZERO_Y] if zero_y else [])
    body = body.replace("{x}", "{x}z" if zero_x else "{x}")
    body = body.replace("{y}", "{y}z" if zero_y else "{y}")
    return "\n".join([*pre, body])


def _indent(body: str, level: int, x: str, y: str) -> str:
    return "\n".join(" " * (4 * level) + line.format(x=x, y=y) for line in body.split("\n"))


def _key(name: str) -> str:
    return name.replace(".", "_")


def _generate() -> dict:
    parts = [_HEADER]
    bodies = [(_key(name), entry.body) for name, entry in TABLE.items()]
    bodies += [(f"zeros_{_key(name)}", _zeroed(TABLE[name].body, *flags))
               for name, flags in ZEROS.items()]
    for k, body in bodies:
        parts.append(_TOP.format(k=k, body_xy=_indent(body, 1, "x", "y")))
        parts.append(_LOOP.format(k=k, body_xy2=_indent(body, 2, "x", "y"),
                                  body_xsys2=_indent(body, 2, "xs", "ys")))
        parts.append(_BRANCH.format(k=k, body_xy2=_indent(body, 2, "x", "y")))
    source = "".join(parts)
    filename = "<pyonnx grad table>"
    linecache.cache[filename] = (len(source), None, source.splitlines(True), filename)
    namespace: dict = {"__name__": "tests.grad_table_generated"}
    exec(compile(source, filename, "exec"), namespace)
    return namespace


KERNELS = _generate()


def kernel(context: str, name: str, zeros: bool = False):
    """The generated kernel placing ``name``'s entry in ``context`` (top, loop, branch); with
    ``zeros``, its ``ZEROS`` variant."""
    return KERNELS[f"{context}_{'zeros_' if zeros else ''}{_key(name)}"]
