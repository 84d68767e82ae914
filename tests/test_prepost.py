"""ML pre- and post-processing as people write it (issue 20), against numpy: NMS with run-time
lists (returned, used as indices, tested, sliced), np.append/delete/insert/partition/
argpartition, list arguments and defaults, starred tuples, ``range(...)[i]``, ``None`` tests,
every dtype spelling of the creation functions; and the refusals on this path, located."""

from __future__ import annotations

import re

import numpy as np
import pytest

import pyonnx
import tests.prepost_kernels as k
from tests.oracle import check

RNG = np.random.default_rng(20)


def boxes_and_scores(n: int, dtype=np.float32, ties: bool = False, seed: int = 0):
    """``n`` random boxes ``[x1, y1, x2, y2]`` that overlap often, and their scores (distinct
    unless ``ties``: then several boxes share a score)."""
    rng = np.random.default_rng(seed)
    xy = rng.uniform(0, 60, (n, 2))
    wh = rng.uniform(5, 40, (n, 2))
    boxes = np.concatenate([xy, xy + wh], axis=1).astype(dtype)
    scores = (rng.integers(0, 4, n) / 4 if ties else rng.permutation(n) / max(n, 1)).astype(dtype)
    return boxes, scores


def same_item_types(got, want) -> None:
    """Lists come back holding what numpy code's list holds: Python ints, numpy scalars or
    arrays (the oracle compares values; this compares the item types)."""
    assert type(got) is type(want)
    for g, w in zip(got, want):
        if isinstance(w, np.generic):  # (onnxruntime's int64 is np.longlong: same dtype)
            assert isinstance(g, np.generic) and g.dtype == w.dtype, (type(g), type(w))
        else:
            assert type(g) is type(w), (type(g), type(w))


SIZES = [0, 1, 2, 40]


# ------------------------------------------------------------------ NMS, run-time lists
@pytest.mark.parametrize("n", SIZES)
@pytest.mark.parametrize("dtype", [np.float32, np.float64])
def test_classic_nms_returns_list_of_numpy_ints(n, dtype):
    boxes, scores = boxes_and_scores(n, dtype)
    # numpy's default argsort is not stable: distinct scores keep the order well defined.
    compiled = check(k.nms, boxes, scores, 0.3)
    same_item_types(compiled(boxes, scores, 0.3), k.nms(boxes, scores, 0.3))


@pytest.mark.parametrize("n", SIZES)
@pytest.mark.parametrize("ties", [False, True])
def test_nms_indexes_boxes_with_kept_list(n, ties):
    boxes, scores = boxes_and_scores(n, ties=ties, seed=n)
    check(k.nms_boxes, boxes, scores)
    check(k.nms_boxes, boxes, scores, 0.3, 2)


@pytest.mark.parametrize("n", SIZES)
def test_len_and_truth_of_kept_list(n):
    boxes, scores = boxes_and_scores(n, seed=3)
    check(k.nms_count, boxes, scores, 0.3)
    check(k.keep_stats, boxes, scores)


@pytest.mark.parametrize("n", SIZES)
@pytest.mark.parametrize("ties", [False, True])
def test_nms_with_np_delete(n, ties):
    boxes, scores = boxes_and_scores(n, np.float64, ties=ties, seed=5)
    check(k.nms_delete, np.concatenate([boxes, scores[:, None]], axis=1), 0.3)


@pytest.mark.parametrize("n", SIZES)
def test_per_class_nms(n):
    boxes, scores = boxes_and_scores(n, ties=True, seed=7)
    labels = np.random.default_rng(n).integers(0, 3, n)
    check(k.nms_per_class, boxes, scores, labels, 3, 0.4)


@pytest.mark.parametrize("n", SIZES)
def test_nms_returning_rows(n):
    boxes, scores = boxes_and_scores(n, seed=11)
    compiled = check(k.nms_rows, boxes, scores)
    same_item_types(compiled(boxes, scores), k.nms_rows(boxes, scores))


@pytest.mark.parametrize("n", SIZES)
def test_kept_list_as_int_array(n):
    boxes, scores = boxes_and_scores(n, seed=17)
    check(k.nms_as_array, boxes, scores)  # with a dtype, an empty list is exact: shape (0,)


@pytest.mark.parametrize("n", [0, 1, 3, 40])
def test_detect_returns_none_or_top_detections(n):
    boxes, scores = boxes_and_scores(n, seed=13)
    check(k.detect, boxes, scores)
    check(k.detect, boxes, scores * 0.1)  # nothing passes the score threshold: None


@pytest.mark.parametrize("n", SIZES)
def test_decoders_in_common_styles(n):
    rng = np.random.default_rng(n)
    logits = rng.normal(size=(n, 5))
    compiled = check(k.ctc_greedy, logits)
    same_item_types(compiled(logits), k.ctc_greedy(logits))
    pred = np.concatenate([rng.uniform(0, 100, (n, 2)), rng.uniform(5, 30, (n, 2)),
                           rng.random((n, 4))], axis=1).astype(np.float32)
    check(k.yolo_postprocess, pred)
    check(k.per_image, rng.random((2, n, 5)))


def test_list_of_python_ints_from_range():
    def positives(x):
        keep = []
        for i in range(x.shape[0]):
            if x[i] > 0:
                keep.append(i)
        return keep, keep[1:], keep[::-1]

    for x in (np.array([1.0, -2, 3, 4]), np.zeros(0), np.array([-1.0])):
        compiled = check(positives, x)
        for got, want in zip(compiled(x), positives(x)):
            same_item_types(got, want)


def test_write_through_kept_list():
    def mark(scores):
        keep = []
        for i in range(scores.shape[0]):
            if scores[i] > 0.5:
                keep.append(i)
        out = np.zeros_like(scores)
        out[keep] = 1.0
        return out, scores[keep, None]

    for x in (np.array([0.9, 0.1, 0.7]), np.array([0.1]), np.zeros(0)):
        check(mark, x)


# ------------------------------------------------------------------ np.append / delete / insert
APPEND_CASES = [np.arange(5, dtype=np.float32), np.zeros(0, np.float32),
                np.arange(6, dtype=np.int32).reshape(2, 3), np.array([True, False])]


@pytest.mark.parametrize("x", APPEND_CASES, ids=lambda a: f"{a.dtype}{a.shape}")
def test_append(x):
    def append_number(x):
        return np.append(x, 0.5), np.append(x, 2), np.append(x, [1, 2])

    def append_rows(x):
        return np.append(x, x, axis=0), np.append(x, x[:, :1], axis=-1)

    check(append_number, x)
    if x.ndim == 2:
        check(append_rows, x)
    check(k.pre_emphasis, np.linspace(-1, 1, 7).astype(np.float32))
    check(k.pre_emphasis, np.ones(1))


@pytest.mark.parametrize("n", [1, 4, 5, 9])
def test_framing_with_append(n):
    check(k.pad_frames, np.arange(n, dtype=np.float32))


@pytest.mark.parametrize("dtype", [np.int64, np.float32, np.uint8])
def test_delete(dtype):
    x = np.arange(12).astype(dtype).reshape(3, 4)

    def positions(x):
        return (np.delete(x, 1), np.delete(x, -1, axis=0), np.delete(x, [0, -1], axis=1),
                np.delete(x, [], axis=1), np.delete(x, np.array([2, 2, 0]), axis=1))

    def slices_and_masks(x):
        return (np.delete(x, slice(None, None, 2), axis=1), np.delete(x, slice(-2, None)),
                np.delete(x, x[0] > 1, axis=1), np.delete(x[0], x[0] > 100))

    def empty(x):
        return np.delete(x, []), np.delete(x, 0, axis=1), np.delete(x, x[:, 0] > 0, axis=0)

    check(positions, x)
    check(slices_and_masks, x)
    check(empty, x[:0])
    check(k.drop_background, RNG.normal(size=(5, 4)).astype(np.float32))


def test_delete_out_of_range_fails_at_run_time():
    def drop(x, i):
        return np.delete(x, i)

    with pytest.raises(IndexError, match=r"index 5 is out of bounds for axis 0 with size 3"):
        drop(np.arange(3), np.int64(5))
    with pytest.raises(pyonnx.PyonnxError, match=r"indices element out of data bounds"):
        pyonnx.compile(drop)(np.arange(3), np.array(5))
    for mask in (np.array([True]), np.array([True, False])):  # not the axis length
        with pytest.raises(ValueError, match=r"boolean array argument obj to delete must be one"):
            drop(np.arange(3), mask)
        with pytest.raises(pyonnx.PyonnxError, match=r"A dimension cannot be less than -1"):
            pyonnx.compile(drop)(np.arange(3), mask)


@pytest.mark.parametrize("dtype", [np.int32, np.float64])
def test_insert(dtype):
    x = np.arange(6).astype(dtype).reshape(2, 3)

    def insert(x, i):
        return (np.insert(x, 1, 9), np.insert(x, i, 7.9, axis=1), np.insert(x, -1, [5, 6, 7],
                                                                            axis=0),
                np.insert(x, 0, [[1], [2]], axis=1), np.insert(x, 3, 0, axis=1))

    check(insert, x, 2)
    check(insert, x, -3)
    check(k.add_bias_column, RNG.normal(size=(4, 2)))


# ------------------------------------------------------------------ partition, argpartition
def _partitioned(x, kth, axis=-1):
    """numpy's guarantee for ``np.partition(x, kth, axis)``: a permutation with the kth
    element where a sort puts it and nothing greater before it, nothing smaller after it."""
    got = pyonnx.compile(lambda_partition)(x, kth, axis)
    xs = np.sort(x, axis=axis)
    got_m = np.moveaxis(got, axis, -1)
    xs_m = np.moveaxis(xs, axis, -1)
    np.testing.assert_array_equal(np.sort(got_m, axis=-1), xs_m)
    for kk in np.atleast_1d(kth):
        kk = kk % x.shape[axis]
        np.testing.assert_array_equal(got_m[..., kk], xs_m[..., kk])
        assert np.all(got_m[..., :kk] <= got_m[..., kk:kk + 1])
        assert np.all(got_m[..., kk + 1:] >= got_m[..., kk:kk + 1])


def lambda_partition(x, kth, axis):
    return np.partition(x, kth, axis=axis)


@pytest.mark.parametrize("dtype", [np.float32, np.int64, np.uint8])
def test_partition_property(dtype):
    x = RNG.integers(0, 20, (4, 7)).astype(dtype)
    for kth, axis in [(0, -1), (3, -1), (-1, -1), (1, 0), ((1, 4), -1)]:
        _partitioned(x, kth, axis)


def test_argpartition_property_and_topk():
    def arg_property(x, kth):
        p = np.argpartition(x, kth)
        return np.sort(p), x[p][kth], np.all(x[p][:kth] <= x[p][kth]), \
            np.all(x[p][kth + 1:] >= x[p][kth])

    x = RNG.normal(size=11)
    for kth in (0, 5, 10):
        check(arg_property, x, kth)
    for n, kk in [(10, 3), (6, 6), (1, 1)]:
        scores = RNG.permutation(n).astype(np.float32)
        check(k.topk_scores, scores, kk)
        check(k.topk_values, scores, kk)
    check(k.kth_smallest, RNG.normal(size=(3, 5)), 2)
    # numpy raises ValueError for a kth out of range: the model fails its run (the length is
    # only known at run time)
    with pytest.raises(ValueError, match=r"kth\(=5\) out of bounds"):
        k.refuse_kth(np.arange(4.0))
    with pytest.raises(pyonnx.PyonnxError, match="kth_out_of_bounds"):
        pyonnx.compile(k.refuse_kth)(np.arange(4.0))
    with pytest.raises(pyonnx.ConversionError, match=r"kth\(=5\) out of bounds"):
        pyonnx.compile(k.refuse_kth, static_shapes=True)(np.arange(4.0))

    def topk_flat(x):
        return np.sort(x.ravel()[np.argpartition(x, -3, axis=None)[-3:]])

    check(topk_flat, RNG.normal(size=(3, 4)))


def top_values(x, k):
    # (+ 0.0: the order of tied ±0 inside the part is introselect's)
    return np.sort(x[np.argpartition(x, -k)[-k:]]) + 0.0, np.sort(x[np.argpartition(x, k)[:k]]) + 0.0


@pytest.mark.parametrize("dtype", [np.float16, np.float32])
def test_argpartition_with_nan_and_infinities(dtype):
    # float16/32 take the NaN-last key only when the sum is NaN: both paths, NaNs last
    special = np.array([3.0, np.nan, 1.0, np.inf, -np.inf, -0.0, 0.0, np.nan, 2.0], dtype)
    for x in (special, special[~np.isnan(special)], RNG.normal(size=40).astype(dtype)):
        for kk in (1, 2, 4):
            check(top_values, x, kk)


# ------------------------------------------------------------------ list arguments, forms
def test_list_defaults_and_list_arguments_are_static():
    check(k.make_anchors)
    check(k.make_anchors, 8, [1.0, 2.0], [4])
    compiled = check(k.lag_matrix, np.arange(10.0))
    check(compiled, np.arange(10.0), [1, 3, 4])
    before = compiled.conversions
    compiled(np.arange(12.0), [1, 3, 4])  # the same list value: the same model
    assert compiled.conversions == before


def test_starred_tuples_range_index_and_none_tests():
    check(k.heatmap_to_coords, RNG.normal(size=(3, 4, 5)))
    check(k.heatmap_to_coords, RNG.normal(size=(2, 4, 5)), (1, 2))

    def full_like_shape(x, v):
        return np.full((*x.shape, 1), v), np.zeros([*x.shape[:-1], 2], x.dtype)

    check(full_like_shape, np.ones((2, 3), np.float32), 2.5)
    for start in (0, 1, -1):
        check(k.pick_window, np.arange(9.0), start)
    with pytest.raises(pyonnx.ExecutionError,
                       match=r"range_object_index_out_of_range"):  # Python raises IndexError; the model fails its run
        pyonnx.compile(k.pick_window)(np.arange(9.0), 7)
    boxes = RNG.normal(size=(3, 4))
    check(k.scale_boxes, boxes)
    check(k.scale_boxes, boxes, 2.0)
    check(k.scale_boxes, boxes, 2.0, np.array([3, 1]))
    check(k.maybe_top, np.arange(5.0), 0)
    check(k.maybe_top, np.arange(5.0), 2)

    def compare_none(x):
        return x != None, x[0] == None, x[0] != None, x is None  # noqa: E711

    compiled = check(compare_none, np.arange(3))
    same_item_types(list(compiled(np.arange(3))), list(compare_none(np.arange(3))))


# ------------------------------------------------------------------ dtype spellings
SPELLINGS = ["float", "np.float64", "'float64'", "np.dtype('float64')", "np.float32", "'f4'",
             "int", "np.int32", "'int64'", "bool"]
FORMS = ["np.asarray(x, {d})", "np.asarray(x, dtype={d})", "np.array(x, {d})",
         "np.asanyarray(x, {d})", "np.ascontiguousarray(x, {d})", "np.zeros(x.shape, {d})",
         "np.ones(x.shape, {d})", "np.full(x.shape, 2, {d})", "np.empty(x.shape, {d}) * 0",
         "np.zeros_like(x, {d})", "np.ones_like(x, dtype={d})", "np.full_like(x, 2, {d})",
         "np.empty_like(x, {d}) * 0", "x.astype({d})"]


@pytest.mark.parametrize("spelling", SPELLINGS)
def test_every_dtype_spelling(spelling):
    namespace = {"np": np}
    src = "".join(f"def f{i}(x):\n    return {form.format(d=spelling)}\n"
                  for i, form in enumerate(FORMS))
    code = compile(src, f"<dtype spelling {spelling}>", "exec")
    import linecache
    linecache.cache[code.co_filename] = (len(src), None, src.splitlines(True), code.co_filename)
    exec(code, namespace)
    for i in range(len(FORMS)):
        for x in (np.arange(6, dtype=np.float32).reshape(2, 3), np.arange(3), np.array([True])):
            check(namespace[f"f{i}"], x)


# ------------------------------------------------------------------ refusals, located
def _marker_line(tag: str) -> tuple[int, str]:
    import inspect
    lines, _ = inspect.findsource(k)
    for i, text in enumerate(lines):
        if text.rstrip().endswith(f"# refused: {tag}"):
            return i + 1, text
    raise AssertionError(tag)


REFUSALS = [
    ("pop", k.refuse_pop, "keep.pop", ["'list.pop'", "run time", "lst[-1]"]),
    ("sort", k.refuse_sort, "keep.sort", ["'list.sort'", "np.sort(x[keep])"]),
    ("plus", k.refuse_plus, "keep +", ["'+'", "lst.append(v)"]),
    ("in", k.refuse_in, "1.0 in", ["'in'", "np.isin"]),
    ("eq", k.refuse_eq, "keep ==", ["'=='", "len(lst)"]),
    ("ragged", k.refuse_ragged_index, "x[rows]", ["indexing with a list built at run time",
                                                 "shape"]),
    ("starred", k.refuse_starred_runtime, "*x", ["'*v'", "conversion time"]),
    ("insert_many", k.refuse_insert_many, "np.insert", ["several positions", "one position"]),
    ("delete_float", k.refuse_delete_float, "np.delete", ["float64", ".astype(int)"]),
    ("partition_inplace", k.refuse_partition_inplace, "x.partition",
     ["in place", "x = np.partition(x, kth)"]),
    ("return_string", k.refuse_return_string, '"boxes"', ["returns 'boxes'", "arrays, numbers"]),
    ("mixed", k.refuse_mixed_list, "out", ["Python numbers", "numpy scalars", "int(v)"]),
    ("mutates_argument", k.refuse_appends_to_argument, "ratios.append",
     ["list argument 'ratios'", "list(ratios)"]),
    ("extend", k.refuse_extend, "keep.extend", ["list.extend()", "lst.append(v)"]),
    ("sorted_range", k.refuse_sorted_range, "sorted(", ["sorted()", "run time",
                                                        "np.argsort(-scores, kind='stable')"]),
    ("sorted_array", k.refuse_sorted_array, "sorted(", ["sorted() of array values",
                                                        "np.sort(x)"]),
]


@pytest.mark.parametrize("tag, fn, col_hint, words", REFUSALS, ids=[r[0] for r in REFUSALS])
def test_refusal_is_located_and_says_what_to_write(tag, fn, col_hint, words):
    x = np.array([1.0, -2.0, 3.0, 0.5])
    with pytest.raises(pyonnx.ConversionError, match=re.escape(words[0])) as info:
        pyonnx.compile(fn)(x)
    err = info.value
    line, text = _marker_line(tag)
    assert err.filename == k.__file__
    assert (err.lineno, err.col) == (line, text.index(col_hint)), str(err)
    assert str(err).startswith(f"{k.__file__}:{line}:{text.index(col_hint) + 1}: error: ")
    for w in words:
        assert w in err.message, err.message
    for internal in ("Seq", "SeqPlan", "Array("):
        assert internal not in err.message, err.message


def test_dtype_queries_fold():
    def normalize_any(x):
        if np.issubdtype(x.dtype, np.floating):
            eps = np.finfo(x.dtype).eps
        else:
            eps = 1
        hi = np.iinfo(np.int16).max
        out = np.clip(x / (np.abs(x).max() + eps), -hi, hi)
        return out.astype(np.result_type(x, np.float32)), np.dtype(x.dtype).itemsize, \
            np.can_cast(x, np.float64)

    for x in (np.arange(5, dtype=np.float32), np.arange(5), np.arange(5, dtype=np.uint8)):
        check(normalize_any, x)


@pytest.mark.parametrize("x", [[1.0, -2.0, 3.5], [-1.0], []])
def test_sum_of_a_kept_list(x):
    check(k.sum_of_kept, np.array(x, np.float32))


@pytest.mark.parametrize("n", [0, 1, 3])
def test_none_for_an_empty_request(n):
    check(k.none_for_an_empty_request, np.arange(n * 4, dtype=np.float32).reshape(n, 4))
