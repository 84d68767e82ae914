"""ShiftedDifferencesPass: ``concatenate((s[:1], s[1:] - c * s[:-1]))`` as ``s - Pad(c * s)``.

On ONNX text (fires or not, same results) and end to end (differential with numpy: values,
dtypes, NaN, infinities and signed zeros, empty and one-element signals, np.append's
IndexError on an empty signal, inside a loop body).
"""

from __future__ import annotations

import numpy as np
import pytest

import pyonnx
from pyonnx.passes.shifted_differences import ShiftedDifferencesPass
from tests.oracle import check
from tests.passes.helpers import checked, model, ops, same_results

CONSTS = """
    <int64[1] zero = {0}, int64[1] one = {1}, int64[1] last = {-1}, int64 izero = {0},
     int64[1] big = {9223372036854775807}, int64[1] axis = {0}, int64[1] step = {1}>
"""

CONCATENATE = "g (float[N] s, float c) => (float[?] y)" + CONSTS + """{
    head = Slice (s, zero, one, axis, step)
    rest = Slice (s, one, big, axis, step)
    prev = Slice (s, zero, last, axis, step)
    scaled = Mul (c, prev)
    diff = Sub (rest, scaled)
    y = Concat <axis = 0> (head, diff)
}"""


def rewritten(text: str):
    m = model(text)
    before = checked(m)
    result = ShiftedDifferencesPass()(m)
    after = checked(m)
    return result.modified, ops(m), before, after


def test_the_concatenate_form():
    modified, got, before, after = rewritten(CONCATENATE)
    assert modified and got == ["Mul", "Pad", "Sub"]
    # The replaced Slices' bounds went with them (izero was never used).
    assert {t.name for t in after.graph.initializer} == {"izero", "_shift_pads"}
    same_results(before, after)


@pytest.mark.parametrize("first", [
    "g0 = Gather <axis = 0> (s, izero)\n    head = Reshape (g0, one)",
    "g0 = Gather <axis = 0> (s, izero)\n    head = Unsqueeze (g0, zero)"])
def test_the_append_form_keeps_its_gather(first):
    text = CONCATENATE.replace("head = Slice (s, zero, one, axis, step)", first)
    modified, got, before, after = rewritten(text)
    assert modified and "Gather" in got and "Concat" not in got and "Pad" in got
    same_results(before, after)


def test_the_product_may_come_first():
    modified, _, before, after = rewritten(CONCATENATE.replace("Mul (c, prev)",
                                                               "Mul (prev, c)"))
    assert modified
    same_results(before, after)


@pytest.mark.parametrize("change", [
    ("float c)", "float[N] c)"),                     # not a 0-d coefficient
    ("Slice (s, one, big", "Slice (s, zero, big"),   # not s[1:]
    ("Slice (s, zero, last", "Slice (s, one, big"),  # not s[:-1]
    ("Concat <axis = 0> (head, diff)", "Concat <axis = 0> (diff, head)"),
])
def test_other_forms_are_left_alone(change):
    text = CONCATENATE.replace(*change)
    modified, got, _, _ = rewritten(text)
    assert not modified and "Concat" in got


def test_a_matrix_is_left_alone():
    text = CONCATENATE.replace("float[N] s", "float[N,3] s").replace("float[?] y", "float[?,3] y")
    assert not rewritten(text)[0]


# ---------------------------------------------------------------- end to end
def pre_emphasis(signal, coeff):
    return np.concatenate((signal[:1], signal[1:] - coeff * signal[:-1]))


def pre_emphasis_append(signal, coeff):
    return np.append(signal[0], signal[1:] - coeff * signal[:-1])


def product_first(signal, coeff=0.97):
    emphasized = np.concatenate([signal[:1], signal[1:] - signal[:-1] * coeff])
    return emphasized * 2


def per_row(frames, coeff):
    out = np.empty_like(frames)
    for i in range(frames.shape[0]):
        out[i] = np.concatenate((frames[i, :1], frames[i, 1:] - coeff * frames[i, :-1]))
    return out


rng = np.random.default_rng(5)


@pytest.mark.parametrize("dtype", [np.float32, np.float64, np.int32, np.int64, np.uint8])
@pytest.mark.parametrize("n", [0, 1, 2, 9])
def test_values_of_every_dtype(dtype, n):
    s = (rng.normal(size=n) * 20).astype(dtype)
    for c in (dtype(3), 0.97, 2):
        check(pre_emphasis, s, c)
        check(product_first, s, c)
        if n:
            check(pre_emphasis_append, s, c)


def test_nan_infinities_and_signed_zeros():
    s = np.array([-0.0, np.nan, np.inf, -0.0, 1.0, -np.inf, 0.0], np.float32)
    for c in (np.inf, np.nan, -0.0, -2.0, 0.0):
        check(pre_emphasis, s, np.float32(c))
        check(pre_emphasis_append, s, np.float32(c))
        check(pre_emphasis, s[:1], np.float32(c))


def test_append_of_an_empty_signal_raises_as_numpy():
    check(pre_emphasis_append, np.zeros(0, np.float32), np.float32(0.5))


def test_inside_a_loop_body():
    check(per_row, rng.normal(size=(3, 5)), 0.9)
    check(per_row, rng.normal(size=(0, 5)), 0.9)


def test_the_model_has_three_passes():
    f = pyonnx.compile(pre_emphasis)
    s = rng.normal(size=16).astype(np.float32)
    f(s, np.float32(0.9))
    import onnx

    nodes = [n.op_type for n in onnx.load_from_string(f._last.model).graph.node]
    assert nodes == ["Mul", "Pad", "Sub"]
