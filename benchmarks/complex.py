"""Complex numbers compiled against numpy: elementwise arithmetic, a complex matmul and
FFT-based convolutions (issue 11).

Run: ``python benchmarks/complex.py [--quick]`` (``benchmarks/run.py`` runs it as its
``complex`` section). pyonnx carries a complex array as two real arrays (README, "how it
works"), so an elementwise complex expression is several real ONNX nodes, a complex matmul four
real MatMuls, and an FFT one ONNX ``DFT`` node plus the packing into numpy's trailing-2 layout;
the compiled call also converts the arguments and results at the boundary (a view for the
arguments, a copy for the results). Ratios are pyonnx / numpy (below 1: pyonnx is faster).
"""

from __future__ import annotations

import os
import statistics
import sys
import time

import numpy as np

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.dirname(HERE))

import pyonnx  # noqa: E402


def rotate_scale(z, w, theta):
    """An elementwise chain: a rotation by a phase, a product and a squared modulus."""
    r = z * np.exp(1j * theta) + 0.5 * w
    return r * np.conj(w) + np.abs(r) ** 2


def mandel_step(z, c):
    """One step of the Mandelbrot iteration with its escape mask."""
    z = z * z + c
    return z, np.abs(z) > 2.0


def mandel_escape(c):
    """The Mandelbrot escape count: 20 iterations of z*z + c where |z| <= 2 (the comparison is
    a squared modulus against a threshold, complex_abs_compare: no square root)."""
    z = np.zeros_like(c)
    n = np.zeros(c.shape, np.int64)
    for _ in range(20):
        m = np.abs(z) <= 2.0
        z = np.where(m, z * z + c, z)
        n = n + m
    return n


def cmatmul(a, b):
    return a @ b


def fft_convolve(x, h):
    """Linear convolution of real signals through the real FFT (zero-padded to the full
    length), as scipy.signal.fftconvolve computes it."""
    n = x.shape[-1] + h.shape[-1] - 1
    return np.fft.irfft(np.fft.rfft(x, n) * np.fft.rfft(h, n), n)


def fft_filter(z, h):
    """Circular filtering of a complex signal: ifft(fft(z) * fft(h))."""
    return np.fft.ifft(np.fft.fft(z) * np.fft.fft(h, z.shape[-1]))


def _rc(rng, shape, dtype):
    return (rng.normal(size=shape) + 1j * rng.normal(size=shape)).astype(dtype)


def cases(rng):
    """(label, function, argument maker) for each kernel; the maker takes a size."""
    return [
        ("z*exp(1j*t)+w, abs**2", rotate_scale,
         lambda n, dt: (_rc(rng, n, dt), _rc(rng, n, dt),
                        rng.normal(size=n).astype(np.finfo(dt).dtype))),
        ("mandelbrot step", mandel_step,
         lambda n, dt: (_rc(rng, n, dt) * 0.5, _rc(rng, n, dt) * 0.5)),
        ("mandelbrot escape count", mandel_escape,
         lambda n, dt: (_rc(rng, n, dt) * 0.8,)),
        ("matmul", cmatmul,
         lambda n, dt: (_rc(rng, (n, n), dt), _rc(rng, (n, n), dt))),
        ("fft convolve (rfft)", fft_convolve,
         lambda n, dt: (rng.normal(size=(8, n)).astype(np.finfo(dt).dtype),
                        rng.normal(size=(8, 63)).astype(np.finfo(dt).dtype))),
        ("fft filter (complex)", fft_filter,
         lambda n, dt: (_rc(rng, (8, n), dt), _rc(rng, (8, 64), dt))),
    ]


SIZES = {"matmul": (16, 256), "mandelbrot escape count": (64, 10_000)}
DEFAULT_SIZES = (64, 100_000)
FFT_SIZES = (64, 4096)


def _median_us(fn, args, calls: int, rounds: int) -> float:
    fn(*args)
    samples = []
    for _ in range(rounds):
        start = time.perf_counter()
        for _ in range(calls):
            fn(*args)
        samples.append((time.perf_counter() - start) / calls * 1e6)
    return statistics.median(samples)


def _max_err(got, want) -> float:
    got = got if isinstance(got, tuple) else (got,)
    want = want if isinstance(want, tuple) else (want,)
    err = 0.0
    for g, w in zip(got, want):
        if g.dtype != w.dtype or g.shape != w.shape:
            return float("inf")
        if w.size and w.dtype.kind in "fc":
            scale = max(1.0, float(np.max(np.abs(w))))
            err = max(err, float(np.max(np.abs(g - w))) / scale)
        elif w.size:
            err = max(err, float(np.mean(g != w)))
    return err


def main(quick: bool = False) -> list[float]:
    """Prints the table; returns the pyonnx/numpy ratios (large sizes)."""
    rng = np.random.default_rng(0)
    rows = []
    ratios = []
    for label, fn, make in cases(rng):
        f = pyonnx.compile(fn)
        sizes = SIZES.get(label, FFT_SIZES if "fft" in label else DEFAULT_SIZES)
        for dt in (np.complex64, np.complex128):
            for n in sizes:
                args = make(n, dt)
                try:
                    got = f(*args)
                except pyonnx.ConversionError as e:
                    print(f"{label}: not converted ({str(e).splitlines()[0]})")
                    break
                want = fn(*args)
                big = n == sizes[-1]
                calls = 3 if big else 200
                rounds = (3 if quick else 9) if big else (3 if quick else 7)
                t_np = _median_us(fn, args, calls, rounds)
                t_px = _median_us(f, args, calls, rounds)
                if big:
                    ratios.append(t_px / t_np)
                shape = "x".join(str(s) for s in args[0].shape)
                rows.append((f"{label} [{shape}] {np.dtype(dt).name}", t_np, t_px,
                             t_px / t_np, _max_err(got, want)))
    w = max(len(r[0]) for r in rows)
    print(f"{'kernel':{w}}  {'numpy µs':>10}  {'pyonnx µs':>10}  {'ratio':>6}  rel. err")
    for label, t_np, t_px, ratio, err in rows:
        print(f"{label:{w}}  {t_np:10.1f}  {t_px:10.1f}  {ratio:6.2f}  {err:.1e}")
    if ratios:
        print(f"median pyonnx/numpy at the large sizes: {statistics.median(ratios):.2f} "
              f"(min {min(ratios):.2f}, max {max(ratios):.2f})")
    return ratios


if __name__ == "__main__":
    main(quick="--quick" in sys.argv)
