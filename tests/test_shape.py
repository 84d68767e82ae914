"""Differential tests of numpy's shape functions (pyonnx/frontend/numpy_calls/shape/).

Every compiled input has symbolic dimensions, so these exercise the run-time shape paths;
arrays built from constants (``x + ZEROS_6``) have known dims and exercise the static checks.
"""

from __future__ import annotations

import numpy as np
import pytest

import pyonnx
from tests.oracle import check

ALL_DTYPES = ["bool", "int8", "int16", "int32", "int64", "uint8", "uint16", "uint32", "uint64",
              "float16", "float32", "float64"]


def sample(shape, dtype, seed=0):
    """Small distinct-ish values of ``dtype`` (negative ones only for signed kinds)."""
    rng = np.random.default_rng(seed)
    raw = rng.integers(-50, 50, size=shape)
    dt = np.dtype(dtype)
    if dt.kind == "b":
        return raw > 0
    if dt.kind == "u":
        raw = np.abs(raw)
    return raw.astype(dt)


# Module constants: arrays whose shape is known at conversion time (static-shape checks).
ZEROS_6 = np.zeros(6)
ZEROS_5 = np.zeros(5)
ZEROS_2 = np.zeros(2)
ZEROS_3 = np.zeros(3)
ZEROS_2x3 = np.zeros((2, 3))
ONES_2x2 = np.ones((2, 2))
ONES_2x4 = np.ones((2, 4))
ONES_3 = np.ones(3)
ONES_2_INT8 = np.ones(2, np.int8)


def error_line(fn, *args, match=None):
    """Asserts fn raises ConversionError; returns its line relative to ``def``."""
    with pytest.raises(pyonnx.ConversionError, match=match) as info:
        pyonnx.compile(fn)(*args)
    return info.value.lineno - fn.__code__.co_firstlineno


# ------------------------------------------------------------------------------ reshape
def reshapes(x):
    return (x.reshape(4, -1), x.reshape((-1, 6)), np.reshape(x, (x.shape[0], -1)),
            x.reshape(x.shape[2], x.shape[0], x.shape[1]), np.reshape(x, -1), x.ravel(),
            x.flatten(), np.ravel(x), x.reshape(2, 3, 2, 2))


def reshape_dyn_minus_one(x):
    return x.reshape(x.shape[0], -1), x.reshape(-1, x.shape[1] * x.shape[2])


def reshape_first(x):
    return x.reshape(x.shape[0], -1)


def reshape_zero(x):
    return x.reshape(0, 5), x.reshape(x.shape[1], 0, x.shape[0])


def reshape_n(x, n):
    return x.reshape(n, -1)


@pytest.mark.parametrize("dtype", ALL_DTYPES)
def test_reshape(dtype):
    check(reshapes, sample((2, 3, 4), dtype))


def test_reshape_dynamic_dims_and_empty():
    check(reshape_dyn_minus_one, sample((2, 3, 4), "float32"))
    check(reshape_first, sample((3, 0, 2), "int64"))
    check(reshape_zero, np.zeros((2, 0, 3)))
    f = check(reshape_n, sample((4, 3), "int32"), 2)
    check(f, sample((6, 2), "int32"), 3)


def test_reshape_minus_one_next_to_a_dynamic_zero_fails_at_run_time():
    # numpy: "cannot reshape array of size 0 into shape (0,newaxis)"; pyonnx must not guess.
    with pytest.raises(ValueError, match="cannot reshape array of size 0"):
        reshape_dyn_minus_one(np.zeros((0, 2, 3)))
    with pytest.raises(pyonnx.ExecutionError, match="onnxruntime failed to run the model"):
        pyonnx.compile(reshape_dyn_minus_one)(np.zeros((0, 2, 3)))


def reshape_bad(x):
    y = x + ZEROS_6
    return y.reshape(4, -1)


def reshape_bad_size(x):
    return np.reshape(x + ZEROS_2x3, (7,))


def reshape_two_unknown(x):
    return x.reshape(-1, -1)


def reshape_order_f(x):
    return x.reshape((3, 2), order="F")


def test_reshape_errors():
    assert error_line(reshape_bad, np.ones(6), match=r"size 6 into shape \(4,newaxis\)") == 2
    assert error_line(reshape_bad_size, np.ones(3), match=r"size 6 into shape \(7,\)") == 1
    assert error_line(reshape_two_unknown, np.ones(6), match="one unknown dimension") == 1
    assert error_line(reshape_order_f, np.ones(6), match="order") == 1


# ---------------------------------------------------------------------------- transposes
def transposes(x):
    return (x.transpose(), x.transpose(1, 0, 2), x.transpose((2, 0, 1)), np.transpose(x),
            np.transpose(x, (-1, 0, 1)), x.T, x.mT, np.swapaxes(x, 0, -1), x.swapaxes(1, 2),
            np.moveaxis(x, 0, -1), np.moveaxis(x, (0, 1), (-1, 0)), np.rollaxis(x, 2),
            np.rollaxis(x, 0, 2), np.permute_dims(x, (1, 2, 0)), np.matrix_transpose(x))


@pytest.mark.parametrize("dtype", ALL_DTYPES)
def test_transposes(dtype):
    check(transposes, sample((2, 3, 4), dtype))


def test_transposes_empty():
    check(transposes, np.zeros((2, 0, 3), np.float32))


def transpose_bad(x):
    return x.transpose(0, 0)


def mt_1d(x):
    return x.mT


def test_transpose_errors():
    assert error_line(transpose_bad, np.ones((2, 2)), match="repeated axis") == 1
    assert error_line(mt_1d, np.ones(3), match="ndim < 2") == 1


# ---------------------------------------------------------------------- squeeze / expand
def squeezes(x):
    return (np.squeeze(x, 0), x.squeeze(axis=(0, -1)), np.squeeze(x, -1),
            np.expand_dims(x, 0), np.expand_dims(x, (0, -1)), np.expand_dims(x, -2),
            np.expand_dims(np.squeeze(x, (0, 2)), 1))


def squeeze_static(x):
    # broadcast_to a static shape: every dim known, so squeeze() without axis works.
    return np.squeeze(np.broadcast_to(x, (1, 3, 1))), np.squeeze(np.broadcast_to(x, (1, 1)))


@pytest.mark.parametrize("dtype", ["bool", "int16", "uint64", "float16", "float64"])
def test_squeeze_expand(dtype):
    check(squeezes, sample((1, 3, 1), dtype))
    check(squeezes, sample((1, 0, 1), dtype))
    check(squeeze_static, sample((1, 1), dtype))


def squeeze_no_axis(x):
    return np.squeeze(x[x > 0])  # which dims are 1 depends on the data


def squeeze_static_bad(x):
    return np.squeeze(x + ZEROS_2x3, 0)


def squeeze_dynamic(x):
    return np.squeeze(x, 0)


def test_squeeze_errors():
    assert error_line(squeeze_no_axis, np.ones((1, 3)), match="pass axis=") == 1
    # (without axis on the inputs' shapes it converts per shape: tests/test_refusals_fixed.py)
    assert error_line(squeeze_static_bad, np.ones(3), match="size not equal to one") == 1
    # A dynamic dim that is not 1: onnxruntime's Squeeze fails the run (numpy raises too).
    with pytest.raises(pyonnx.ExecutionError, match="onnxruntime failed to run the model"):
        pyonnx.compile(squeeze_dynamic)(np.ones((2, 3)))


# ------------------------------------------------------------------------------ joining
def joins(x, y):
    return (np.concatenate([x, y]), np.concatenate((x, y), axis=-1),
            np.concatenate([x, y], axis=None), np.concat([y, x, y], axis=1),
            np.stack([x, y]), np.stack((x, y), axis=-1), np.stack([x, y], axis=1),
            np.hstack([x, y]), np.vstack([x, y]), np.dstack([x, y]), np.column_stack([x, y]))


def joins_1d(x, y):
    return (np.concatenate([x, y]), np.stack([x, y]), np.hstack([x, y]), np.vstack([x, y]),
            np.dstack([x, y]), np.column_stack([x, y]), np.hstack((x, 7)))


def join_static(x):
    return (np.concatenate([x, [1, 2]]), np.concatenate([[0.5], x]), np.stack([x, x]),
            np.concatenate([x], dtype=np.float32), np.vstack([x, ONES_2_INT8]),
            np.concatenate([x, x], dtype=np.int8, casting="unsafe"))


def join_array_sequence(x):
    return (np.concatenate(x), np.concatenate(x, axis=1), np.concatenate(x, axis=-1),
            np.concatenate(x, axis=None), np.stack(x), np.stack(x, axis=1), np.stack(x, -1))


def atleasts(x):
    return np.atleast_1d(x), np.atleast_2d(x), np.atleast_3d(x)


def atleast_many(x, y):
    a, b = np.atleast_2d(x, y)
    return a, b


@pytest.mark.parametrize("dt1, dt2", [("float32", "float32"), ("int8", "uint8"),
                                      ("bool", "int16"), ("float16", "int64"),
                                      ("uint64", "int64"), ("uint32", "float32")])
def test_joins(dt1, dt2):
    check(joins, sample((2, 3), dt1), sample((2, 3), dt2, 1))
    check(joins_1d, sample(3, dt1), sample(3, dt2, 1))


def test_joins_empty_and_static_items():
    check(joins, np.zeros((0, 3), np.float32), np.zeros((0, 3), np.float32))
    check(joins_1d, np.zeros(0, np.int32), np.zeros(0, np.int32))
    check(join_static, sample(2, "int16"))
    check(join_static, sample(2, "float64"))


@pytest.mark.parametrize("shape", [(2, 3, 4), (1, 2, 3), (3, 0, 2)])
def test_join_array_sequence(shape):
    check(join_array_sequence, sample(shape, "float32"))


def concat_rows(x):
    return np.concatenate(x)


def stack_rows(x):
    return np.stack(x, axis=1)


def test_join_empty_array_sequence_fails_at_run_time():
    # numpy: "need at least one array to concatenate" / "to stack".
    for fn in (concat_rows, stack_rows):
        with pytest.raises(ValueError, match="need at least one array to"):
            fn(np.zeros((0, 2, 3)))
        with pytest.raises(pyonnx.ExecutionError, match="onnxruntime failed to run the model"):
            pyonnx.compile(fn)(np.zeros((0, 2, 3)))


@pytest.mark.parametrize("shape", [(), (3,), (2, 3), (2, 3, 4)])
def test_atleast(shape):
    check(atleasts, sample(shape, "int32"))


def test_atleast_many():
    check(atleast_many, np.float32(2.0) * np.ones((), np.float32), sample(3, "int8"))


def concat_rank_mismatch(x):
    return np.concatenate([x, ONES_2x2])


def concat_dim_mismatch(x):
    return np.concatenate([x + ZEROS_2x3, ONES_2x4])


def concat_bad_casting(x):
    return np.concatenate([x, x], dtype=np.int32)


def concat_scalars(x):
    return np.concatenate([x[0], x[1]])


def stack_shape_mismatch(x):
    return np.stack([x + ZEROS_2, ONES_3])


def test_join_errors():
    assert error_line(concat_rank_mismatch, np.ones(3), match="same number of dimensions") == 1
    assert error_line(concat_dim_mismatch, np.ones(3), match="along dimension 1") == 1
    assert error_line(concat_bad_casting, np.ones(3), match="same_kind") == 1
    assert error_line(concat_scalars, np.ones(3), match="zero-dimensional") == 1
    assert error_line(stack_shape_mismatch, np.ones(2), match="same shape") == 1
    with pytest.raises(pyonnx.ExecutionError, match="onnxruntime failed to run the model"):  # run-time mismatch: Concat fails, as numpy
        pyonnx.compile(joins)(np.ones((2, 3)), np.ones((2, 4)))


# ---------------------------------------------------------------------- tile / repeat
def tiles(x):
    return (np.tile(x, 2), np.tile(x, (2, 1)), np.tile(x, (2, 1, 3)), np.tile(x, 0),
            np.tile(x, (1, 1)), np.tile(x, x.shape[0]))


def repeats(x):
    return (np.repeat(x, 2), np.repeat(x, 3, axis=1), x.repeat(2, axis=-2), np.repeat(x, 0, 0),
            np.repeat(x, [2], axis=1), np.repeat(x, x.shape[0], axis=1))


def repeats_static_counts(x):
    return np.repeat(x, [1, 0, 2], axis=1), x.repeat([3, 1], axis=0)


def repeat_dynamic_counts(x, r):
    return np.repeat(x, r, axis=0), np.repeat(x, r[0], axis=1)


def repeat_flat_counts(x, r):
    return np.repeat(x, r)


@pytest.mark.parametrize("dtype", ["bool", "int8", "uint16", "int64", "float16", "float64"])
def test_tile_repeat(dtype):
    check(tiles, sample((2, 3), dtype))
    check(repeats, sample((2, 3), dtype))
    check(repeats_static_counts, sample((2, 3), dtype))
    check(repeat_dynamic_counts, sample((3, 2), dtype), np.array([1, 0, 3]))


def test_repeat_dynamic_counts_edge_cases():
    check(repeat_dynamic_counts, sample((3, 2), "int32"), np.array([2]))  # broadcast length 1
    check(repeat_dynamic_counts, sample((3, 2), "int32"), np.array([0, 0, 0]))
    check(repeat_flat_counts, sample((2, 2), "float32"), np.array([1, 2, 0, 1], np.int32))
    check(tiles, np.zeros((0, 3), np.float32))
    check(repeats, np.zeros((2, 0), np.float32))
    check(repeat_flat_counts, np.zeros((0, 2)), np.zeros(0, np.int64))


def test_repeat_run_time_errors():
    f = pyonnx.compile(repeat_dynamic_counts)
    with pytest.raises(pyonnx.ExecutionError, match="onnxruntime failed to run the model"):  # negative count (numpy: ValueError)
        f(np.ones((3, 2)), np.array([1, -1, 3]))
    with pytest.raises(pyonnx.ExecutionError, match="onnxruntime failed to run the model"):  # wrong number of counts
        f(np.ones((3, 2)), np.array([1, 2]))
    g = pyonnx.compile(repeats_static_counts)
    with pytest.raises(pyonnx.ExecutionError, match="onnxruntime failed to run the model"):  # 4 columns, 3 static counts
        g(np.ones((2, 4)))


def tile_negative(x):
    return np.tile(x, -1)


def repeat_float(x):
    return np.repeat(x, 1.5)


def test_tile_repeat_errors():
    assert error_line(tile_negative, np.ones(2), match="negative") == 1
    assert error_line(repeat_float, np.ones(2), match="safe") == 1


# ------------------------------------------------------------------------ broadcasting
def broadcasts(x, y):
    a, b = np.broadcast_arrays(x, y)
    return np.broadcast_to(x, (4, 3)), np.broadcast_to(y, (2, 3)), a, b


def broadcast_dynamic(x, y):
    return np.broadcast_to(x, (y.shape[0], x.shape[0])), np.broadcast_to(x, x.shape)


@pytest.mark.parametrize("dtype", ["bool", "uint8", "float32"])
def test_broadcast(dtype):
    check(broadcasts, sample(3, dtype), sample((2, 1), dtype, 1))
    check(broadcast_dynamic, sample(3, dtype), sample(5, dtype))
    check(broadcast_dynamic, sample(0, dtype), sample(5, dtype))


def broadcast_to_one(x):
    return np.broadcast_to(x, (1,))


def broadcast_static_bad(x):
    return np.broadcast_to(x + ZEROS_3, (4,))


def test_broadcast_errors():
    assert error_line(broadcast_static_bad, np.ones(3), match="broadcast") == 1
    # Expand broadcasts both ways ((3,) to (1,) gives (3,)); numpy refuses: the run must fail.
    with pytest.raises(pyonnx.ExecutionError, match="onnxruntime failed to run the model"):
        pyonnx.compile(broadcast_to_one)(np.ones(3))


# ------------------------------------------------------------------------ flip / roll
def flips(x):
    return (np.flip(x), np.flip(x, 0), np.flip(x, -1), np.flip(x, (0, 1)), np.fliplr(x),
            np.flipud(x))


def rolls(x):
    return (np.roll(x, 1), np.roll(x, -7), np.roll(x, 1, axis=0), np.roll(x, -1, axis=-1),
            np.roll(x, (1, 2), axis=(0, 1)), np.roll(x, (1, 1), axis=(1, 1)),
            np.roll(x, 5, axis=1), np.roll(x, x.shape[1] + 1, axis=1), np.roll(x, 0))


def roll_dynamic(x, s):
    return np.roll(x, s, axis=1), np.roll(x, s), np.roll(x, (s, -s), axis=(0, 1))


@pytest.mark.parametrize("dtype", ["bool", "int8", "uint32", "float16", "float64"])
def test_flip_roll(dtype):
    check(flips, sample((3, 4), dtype))
    check(rolls, sample((3, 4), dtype))


def test_roll_dynamic_shift_and_empty():
    f = check(roll_dynamic, sample((3, 4), "int64"), 5)
    check(f, sample((3, 4), "int64"), -9)
    check(f, np.zeros((2, 0), np.float32), 3)
    check(rolls, np.zeros((0, 3), np.float32))
    check(flips, np.zeros((0, 3), np.float32))


def fliplr_1d(x):
    return np.fliplr(x)


def test_flip_errors():
    assert error_line(fliplr_1d, np.ones(3), match=">= 2-d") == 1


# --------------------------------------------------------------------------- splitting
def splits(x):
    a, b, c = np.array_split(x, 3)
    d, e, f = np.split(x, [1, 3])
    g, h = np.split(x, 2, axis=1)
    i, j = np.array_split(x, [-1], axis=-1)
    k, l_ = np.hsplit(x, 2)
    m, n = np.vsplit(x, [2])
    return a, b, c, d, e, f, g, h, i, j, k, l_, m, n


def split_unequal(x):
    a, b = np.split(x, 2)
    return a, b


def dsplits(x):
    a, b = np.dsplit(x, [1])
    return a, b


@pytest.mark.parametrize("dtype", ["bool", "int16", "float32"])
@pytest.mark.parametrize("rows", [5, 4, 1, 0])
def test_splits(dtype, rows):
    check(splits, sample((rows, 4), dtype))


def test_split_more():
    check(dsplits, sample((2, 2, 3), "int32"))
    with pytest.raises(pyonnx.ExecutionError, match="onnxruntime failed to run the model"):  # 5 rows into 2 equal parts
        pyonnx.compile(split_unequal)(np.ones((5, 2)))


def split_static_unequal(x):
    a, b = np.split(x + ZEROS_5, 2)
    return a, b


def test_split_errors():
    assert error_line(split_static_unequal, np.ones(5), match="equal division") == 1


# --------------------------------------------------------------------- astype / copy / pad
def conversions(x):
    return (x.astype(np.float32), x.astype("int8"), np.astype(x, np.uint16), x.copy(),
            np.copy(x), x.astype(x.dtype), x.astype(bool))


def pads(x):
    return (np.pad(x, 1), np.pad(x, ((1, 2), (0, 1))), np.pad(x, (2, 0), constant_values=3),
            np.pad(x, 2, mode="edge"), np.pad(x, ((0, 1), (1, 0)), mode="reflect"),
            np.pad(x, 0))


def pad_dynamic_value(x, v):
    return np.pad(x, 1, constant_values=v)


def queries(x):
    return np.ndim(x), np.size(x), np.size(x, 1), np.shape(x)[0], np.shape(x)[1] + 0


@pytest.mark.parametrize("dtype", ALL_DTYPES)
def test_conversions_and_pad(dtype):
    x = sample((2, 3), dtype)
    check(conversions, x)
    check(pads, x)
    check(queries, x)


def test_pad_dynamic_value():
    check(pad_dynamic_value, sample((2, 2), "int16"), 7)
    check(pad_dynamic_value, sample((2, 2), "float32"), 2.5)


def astype_bad(x):
    return x.astype(np.int8, casting="safe")


def pad_mode(x):
    return np.pad(x, 1, mode="empty")  # uninitialized values: refused


def test_conversion_errors():
    assert error_line(astype_bad, np.ones(2), match="safe") == 1
    assert error_line(pad_mode, np.ones(2), match="mode") == 1

