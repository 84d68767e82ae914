"""Numerically stable softmax and log-sum-exp, the post-processing of a classifier.

    pyonnx convert examples/softmax.py:softmax -o softmax.onnx
"""

import numpy as np

import pyonnx


def logsumexp(logits, axis=-1):
    m = np.max(logits, axis=axis, keepdims=True)
    return np.squeeze(m, axis=axis) + np.log(np.sum(np.exp(logits - m), axis=axis))


def softmax(logits: "float32[N,C]"):
    """Class probabilities and the log-partition function per row."""
    m = logits.max(axis=-1, keepdims=True)
    e = np.exp(logits - m)
    probs = e / e.sum(axis=-1, keepdims=True)
    return probs, logsumexp(logits)


def main() -> None:
    rng = np.random.default_rng(0)
    logits = (rng.normal(size=(8, 10)) * 30).astype(np.float32)
    compiled = pyonnx.compile(softmax)
    (p, lse), (p0, lse0) = compiled(logits), softmax(logits)
    print(f"softmax: max |Δp| = {np.abs(p - p0).max():.2e}, max |Δlse| = "
          f"{np.abs(lse - lse0).max():.2e}, rows sum to {p.sum(axis=1).min():.6f}..")


if __name__ == "__main__":
    main()
