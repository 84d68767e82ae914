"""A name written in a loop and bound on some path of a run-time ``if`` in the body to the
memory of another carried name that shares memory outside the loop (``else: t1 = x`` with
``x`` an argument): the next iteration's write through ``t1`` changes ``x``, which the loop's
state does not follow. It gave a wrong sum (x's write lost); refused at the loop now
(loop_memory.refuse_memory_swap looks at the memory the if chose on each path)."""

from __future__ import annotations

import numpy as np
import pytest

import pyonnx
from tests.oracle import check


def alias_of_argument_on_one_path(x, w):
    t1 = np.maximum(w, 0.2)
    for _ in range(w.shape[-1]):
        t1[...] = x - x
        if w.shape[0] < 3.87:
            x = w[np.array([-3])]
        elif w.sum() < 1.38:
            pass
        else:
            t1 = x
    return np.sum(x)


def alias_read_only(x, w):
    t1 = np.maximum(w, 0.2)
    s = 0.0
    for _ in range(w.shape[-1]):
        s = s + t1.sum()
        if w.sum() < 1.38:
            pass
        else:
            t1 = x
    return s


def test_alias_of_an_argument_on_one_path_then_written_is_refused():
    x, w = np.array([0.4, 0.37, -0.35, -0.69]), np.array([-0.29, 0.42, 0.48, 0.84])
    with pytest.raises(pyonnx.ConversionError, match="rebound in it to the memory of 'x'"):
        pyonnx.compile(alias_of_argument_on_one_path)(x, w)


@pytest.mark.parametrize("w", [np.array([-0.29, 0.42, 0.48, 0.84]), np.array([0.1, 0.2])])
def test_alias_never_written_is_followed(w):
    check(alias_read_only, np.array([0.4, 0.37, -0.35, -0.69])[:w.shape[0]], w)
