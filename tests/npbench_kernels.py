"""Kernels from numpy benchmark suites (npbench style: in-place writes in loops, results in
arguments), written as their authors write them, for tests/test_npbench.py."""

import numpy as np

def go_fast(a):
    trace = 0.0
    for i in range(a.shape[0]):
        trace += np.tanh(a[i, i])
    return a + trace

def floyd_warshall(path):
    for k in range(path.shape[0]):
        path[:] = np.minimum(path[:], np.add.outer(path[:, k], path[k, :]))

def cholesky(A):
    A[0, 0] = np.sqrt(A[0, 0])
    for i in range(1, A.shape[0]):
        for j in range(i):
            A[i, j] -= np.dot(A[i, :j], A[j, :j])
            A[i, j] /= A[j, j]
        A[i, i] -= np.dot(A[i, :i], A[i, :i])
        A[i, i] = np.sqrt(A[i, i])

def histogram(x, bins):
    counts = np.zeros(bins, np.int64)
    idx = np.clip((x * bins).astype(np.int64), 0, bins - 1)
    np.add.at(counts, idx, 1)
    return counts

def prefix_sum(x):
    out = np.empty_like(x)
    s = 0.0
    for i in range(x.shape[0]):
        s += x[i]
        out[i] = s
    return out

def jacobi_1d(TSTEPS, A, B):
    for t in range(1, TSTEPS):
        B[1:-1] = 0.33333 * (A[:-2] + A[1:-1] + A[2:])
        A[1:-1] = 0.33333 * (B[:-2] + B[1:-1] + B[2:])

def seidel(TSTEPS, N, A):
    for t in range(0, TSTEPS - 1):
        for i in range(1, N - 1):
            A[i, 1:-1] += (A[i - 1, :-2] + A[i - 1, 1:-1] + A[i - 1, 2:] + A[i, 2:] +
                           A[i + 1, :-2] + A[i + 1, 1:-1] + A[i + 1, 2:])
            for j in range(1, N - 1):
                A[i, j] += A[i, j - 1]
                A[i, j] /= 9.0
