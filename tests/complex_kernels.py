"""Kernels with complex values (tests/test_complex_*.py run them against numpy)."""

import numpy as np


def c_identity(z):
    return z


def c_arith(z, w):
    return z + w, z - w, z * w, z / w, -z


def c_mixed_real(z, x):
    return z + x, x * z, z / x, x / z, x - z


def c_python_scalar(z):
    return z + 1j, 2 * z, z * (1 - 2j), 1j / (z + 3), z * 0.5


def c_literal(x):
    return x + 1j * x


def c_complex_builtin(x):
    return x * complex(1.5, -2)


def c_parts(z):
    return z.real, z.imag, np.real(z), np.imag(z), np.conj(z), z.conjugate(), z.conj()


def c_abs_angle(z):
    return np.abs(z), abs(z), np.angle(z), np.angle(z, deg=True)


def c_from_real(x):
    return x.astype(np.complex128), np.complex64(x), x.astype(complex)


def c_to_real(z):
    return z.astype(np.float64), z.astype(np.float32), z.astype(bool)


def c_powers(z):
    return z ** 2, z ** 3, z ** 5, z ** -2, z ** 0, z ** 1


def c_pow_fast(z):
    return z ** -1, z ** 0.5


def c_pow_complex(z, w):
    return z ** w, z ** (0.5 + 1j)


def c_exp_log_sqrt(z):
    return np.exp(z), np.log(z), np.sqrt(z)


def c_trig(z):
    return np.sin(z), np.cos(z)


def c_compare(z, w):
    return z == w, z != w, z == 1j


def c_reductions(z):
    return z.sum(), np.sum(z, axis=0), z.mean(axis=-1), np.cumsum(z, axis=1), z.prod(axis=0)


def c_prod_all(z):
    return np.prod(z), np.cumprod(z)


def c_matmul(a, b):
    return a @ b, np.dot(a, b), np.vdot(a, b)


def c_matmul_real(a, x):
    return a @ x, x.T @ a.T


def c_index(z, i):
    return z[0], z[-1], z[1:3], z[::-1], z[i], z[z.real > 0]


def c_index2(z):
    return z[:, 0], z[-1, 1:], z.T, z.reshape(-1), z.transpose(), z[None, :, 1]


def c_write(x):
    z = np.zeros(x.shape, np.complex128)
    z[0] = 1 + 2j
    z[1:3] = x[1:3]
    z[-1] = x[0] * 1j
    return z


def c_write_mask(z):
    w = z.copy()
    w[w.real < 0] = 0
    return w


def c_structure(z, w, c):
    return np.where(c, z, w), np.concatenate([z, w]), np.stack([z, w]), z.reshape(2, -1)


def c_where_real(z, x, c):
    return np.where(c, z, x), np.concatenate([z, x])


def c_promote32(z, x):
    # complex64 + float64 -> complex128; complex64 + float32 -> complex64
    return z + x, z + x.astype(np.float32), z * 2.5, z + np.float64(1)


def c_int_plus(k):
    return k + 1j


def c_inplace(z, w):
    y = z * 1
    y += w
    y *= 2j
    return y


def c_isnan(z):
    return np.isnan(z), np.isinf(z), np.isfinite(z)


def c_zero_d(z):
    s = z.sum()
    return s * 2, s.real, abs(s)


def c_mandelbrot(c):
    z = np.zeros(c.shape, np.complex128)
    n = np.zeros(c.shape, np.int64)
    for _ in range(20):
        m = np.abs(z) <= 2.0
        z = np.where(m, z * z + c, z)
        n = n + m
    return n


def c_normalize(z):
    return z / np.abs(z).max(), z / np.sqrt(np.vdot(z, z).real)


def f_fft(x):
    return np.fft.fft(x), np.fft.ifft(x), np.fft.fft(x, n=8), np.fft.fft(x, n=3, norm="ortho")


def f_fft_axis(x):
    return np.fft.fft(x, axis=0), np.fft.ifft(x, axis=-1, norm="forward"), np.fft.fft2(x)


def f_ifft2(x):
    return np.fft.ifft2(x), np.fft.fftn(x), np.fft.ifftn(x)


def f_rfft(x):
    return np.fft.rfft(x), np.fft.rfft(x, n=7), np.fft.rfft(x, norm="ortho")


def f_irfft(z):
    return np.fft.irfft(z), np.fft.irfft(z, n=7), np.fft.irfft(z, n=4, norm="forward")


def f_shift(x):
    return np.fft.fftshift(x), np.fft.ifftshift(x), np.fft.fftshift(x, axes=0)


def f_freq(x):
    n = x.shape[-1]
    return np.fft.fftfreq(8, d=0.5), np.fft.rfftfreq(8) * x[0], np.fft.fftfreq(n)


def f_spectral_poisson(f):
    # a spectral Poisson solve on a periodic grid: -u'' = f
    n = f.shape[0]
    k = np.fft.fftfreq(n, d=1.0 / n) * 2 * np.pi / n
    fh = np.fft.fft(f)
    k2 = k ** 2
    k2[0] = 1.0
    uh = fh / k2
    uh[0] = 0
    return np.fft.ifft(uh).real


def f_fft_convolve(a, b):
    n = a.shape[0] + b.shape[0] - 1
    return np.fft.irfft(np.fft.rfft(a, n) * np.fft.rfft(b, n), n)


def cf_if(z, t):
    if t > 0:
        w = z * 2
    else:
        w = z + 1j
    return w


def cf_if_real_branch(z, x, t):
    w = z
    if t > 0:
        w = x * 1j
    return w


def cf_loop(z, n):
    acc = np.zeros(z.shape, z.dtype)
    for i in range(n):
        acc = acc * z + 1
    return acc


def cf_while(c):
    z = 0j * c
    k = 0
    while np.abs(z).max() < 2.0 and k < 50:
        z = z * z + c
        k += 1
    return z, k


def cf_scalar_if(z):
    s = z.sum()
    if abs(s) > 1:
        s = s / abs(s)
    return s


def cf_truth(z):
    if z[0]:
        return z * 2
    return z


def cf_write_in_loop(x, n):
    z = np.zeros(x.shape, np.complex128)
    for i in range(n):
        z[i] = x[i] * 1j + i
    return z


def g_power_spectrum(x):
    return (np.abs(np.fft.fft(x)) ** 2).sum()


def g_complex_arg(z):
    return np.abs(z).sum()


def g_intermediate(x):
    z = x * (1 + 2j)
    return (z * np.conj(z)).real.sum()


def cw_alias_then_loop(z, n):
    y = z * 1
    w = y
    for i in range(n):
        y[0] = i
    return w


def cw_alias_if(z, t):
    a = z * 1
    b = z * 2
    c = a
    if t > 0:
        c = b
    c[0] = 7
    return a, b


def cw_fresh_if(z, t):
    if t > 0:
        c = z * 2
    else:
        c = z + 1
    c[0] = 7
    return c


def cw_argument_in_loop(z, n):
    for i in range(n):
        z[0] = i
    return z.sum()


def cw_view_alive(z):
    y = z * 1
    v = y[1:]
    y[1] = 5
    return v


def cw_arg_write(z, x):
    z[0] = 1 + 2j
    z[1:] *= x[1:]
    return z.sum()


def cw_arg_inplace(z):
    z += 1j
    z *= 2


def cw_arg_loop(z, n):
    for i in range(n):
        z[i] = z[i] * 1j + i
    return z


def cw_arg_rebind(z):
    z[0] = 5
    z = z * 2
    return z


def c_more_math(z):
    return np.sinh(z), np.cosh(z), np.log10(z), np.log2(z), np.sign(z), np.linalg.norm(z)


def c_refused_cov(z):
    return np.cov(z)


def f_fft_axis_last(z):
    return np.fft.fft(z)


def c_creation(x, z):
    a = np.ones(x.shape, np.complex64)
    b = np.full(x.shape, 1 - 2j)
    c = np.zeros_like(z)
    d = np.ones_like(x, dtype=np.complex128)
    e = np.full_like(x, 2j, dtype=complex)
    return a + x, b, c, d, e, np.iscomplexobj(z), np.isrealobj(z)


def c_truthy(z):
    return z.any(), z.all(), np.nonzero(z)[0], bool(z.sum())


def c_methods(z):
    return z.reshape(2, 3).T.copy(), z.ravel(), np.flip(z), np.roll(z, 2), z.dot(z), z.cumprod()


def c_divide_ufuncs(z, w):
    return np.divide(z, w), np.add(z, 1), np.power(z, 2), np.multiply(z, w), np.subtract(z, w)


def c_complex_of_arrays(x, y):
    s = x.sum()
    return complex(s, y.sum()), complex(s)


def c_unpack_T(z):
    return np.real(z.T), np.imag(2 * z), np.angle(z.real)


def c_bad_floordiv(z):
    return z // 2


def c_bad_index(z):
    return z[z]


def c_bad_real_write(x):
    x[0] = 1j
    return x


def c_bad_cast(z):
    return z.astype(np.float64, casting="same_kind")


def c_bad_inplace_real(x):
    x += 1j
    return x
