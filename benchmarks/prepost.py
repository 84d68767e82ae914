"""ML pre- and post-processing as people write it: compiled time against numpy's.

Run: ``python benchmarks/prepost.py [--quick]`` (or ``benchmarks/run.py --only prepost``). It
uses whichever ``pyonnx`` is importable (``PYTHONPATH``), so the same file measures two checkouts
("before"/"after") alike.

Two tables: 20 pre/post-processing functions (box converters with column writes, scale-coords,
clip-boxes, letterbox, anchors, IoU matrix, softmax + top-k, heatmap decode, pre-emphasis,
framing, color map, EWMA, normalization; NMS in four forms, top-k by argpartition, np.append)
at realistic sizes, with the ratio compiled/numpy per
function and the median; then single slice writes, a crop and per-call costs. Each timing is the
minimum over ``repeats`` rounds of a fixed number of calls (not sized from a first call, which
would under-count compiled functions), numpy and pyonnx alternating round by round.
"""

from __future__ import annotations

import statistics
import sys
import time

import numpy as np

import pyonnx


# ---------------------------------------------------------------- functions
def xywh2xyxy(x):
    y = np.copy(x)
    y[:, 0] = x[:, 0] - x[:, 2] / 2
    y[:, 1] = x[:, 1] - x[:, 3] / 2
    y[:, 2] = x[:, 0] + x[:, 2] / 2
    y[:, 3] = x[:, 1] + x[:, 3] / 2
    return y


def xyxy2xywh(x):
    y = np.copy(x)
    y[:, 0] = (x[:, 0] + x[:, 2]) / 2
    y[:, 1] = (x[:, 1] + x[:, 3]) / 2
    y[:, 2] = x[:, 2] - x[:, 0]
    y[:, 3] = x[:, 3] - x[:, 1]
    return y


def scale_coords(coords, gain, pad_w, pad_h, w, h):
    coords = coords.copy()
    coords[:, 0] -= pad_w
    coords[:, 2] -= pad_w
    coords[:, 1] -= pad_h
    coords[:, 3] -= pad_h
    coords[:, :4] /= gain
    coords[:, 0] = coords[:, 0].clip(0, w)
    coords[:, 1] = coords[:, 1].clip(0, h)
    coords[:, 2] = coords[:, 2].clip(0, w)
    coords[:, 3] = coords[:, 3].clip(0, h)
    return coords


def clip_boxes(boxes, w, h):
    boxes = boxes.copy()
    boxes[..., 0::2] = boxes[..., 0::2].clip(0, w)
    boxes[..., 1::2] = boxes[..., 1::2].clip(0, h)
    return boxes


def letterbox(img, top, left):
    canvas = np.full((640, 640, 3), 114, dtype=np.uint8)
    h, w = img.shape[0], img.shape[1]
    canvas[top:top + h, left:left + w] = img
    return canvas


def anchors(base, stride, fh, fw):
    shift_x = np.arange(0, fw) * stride
    shift_y = np.arange(0, fh) * stride
    sx, sy = np.meshgrid(shift_x, shift_y)
    shifts = np.stack([sx.ravel(), sy.ravel(), sx.ravel(), sy.ravel()], axis=1)
    return (base[None, :, :] + shifts[:, None, :]).reshape(-1, 4)


def box_iou(a, b):
    area_a = (a[:, 2] - a[:, 0]) * (a[:, 3] - a[:, 1])
    area_b = (b[:, 2] - b[:, 0]) * (b[:, 3] - b[:, 1])
    lt = np.maximum(a[:, None, :2], b[None, :, :2])
    rb = np.minimum(a[:, None, 2:], b[None, :, 2:])
    wh = np.clip(rb - lt, 0, None)
    inter = wh[:, :, 0] * wh[:, :, 1]
    return inter / (area_a[:, None] + area_b[None, :] - inter)


def softmax_topk(logits):
    e = np.exp(logits - logits.max(axis=-1, keepdims=True))
    p = e / e.sum(axis=-1, keepdims=True)
    idx = np.argsort(-p, axis=-1)[:, :5]
    return idx, np.take_along_axis(p, idx, axis=-1)


def heatmap_decode(heatmaps):
    k, h, w = heatmaps.shape
    flat = heatmaps.reshape(k, -1)
    idx = np.argmax(flat, axis=1)
    maxvals = np.max(flat, axis=1)
    coords = np.zeros((k, 2), dtype=np.float32)
    coords[:, 0] = idx % w
    coords[:, 1] = idx // w
    coords = coords * (maxvals > 0)[:, None]
    return coords, maxvals


def pre_emphasis(signal, coeff):
    return np.concatenate((signal[:1], signal[1:] - coeff * signal[:-1]))


def framing(signal):
    frame_length, frame_step = 400, 160
    num_frames = 1 + (signal.shape[0] - frame_length) // frame_step
    indices = (np.arange(frame_length)[None, :]
               + (np.arange(num_frames) * frame_step)[:, None])
    return signal[indices] * np.hamming(frame_length)


def color_map(mask, palette):
    rgb = np.zeros((mask.shape[0], mask.shape[1], 3), dtype=np.uint8)
    rgb[:, :, 0] = palette[:, 0][mask]
    rgb[:, :, 1] = palette[:, 1][mask]
    rgb[:, :, 2] = palette[:, 2][mask]
    return rgb


def ewma(x, alpha):
    out = np.empty_like(x)
    out[0] = x[0]
    for i in range(1, x.shape[0]):
        out[i] = alpha * x[i] + (1 - alpha) * out[i - 1]
    return out


def normalize(img, mean, std):
    x = (img.astype(np.float32) / 255.0 - mean) / std
    return x.transpose(2, 0, 1)[None]


# single constructs
def column_write(b, v):
    b = b.copy()
    b[:, 2] = v
    return b


def channel_write(z, v):
    z = z.copy()
    z[:, :, 0] = v
    return z


def span_write(y, x, a):
    y = y.copy()
    y[a:a + x.shape[0]] = x
    return y


def interior_write(u):
    w = u.copy()
    w[1:-1, 1:-1] = 0.25 * (u[:-2, 1:-1] + u[2:, 1:-1] + u[1:-1, :-2] + u[1:-1, 2:])
    return w


def clamp_negative(x):
    x = x.copy()
    x[x < 0] = 0
    return x


def reverse_cumsum(x):
    return np.cumsum(x[::-1])[::-1]


def l2_norm(x):
    return np.sqrt(np.sum(np.abs(x) ** 2))


def crop(img, y0, x0):
    return img[y0:y0 + 64, x0:x0 + 64]


def scale(x, s):
    return x * s


# ---------------------------------------------------------------- NMS (run-time lists)
def nms(boxes, scores, thresh):
    x1, y1, x2, y2 = boxes[:, 0], boxes[:, 1], boxes[:, 2], boxes[:, 3]
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


def nms_top_k(boxes, scores, thresh, top_k):
    keep = nms(boxes, scores, thresh)
    if not keep:
        return boxes[:0], scores[:0]
    keep = keep[:top_k]
    return boxes[keep], scores[keep]


def nms_delete(dets, thresh):
    x1, y1, x2, y2 = dets[:, 0], dets[:, 1], dets[:, 2], dets[:, 3]
    area = (x2 - x1) * (y2 - y1)
    idxs = np.argsort(dets[:, 4], kind="stable")
    pick = []
    while len(idxs) > 0:
        last = len(idxs) - 1
        i = idxs[last]
        pick.append(i)
        w = np.maximum(0, np.minimum(x2[i], x2[idxs[:last]]) - np.maximum(x1[i], x1[idxs[:last]]))
        h = np.maximum(0, np.minimum(y2[i], y2[idxs[:last]]) - np.maximum(y1[i], y1[idxs[:last]]))
        overlap = (w * h) / area[idxs[:last]]
        idxs = np.delete(idxs, np.concatenate(([last], np.where(overlap > thresh)[0])))
    return dets[pick]


def nms_per_class(boxes, scores, labels, thresh):
    keep = []
    for c in range(3):
        idx = np.where(labels == c)[0]
        order = idx[np.argsort(-scores[idx], kind="stable")]
        while order.size > 0:
            i = order[0]
            keep.append(i)
            rest = order[1:]
            xx1 = np.maximum(boxes[i, 0], boxes[rest, 0])
            yy1 = np.maximum(boxes[i, 1], boxes[rest, 1])
            xx2 = np.minimum(boxes[i, 2], boxes[rest, 2])
            yy2 = np.minimum(boxes[i, 3], boxes[rest, 3])
            inter = np.maximum(xx2 - xx1, 0) * np.maximum(yy2 - yy1, 0)
            a = (boxes[i, 2] - boxes[i, 0]) * (boxes[i, 3] - boxes[i, 1])
            b = (boxes[rest, 2] - boxes[rest, 0]) * (boxes[rest, 3] - boxes[rest, 1])
            order = rest[inter / (a + b - inter) <= thresh]
    return boxes[keep]


def topk_argpartition(scores, k):
    idx = np.argpartition(scores, -k)[-k:]
    return idx[np.argsort(-scores[idx], kind="stable")]


def pre_emphasis_append(signal, coeff):
    return np.append(signal[0], signal[1:] - coeff * signal[:-1])


# ------------------------------------------------------------------- harness
def cases():
    rng = np.random.default_rng(0)
    boxes = (rng.random((8400, 4)) * 640).astype(np.float32)
    sorted_boxes = np.sort(boxes.reshape(8400, 2, 2), axis=1).reshape(8400, 4)
    f32 = np.float32
    return [
        ("xywh2xyxy (8400,4)", xywh2xyxy, (boxes,), 200),
        ("xyxy2xywh (8400,4)", xyxy2xywh, (boxes,), 200),
        ("scale_coords (8400,4)", scale_coords, (sorted_boxes, f32(0.5), f32(12.0), f32(80.0),
                                                 f32(1280.0), f32(720.0)), 100),
        ("clip_boxes (8400,4)", clip_boxes, (boxes, f32(600.0), f32(500.0)), 200),
        ("letterbox 480x640 in 640", letterbox,
         (rng.integers(0, 255, (480, 640, 3), dtype=np.uint8), 80, 0), 50),
        ("anchors 80x80x9", anchors, (rng.random((9, 4)).astype(f32) * 64, 8, 80, 80), 50),
        ("IoU matrix 200x1000", box_iou, (sorted_boxes[:200], sorted_boxes[:1000]), 20),
        ("softmax+top5 (32,1000)", softmax_topk, (rng.normal(size=(32, 1000)).astype(f32),), 50),
        ("heatmap decode (17,64,48)", heatmap_decode,
         (rng.normal(size=(17, 64, 48)).astype(f32),), 200),
        ("pre-emphasis 48000", pre_emphasis, (rng.normal(size=48000).astype(f32), f32(0.97)),
         200),
        ("framing 48000/400/160", framing, (rng.normal(size=48000),), 20),
        ("color map 512x512", color_map,
         (rng.integers(0, 21, (512, 512)), rng.integers(0, 255, (21, 3)).astype(np.uint8)), 20),
        ("EWMA 1000", ewma, (rng.normal(size=1000), 0.1), 5),
        ("normalize 224x224x3", normalize,
         (rng.integers(0, 255, (224, 224, 3), dtype=np.uint8),
          np.array([0.485, 0.456, 0.406], f32), np.array([0.229, 0.224, 0.225], f32)), 100),
        *nms_cases(rng),
    ]


def nms_cases(rng):
    """NMS as people write it, on 1000 detections that survive a score threshold (about 100
    kept at IoU 0.5: the loop runs once per kept box), top-k and np.append."""
    xy = rng.random((1000, 2)) * 600
    boxes = np.concatenate([xy, xy + 20 + rng.random((1000, 2)) * 80], axis=1).astype(np.float32)
    scores = rng.permutation(1000).astype(np.float32) / 1000  # distinct: argsort order defined
    labels = rng.integers(0, 3, 1000)
    dets = np.concatenate([boxes, scores[:, None]], axis=1)
    return [
        ("NMS classic 1000 boxes", nms, (boxes, scores, 0.5), 5),
        ("NMS + top-k 1000 boxes", nms_top_k, (boxes, scores, 0.5, 100), 5),
        ("NMS np.delete 1000 boxes", nms_delete, (dets, 0.5), 5),
        ("NMS per class 1000 boxes", nms_per_class, (boxes, scores, labels, 0.5), 5),
        # distinct scores: the order of ties inside numpy's partition is introselect's own
        ("top-k argpartition 1e5", topk_argpartition,
         (rng.permutation(100_000).astype(np.float32) / 100_000, 100), 20),
        ("pre-emphasis np.append 48000", pre_emphasis_append,
         (rng.normal(size=48000).astype(np.float32), np.float32(0.97)), 200),
    ]


def construct_cases():
    rng = np.random.default_rng(1)
    f32 = np.float32
    return [
        ("b[:, 2] = v (10000,4) f32", column_write,
         (rng.random((10000, 4), f32), rng.random(10000, f32)), 200),
        ("b[:, 2] = v (100000,4) f32", column_write,
         (rng.random((100000, 4), f32), rng.random(100000, f32)), 20),
        ("z[:, :, 0] = v 800x800x3", channel_write,
         (rng.random((800, 800, 3), f32), rng.random((800, 800), f32)), 5),
        ("y[a:a+k] = x 1e6 f64", span_write, (rng.random(1_000_000), rng.random(300_000), 100), 5),
        ("u[1:-1,1:-1] = stencil 500x500", interior_write, (rng.random((500, 500)),), 10),
        ("x[x < 0] = 0 1e6 f32", clamp_negative, (rng.normal(size=1_000_000).astype(f32),), 10),
        ("cumsum(x[::-1])[::-1] 1e6 f64", reverse_cumsum, (rng.random(1_000_000),), 5),
        ("sqrt(sum(abs(x)**2)) 1e6 f32", l2_norm, (rng.random(1_000_000, f32),), 10),
        ("crop 64x64 of 480x640", crop, (rng.random((480, 640), f32), 10, 20), 1000),
        ("per call x*s, s np.float64", scale, (np.arange(10.0), np.float64(2.0)), 2000),
        ("per call x*s, s float", scale, (np.arange(10.0), 2.0), 2000),
        ("per call x*s, s array", scale, (np.arange(10.0), np.arange(10.0)), 2000),
    ]


def _same(got, want) -> bool:
    if isinstance(want, (tuple, list)):
        return type(got) is type(want) and len(got) == len(want) and all(
            _same(g, w) for g, w in zip(got, want))
    got, want = np.asarray(got), np.asarray(want)
    if got.shape != want.shape or got.dtype != want.dtype:
        return False
    if want.dtype.kind == "f":
        return bool(np.allclose(got, want, rtol=1e-4, atol=1e-4, equal_nan=True))
    return bool(np.array_equal(got, want))


def measure(rows_in, repeats: int) -> list[list[object]]:
    rows = []
    for label, fn, args, calls in rows_in:
        f = pyonnx.compile(fn)
        try:
            got = f(*args)
        except pyonnx.PyonnxError as e:
            rows.append([label, "-", "-", "-", "refused: " + str(e).splitlines()[0][-60:]])
            continue
        want = fn(*args)
        best = {"numpy": float("inf"), "pyonnx": float("inf")}
        for _ in range(3):
            fn(*args), f(*args)
        for _ in range(repeats):
            for name, g in (("numpy", fn), ("pyonnx", f)):
                start = time.perf_counter()
                for _ in range(calls):
                    g(*args)
                best[name] = min(best[name], (time.perf_counter() - start) / calls * 1e6)
        rows.append([label, best["numpy"], best["pyonnx"], best["pyonnx"] / best["numpy"],
                     "ok" if _same(got, want) else "DIFFERS"])
    return rows


def _table(header, rows) -> None:
    def fmt(v):
        if isinstance(v, float):
            return f"{v:.2f}" if abs(v) < 100 else f"{v:.0f}"
        return str(v)
    cells = [[fmt(c) for c in r] for r in rows]
    widths = [max([len(h)] + [len(r[i]) for r in cells]) for i, h in enumerate(header)]
    print("  ".join(h.ljust(w) if i == 0 else h.rjust(w) for i, (h, w) in
                    enumerate(zip(header, widths))))
    for r in cells:
        print("  ".join(c.ljust(w) if i == 0 else c.rjust(w) for i, (c, w) in
                        enumerate(zip(r, widths))))


def main(quick: bool = False) -> None:
    repeats = 3 if quick else 7
    header = ["function", "numpy µs", "pyonnx µs", "pyonnx/numpy", "result"]
    rows = measure(cases(), repeats)
    _table(header, rows)
    ratios = [r[3] for r in rows if isinstance(r[3], float)]
    if ratios:
        print(f"median pyonnx/numpy over {len(ratios)} converted: "
              f"{statistics.median(ratios):.2f} (worst {max(ratios):.2f})")
    print()
    _table(["construct", "numpy µs", "pyonnx µs", "pyonnx/numpy", "result"],
           measure(construct_cases(), repeats))


if __name__ == "__main__":
    main(quick="--quick" in sys.argv)
