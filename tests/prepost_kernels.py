"""Pre- and post-processing functions written as detection, audio and vision code writes them
(NMS with run-time lists, np.delete/np.append/np.insert, top-k by argpartition, list defaults,
None tests), for tests/test_prepost.py. Each is plain numpy; the tests run it with numpy and
compiled, and compare."""

import numpy as np


# ------------------------------------------------------------------ NMS, run-time lists
def nms(boxes, scores, thresh):
    """The classic greedy NMS (``order = order[inds + 1]``), returning the kept indices."""
    x1 = boxes[:, 0]
    y1 = boxes[:, 1]
    x2 = boxes[:, 2]
    y2 = boxes[:, 3]
    areas = (x2 - x1 + 1) * (y2 - y1 + 1)
    order = scores.argsort()[::-1]
    keep = []
    while order.size > 0:
        i = order[0]
        keep.append(i)
        xx1 = np.maximum(x1[i], x1[order[1:]])
        yy1 = np.maximum(y1[i], y1[order[1:]])
        xx2 = np.minimum(x2[i], x2[order[1:]])
        yy2 = np.minimum(y2[i], y2[order[1:]])
        w = np.maximum(0.0, xx2 - xx1 + 1)
        h = np.maximum(0.0, yy2 - yy1 + 1)
        inter = w * h
        ovr = inter / (areas[i] + areas[order[1:]] - inter)
        inds = np.where(ovr <= thresh)[0]
        order = order[inds + 1]
    return keep


def nms_boxes(boxes, scores, iou_threshold=0.5, top_k=5):
    """NMS whose kept list indexes the boxes, truncated to ``top_k``, with an empty test."""
    x1, y1, x2, y2 = boxes[:, 0], boxes[:, 1], boxes[:, 2], boxes[:, 3]
    areas = (x2 - x1) * (y2 - y1)
    order = np.argsort(-scores, kind="stable")
    keep = []
    while len(order) > 0:
        i = order[0]
        keep.append(i)
        if len(order) == 1:
            break
        rest = order[1:]
        w = np.clip(np.minimum(x2[i], x2[rest]) - np.maximum(x1[i], x1[rest]), 0, None)
        h = np.clip(np.minimum(y2[i], y2[rest]) - np.maximum(y1[i], y1[rest]), 0, None)
        inter = w * h
        iou = inter / (areas[i] + areas[rest] - inter + 1e-9)
        order = rest[iou < iou_threshold]
    if not keep:
        return np.zeros((0, 4), boxes.dtype), np.zeros((0,), scores.dtype)
    keep = keep[:top_k]
    return boxes[keep], scores[keep]


def nms_count(boxes, scores, thresh):
    """How many boxes survive, and the best one (``len(keep)``, ``keep[0]``)."""
    keep = nms(boxes, scores, thresh)
    n = len(keep)
    if keep:
        best = keep[0]
    else:
        # np.int64 like keep[0]: a Python -1 here would make numpy's result type depend on the
        # path, which pyonnx refuses at the 'if' (tests/test_fuzz_regressions.py)
        best = np.int64(-1)
    return n, best


def nms_delete(dets, thresh):
    """NMS on ``[x1, y1, x2, y2, score]`` rows, removing suppressed boxes with ``np.delete``."""
    x1 = dets[:, 0]
    y1 = dets[:, 1]
    x2 = dets[:, 2]
    y2 = dets[:, 3]
    area = (x2 - x1) * (y2 - y1)
    idxs = np.argsort(dets[:, 4], kind="stable")
    pick = []
    while len(idxs) > 0:
        last = len(idxs) - 1
        i = idxs[last]
        pick.append(i)
        xx1 = np.maximum(x1[i], x1[idxs[:last]])
        yy1 = np.maximum(y1[i], y1[idxs[:last]])
        xx2 = np.minimum(x2[i], x2[idxs[:last]])
        yy2 = np.minimum(y2[i], y2[idxs[:last]])
        w = np.maximum(0, xx2 - xx1)
        h = np.maximum(0, yy2 - yy1)
        overlap = (w * h) / area[idxs[:last]]
        idxs = np.delete(idxs, np.concatenate(([last], np.where(overlap > thresh)[0])))
    return dets[pick]


def nms_per_class(boxes, scores, labels, num_classes, thresh):
    """Per-class NMS: one greedy pass per class, the kept indices gathered in one list."""
    keep_all = []
    for c in range(num_classes):
        idx = np.where(labels == c)[0]
        order = idx[np.argsort(-scores[idx], kind="stable")]
        while order.size > 0:
            i = order[0]
            keep_all.append(i)
            rest = order[1:]
            xx1 = np.maximum(boxes[i, 0], boxes[rest, 0])
            yy1 = np.maximum(boxes[i, 1], boxes[rest, 1])
            xx2 = np.minimum(boxes[i, 2], boxes[rest, 2])
            yy2 = np.minimum(boxes[i, 3], boxes[rest, 3])
            inter = np.maximum(xx2 - xx1, 0) * np.maximum(yy2 - yy1, 0)
            a = (boxes[i, 2] - boxes[i, 0]) * (boxes[i, 3] - boxes[i, 1])
            b = (boxes[rest, 2] - boxes[rest, 0]) * (boxes[rest, 3] - boxes[rest, 1])
            order = rest[inter / (a + b - inter) <= thresh]
    return keep_all


def nms_rows(boxes, scores, thresh=0.5):
    """NMS that collects the kept boxes themselves (a list of rows) and returns that list."""
    order = np.argsort(scores, kind="stable")[::-1]
    kept = []
    while order.size:
        i = order[0]
        kept.append(boxes[i])
        rest = order[1:]
        lt = np.maximum(boxes[i, :2], boxes[rest, :2])
        rb = np.minimum(boxes[i, 2:], boxes[rest, 2:])
        wh = np.clip(rb - lt, 0, None)
        inter = wh[:, 0] * wh[:, 1]
        area_i = np.prod(boxes[i, 2:] - boxes[i, :2])
        area_r = np.prod(boxes[rest, 2:] - boxes[rest, :2], axis=1)
        order = rest[inter / (area_i + area_r - inter) < thresh]
    return kept


def detect(boxes, scores, score_thresh=0.3, iou_thresh=0.5, max_det=3):
    """Score filter, NMS, then top detections; empty arrays when nothing passes."""
    mask = scores > score_thresh
    boxes = boxes[mask]
    scores = scores[mask]
    if boxes.shape[0] == 0:
        return boxes, scores, 0
    keep = nms(boxes, scores, iou_thresh)
    keep = keep[:max_det]
    return boxes[keep], scores[keep], len(keep)


def keep_stats(boxes, scores):
    """Truth tests, negative items and iteration over a run-time list."""
    keep = nms(boxes, scores, 0.4)
    if not keep:
        return 0.0, -1
    total = 0.0
    for k in keep:
        total += scores[k]
    return total, keep[-1]


# ------------------------------------------------------------------ numpy editing functions
def pre_emphasis(signal, coeff=0.97):
    """Audio pre-emphasis: ``y[n] = x[n] - a x[n-1]`` with the first sample kept."""
    return np.append(signal[0], signal[1:] - coeff * signal[:-1])


def pad_frames(signal, frame_len=4, hop=2):
    """Framing: pad the signal with zeros with np.append, then index the frames."""
    n = signal.shape[0]
    num = 1 + int(np.ceil(max(n - frame_len, 0) / hop))
    pad = num * hop + frame_len - n
    padded = np.append(signal, np.zeros(pad, signal.dtype))
    idx = np.arange(frame_len)[None, :] + hop * np.arange(num)[:, None]
    return padded[idx]


def drop_background(logits):
    """Softmax over classes, dropping the background column 0 with np.delete."""
    e = np.exp(logits - logits.max(axis=1, keepdims=True))
    p = e / e.sum(axis=1, keepdims=True)
    return np.delete(p, 0, axis=1)


def add_bias_column(x):
    """A column of ones in front, with np.insert."""
    return np.insert(x, 0, 1.0, axis=1)


def topk_scores(scores, k):
    """Top-k by argpartition, then sorted descending (the usual two-step idiom)."""
    idx = np.argpartition(scores, -k)[-k:]
    idx = idx[np.argsort(-scores[idx], kind="stable")]
    return idx, scores[idx]


def topk_values(x, k):
    """The k largest values by np.partition, sorted."""
    return np.sort(np.partition(x, -k)[-k:])


def kth_smallest(x, k):
    """The k-th smallest per row (np.partition's guarantee: the k-th element in place)."""
    return np.partition(x, k, axis=-1)[..., k]


# ------------------------------------------------------------------ list arguments, None
def make_anchors(base_size=16, ratios=[0.5, 1, 2], scales=[8, 16, 32]):
    """Anchor boxes from list defaults (the classic generate_anchors shape)."""
    anchors = []
    for r in ratios:
        for s in scales:
            w = base_size * s * np.sqrt(1.0 / r)
            h = base_size * s * np.sqrt(r)
            anchors.append([-w / 2, -h / 2, w / 2, h / 2])
    return np.array(anchors, dtype=np.float32)


def lag_matrix(x, lags=[1, 2]):
    """Lagged copies of a series as columns."""
    m = max(lags)
    n = x.shape[0] - m
    return np.stack([x[m - lag:m - lag + n] for lag in lags], axis=1)


def heatmap_to_coords(heatmaps, shape=(2, 3)):
    """Argmax per keypoint map, with ``np.full((*shape, 1), v)`` style starred shapes."""
    k = heatmaps.shape[0]
    flat = heatmaps.reshape(k, -1)
    idx = np.argmax(flat, axis=1)
    out = np.full((*shape[:1], k, 2), -1.0)
    out[0, :, 0] = idx % heatmaps.shape[2]
    out[0, :, 1] = idx // heatmaps.shape[2]
    return out


def pick_window(x, start):
    """``range(...)[start]`` with a run-time start picks the first index."""
    first = range(1, x.shape[0], 2)[start]
    return x[first:first + 2]


def scale_boxes(boxes, scale=None, labels=None):
    """Optional arguments tested with ``is None``; a label element compared with ``!= None``."""
    if scale is None:
        scale = 1.0
    out = boxes * scale
    if labels is not None:
        label = labels[0]
        if label != None:  # noqa: E711 (written as people write it)
            out = out + label
    return out


def maybe_top(scores, k):
    """Nothing requested, nothing returned."""
    if k == 0:
        return None
    return np.sort(scores)[::-1][:k]


# ------------------------------------------------------------------ refused, with what to write
# Each refusal's line carries a "# refused: <tag>" marker the tests locate.
def _kept(x):
    keep = []
    for i in range(x.shape[0]):
        if x[i] > 0:
            keep.append(x[i])
    return keep


def refuse_pop(x):
    keep = _kept(x)
    return keep.pop()  # refused: pop


def refuse_sort(x):
    keep = _kept(x)
    keep.sort()  # refused: sort
    return keep


def sum_of_kept(x):
    keep = _kept(x)
    return sum(keep, 0.0)  # (converted since lower/seq_sum.py; refused before)


def refuse_plus(x):
    keep = _kept(x)
    return keep + [0.0]  # refused: plus


def refuse_in(x):
    keep = _kept(x)
    return 1.0 in keep  # refused: in


def refuse_eq(x):
    keep = _kept(x)
    return keep == []  # refused: eq


def refuse_ragged_index(x):
    rows = []
    for i in range(x.shape[0]):
        rows.append(x[:i])
    return x[rows]  # refused: ragged


def refuse_starred_runtime(x):
    return np.zeros((*x, 1))  # refused: starred


def refuse_insert_many(x):
    return np.insert(x, [0, 2], 1.0)  # refused: insert_many


def refuse_delete_float(x):
    return np.delete(x, 0.5)  # refused: delete_float


def refuse_partition_inplace(x):
    x.partition(1)  # refused: partition_inplace
    return x


def refuse_kth(x):
    return np.partition(x, 5)  # refused: kth


def refuse_return_string(x):
    return "boxes"  # refused: return_string


def refuse_mixed_list(x):
    out = []
    for i in range(x.shape[0]):
        if x[i] > 0:
            out.append(i)
    for i in range(x.shape[0]):
        if x[i] < 0:
            out.append(np.int64(i))
    return out  # refused: mixed


def none_for_an_empty_request(boxes):
    if boxes.shape[0] == 0:
        return None  # (converted since structure.optional_array_join; refused before)
    return boxes[0]


def refuse_appends_to_argument(x, ratios=[1.0, 2.0]):
    ratios.append(3.0)  # refused: mutates_argument
    return x * len(ratios)


def nms_as_array(boxes, scores, thresh=0.5):
    """NMS ending the way many do: the kept indices as an int array (empty when no boxes)."""
    keep = nms(boxes, scores, thresh)
    return np.array(keep, dtype=np.int64), np.asarray(keep, dtype=np.int32)


def ctc_greedy(logits, blank=0):
    """CTC greedy decoding: collapse repeats, drop blanks (a list of numpy ints)."""
    best = logits.argmax(-1)
    out = []
    prev = -1
    for t in range(best.shape[0]):
        c = best[t]
        if c != prev and c != blank:
            out.append(c)
        prev = c
    return out


def yolo_postprocess(pred, conf=0.25, iou=0.45):
    """Confidence filter, class scores, NMS; rows [x1, y1, x2, y2, score, class]."""
    x = pred[pred[:, 4] > conf]
    if x.shape[0] == 0:
        return np.zeros((0, 6), dtype=np.float32)
    xy, wh = x[:, :2], x[:, 2:4]
    boxes = np.concatenate([xy - wh / 2, xy + wh / 2], axis=1)
    scores = x[:, 4] * x[:, 5:].max(1)
    cls = x[:, 5:].argmax(1)
    keep = nms(boxes, scores, iou)
    return np.concatenate([boxes[keep], scores[keep, None],
                           cls[keep, None].astype(np.float32)], axis=1)


def per_image(preds, conf=0.3):
    """One filtered array per image: a list of arrays of run-time lengths."""
    output = []
    for i in range(preds.shape[0]):
        p = preds[i]
        output.append(p[p[:, 4] > conf])
    return output


def refuse_extend(x):
    keep = []
    keep.extend(_kept(x))  # refused: extend
    return keep


def refuse_sorted_range(x):
    return sorted(range(len(x)), key=lambda j: -x[j])  # refused: sorted_range


def refuse_sorted_array(x):
    return sorted(x)  # refused: sorted_array
