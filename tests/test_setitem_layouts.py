"""Basic-index writes in the layouts chosen for speed (frontend/lower/setitem_basic.py,
setitem_fills.py): the scatter form for a narrow last-axis slice, its updates moved into the
transposed layout before the Expand (by Squeeze/Unsqueeze when only integer axes move), and a
slice write into a large fill as ``If(same shape, Pad(v), Pad(Expand(v)))``.

Differential (tests/oracle.py ``check``): values, dtypes, shapes and arguments after the call,
with empty, one-row and many-row inputs, every dtype family, negative indices and steps,
broadcast values and writes through views of arguments.
"""

from __future__ import annotations

import numpy as np
import pytest

import pyonnx
from tests.oracle import check, op_types

rng = np.random.default_rng(11)
DTYPES = [np.float32, np.float64, np.int32, np.int64, np.uint8, np.bool_, np.float16]


def arr(shape, dtype):
    return (rng.random(shape) * 50 - 10).astype(dtype)


# --------------------------------------------------------- narrow last axis
def first_four(c, g):
    c = c.copy()
    c[:, :4] /= g
    return c


def middle(c, v):
    c = c.copy()
    c[:, 1:3] = v
    return c


def from_the_end(c, v):
    c = c.copy()
    c[..., -3:-1] = v
    c[..., 5:] = 0  # (beyond the axis: an empty write)
    return c


@pytest.mark.parametrize("n", [0, 1, 6])
@pytest.mark.parametrize("width", [2, 4, 7])
@pytest.mark.parametrize("dtype", [np.float32, np.float64])
def test_a_narrow_slice_of_the_last_axis(n, width, dtype):
    c = arr((n, width), dtype)
    check(first_four, c, dtype(0.5))
    check(middle, c, arr((n, min(width, 3) - 1), dtype))
    check(middle, c, dtype(7))
    check(from_the_end, c, arr((1, 2), dtype) if width >= 3 else arr((width - 1,), dtype))


@pytest.mark.parametrize("dtype", DTYPES)
def test_narrow_slices_of_every_dtype_and_rank3(dtype):
    check(middle, arr((5, 4), dtype), arr((5, 2), dtype))
    check(from_the_end, arr((2, 3, 6), dtype), arr((3, 2), dtype))


def test_a_narrow_slice_uses_no_last_axis_concat():
    f = pyonnx.compile(first_four)
    c = arr((8, 4), np.float32)
    check(f, c, np.float32(2))
    concats = [n for n in f.to_onnx(c, np.float32(2)).graph.node if n.op_type == "Concat"]
    assert all(a.i == 0 for n in concats for a in n.attribute if a.name == "axis")
    assert "ScatterND" in op_types(f, c, np.float32(2))


def narrow_into_an_argument(b, v):
    """Through a view of the argument: the caller's array changes."""
    head = b[:, :3]
    head[:, 1:] = v
    b[:, -1:] += 1
    return head.sum()


@pytest.mark.parametrize("n", [0, 1, 4])
def test_narrow_writes_through_views_of_arguments(n):
    check(narrow_into_an_argument, arr((n, 5), np.float64), arr((n, 2), np.float64))
    check(narrow_into_an_argument, arr((n, 5), np.int64), np.int64(3))


def too_wide(c, v):
    c = c.copy()
    c[:, :2] = v
    return c


def test_a_value_numpy_cannot_broadcast_still_fails():
    with pytest.raises((ValueError, pyonnx.PyonnxError)):
        pyonnx.compile(too_wide)(arr((4, 5), np.float32), arr((4, 3), np.float32))


# ------------------------------------------------------ moved updates
def channel_of_strided_rows(z, v):
    z = z.copy()
    z[::2, :, 1] = v  # partial axes 0 (step 2) and 2 (int): only the int axis moves
    return z


def channel_of_strided_columns(z, v):
    z = z.copy()
    z[:, ::-2, -1] = v  # partial axes 1 and 2 to the front: a real Transpose of v
    return z


def column_of_a_matrix(b, v, k):
    b = b.copy()
    b[:, k] = v
    return b


@pytest.mark.parametrize("dtype", DTYPES)
@pytest.mark.parametrize("shape", [(5, 4, 3), (1, 1, 2), (0, 3, 2)])
def test_scatter_updates_in_the_transposed_layout(dtype, shape):
    z = arr(shape, dtype)
    rows, cols = len(range(0, shape[0], 2)), len(range(shape[1] - 1, -1, -2))
    check(channel_of_strided_rows, z, arr((rows, shape[1]), dtype))
    check(channel_of_strided_rows, z, arr((shape[1],), dtype))
    check(channel_of_strided_columns, z, arr((shape[0], cols), dtype))
    check(channel_of_strided_columns, z, arr((shape[0], 1), dtype))


@pytest.mark.parametrize("k", [0, 2, -1, -3])
@pytest.mark.parametrize("n", [0, 1, 9])
def test_columns_with_negative_indices_and_broadcast_values(k, n):
    b = arr((n, 3), np.float32)
    check(column_of_a_matrix, b, arr((n,), np.float32), k)
    check(column_of_a_matrix, b, np.float32(-0.0), k)
    check(column_of_a_matrix, b, arr((1,), np.float32), k)
    check(column_of_a_matrix, b.astype(np.int32), np.int32(4), k)


# ------------------------------------------------- pad into a large fill
def letterbox(img, top, left):
    canvas = np.full((640, 640, 3), 114, dtype=np.uint8)
    h, w = img.shape[0], img.shape[1]
    canvas[top:top + h, left:left + w] = img
    return canvas


def band(v, top):
    canvas = np.zeros((300, 400), dtype=np.float32)
    canvas[top:top + 100, 10:] = v
    return canvas


def test_letterbox_pads_the_image_without_expanding_it():
    img = rng.integers(0, 255, (48, 64, 3), dtype=np.uint8)
    for top, left in [(80, 0), (0, 0), (592, 576), (-640, -640)]:
        check(letterbox, img, top, left)
    check(letterbox, img[:1], 5, 0)
    check(letterbox, img[:1, :1], 5, 7)
    check(letterbox, img[:0], 5, 0)
    f = pyonnx.compile(letterbox)
    model = f.to_onnx(img, 3, 4)
    assert [n.op_type for n in model.graph.node][-1] == "If"
    assert "Expand" not in {n.op_type for n in model.graph.node}


@pytest.mark.parametrize("top", [0, 150, 200, 280, -290, -20])
@pytest.mark.parametrize("shape", [(), (1, 390), (100, 1), (100, 390), (1, 1), (390,)])
def test_a_band_with_broadcast_values(top, shape):
    v = np.asarray(arr(shape, np.float32))
    try:
        band(v, top)
    except ValueError:  # (numpy refuses: the compiled function must fail too)
        with pytest.raises((ValueError, pyonnx.PyonnxError)):
            pyonnx.compile(band)(v, top)
        return
    check(band, v, top)


# ------------------------------------------------------------------ gradients
def weighted_band(v, w, top):
    canvas = np.zeros((300, 400))
    canvas[top:top + 100, 10:] = v
    return (canvas * w).sum()


@pytest.mark.parametrize("shape", [(100, 390), (390,), (100, 1)])
def test_the_gradient_through_a_pad_into_a_large_fill(shape):
    w = rng.random((300, 400))
    v = rng.random(shape)
    g = pyonnx.grad(weighted_band)(v, w, 150)
    region = w[150:250, 10:]
    want = region.sum(axis=tuple(a for a in range(2) if len(shape) < 2 - a or
                                  (len(shape) == 2 and shape[a] == 1)), keepdims=False)
    np.testing.assert_allclose(g, np.asarray(want).reshape(shape), rtol=1e-12)


def weighted_boxes(x, w):
    y = x.copy()
    y[:, 0] = (x[:, 0] + x[:, 2]) / 2
    y[:, 1:3] = y[:, 1:3] * 3  # (a narrow last-axis slice)
    y[::2, 3] = x[::2, 1] - x[::2, 0]
    return (y * w).sum()


def test_the_gradient_of_column_and_narrow_writes():
    from tests.test_grad import check_grads

    check_grads(weighted_boxes, rng.random((5, 4)), rng.random((5, 4)))
