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
        best = -1
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
