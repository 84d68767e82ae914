"""Kernels converted by tests/test_cli.py through the ``pyonnx`` command line."""

import numpy as np


def scale(x, k):
    return x * 2.0 + k


def annotated(x: "float32[N,3]", y: "float32[3]"):
    return x * y + 1


def times(x, n):
    return x * n


def with_default(x, n=3):
    return x * n


def refused(x):
    total = x
    with open("data.txt") as fh:
        total = total + 1
    return total


def not_annotated(x: np.ndarray):
    return -x
