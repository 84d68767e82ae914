"""numpy's scientific helpers: signal processing, histograms, polynomials, calculus,
statistics of pairs of variables, window views and set routines.

Input: Arrays and static values. Output: Arrays (tuples of them where numpy returns tuples).
Most follow numpy's own Python source step by step through :mod:`.compose` (the lowerings of
the numpy functions it calls), so their dtypes and roundings are numpy's.

Modules (importing this package imports them all, which registers their entries):

* ``signal``: convolve, correlate;
* ``histograms``: histogram, histogram_bin_edges, digitize; ``histogram2d``: histogram2d;
* ``polynomials``: vander, polyval, polyfit, polyder, polyint, polyadd, polysub, polymul;
* ``calculus``: gradient, ediff1d, trapezoid;
* ``covariance``: cov, corrcoef;
* ``windows``: sliding_window_view, the diag/tril/triu index helpers, fill_diagonal's value
  (the write itself is lower/writers.py);
* ``padding``: np.pad's modes beyond ONNX ``Pad`` (shape/repeating.py dispatches to it);
* ``sets``: union1d, intersect1d, setdiff1d, setxor1d;
* ``compose``: the facade over the registry they are written with.
"""

from __future__ import annotations

from pyonnx.frontend.numpy_calls.science import (  # noqa: F401
    calculus, covariance, histogram2d, histograms, padding, polynomials, sets, signal, windows,
)
