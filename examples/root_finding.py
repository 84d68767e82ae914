"""Newton's method and bisection to a tolerance: loops whose trip count depends on the data.

    pyonnx convert examples/root_finding.py:newton_sqrt -o newton.onnx
"""

import numpy as np

import pyonnx


def newton_sqrt(a: "float64[N]", tol: "float64"):
    """Square roots by Newton's iteration until every residual is below ``tol``."""
    x = np.where(a > 1, a, 1.0)
    iterations = 0
    while np.abs(x * x - a).max() > tol and iterations < 100:
        x = 0.5 * (x + a / x)
        iterations += 1
    return x, iterations


def bisect_cubic(c: "float64", lo: "float64", hi: "float64", tol: "float64"):
    """The root of x**3 + x - c in [lo, hi] by bisection (the sign change must be there)."""
    f_lo = lo ** 3 + lo - c
    steps = 0
    while hi - lo > tol:
        mid = 0.5 * (lo + hi)
        f_mid = mid ** 3 + mid - c
        if (f_mid > 0) == (f_lo > 0):
            lo, f_lo = mid, f_mid
        else:
            hi = mid
        steps += 1
    return 0.5 * (lo + hi), steps


def main() -> None:
    a = np.array([2.0, 9.0, 0.25, 1e6])
    x, it = pyonnx.compile(newton_sqrt)(a, 1e-9)
    root, steps = pyonnx.compile(bisect_cubic)(np.float64(10.0), np.float64(0.0),
                                                np.float64(3.0), np.float64(1e-12))
    print(f"root_finding: sqrt {x} in {it} Newton steps; x**3 + x = 10 at {root:.12f} "
          f"after {steps} bisections")


if __name__ == "__main__":
    main()
