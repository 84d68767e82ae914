"""Callables refused on purpose, with the reason and what to write instead (the call's
ConversionError and the coverage table's row both give it).

Input: nothing; importing the module records the refusals in the registry. A later family
that converts one of these wins over the refusal (``registry.refuse``).
"""

from __future__ import annotations

import numpy as np

from pyonnx.frontend.numpy_calls.registry import refuse

_EIG = ("eigenvalues need LAPACK's iterative solvers (geev, syevd): onnxruntime has none, and an "
        "iteration written into the model would not give numpy's eigenvector signs and order; "
        "compute them outside the compiled function")
_SVD = ("needs the singular value decomposition (LAPACK's iterative gesdd): onnxruntime has "
        "none; for full-rank least squares write np.linalg.solve(A.T @ A, A.T @ b), for "
        "cond(x, p) with p 1, inf or 'fro' write norm(x, p) * norm(inv(x), p)")

refuse(np.linalg.eig, np.linalg.eigvals, np.linalg.eigh, np.linalg.eigvalsh, reason=_EIG)
refuse(np.linalg.svd, np.linalg.svdvals, np.linalg.pinv, np.linalg.matrix_rank,
       np.linalg.lstsq, np.linalg.cond, reason=_SVD)
refuse(np.linalg.qr, reason="not yet: Householder QR (LAPACK geqrf/orgqr, with numpy's signs) "
                            "is not written; np.linalg.solve and np.linalg.cholesky are")
refuse(np.unique_values, reason="numpy returns its hash-table order (unique(..., sorted=False)), "
                                "which pyonnx cannot reproduce; write np.unique(x, "
                                "equal_nan=False) (sorted)")
refuse(np.unique_counts, np.unique_inverse, np.unique_all,
       reason="not yet (named-tuple results); write np.unique(x, return_counts=True, "
              "return_inverse=True, return_index=True, equal_nan=False) and unpack it")
refuse(np.apply_along_axis, reason="not yet: it calls a Python function on every 1-D slice; "
                                   "write the function with an axis= argument, or loop over "
                                   "the slices")
refuse(np.piecewise, reason="not yet: write np.select(condlist, [f(x) for f in funclist]) or "
                            "np.where(cond, f(x), g(x))")
refuse(np.histogramdd, reason="not yet: write np.histogram2d for two columns, or np.histogram "
                              "per column")
refuse(np.einsum_path, reason="a planning helper: it returns a Python list and a text report, "
                              "not array values (np.einsum itself is converted)",
       out_of_scope=True)
refuse(np.ndarray.resize, reason="resizes the array's memory in place (zero fill, refcheck); "
                                 "write np.resize(a, shape) (repeats) or np.pad / "
                                 "np.concatenate with zeros")
