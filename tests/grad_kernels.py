"""Module-level functions differentiated by tests/test_grad.py (pyonnx reads their source).

Each returns a float scalar (for grad) unless its name says otherwise; ``ARGS`` builders and
checks live in the test module.
"""

import numpy as np

import pyonnx


# ---------------------------------------------------------------- arithmetic, broadcasting
def add(x, y):
    return np.sum(np.sin(x + y))


def sub(x, y):
    return np.sum(np.sin(x - y))


def mul(x, y):
    return np.sum(np.sin(x * y))


def div(x, y):
    return np.sum(np.sin(x / y))


def neg(x):
    return np.sum(-x * x)


def power_const(x):
    return np.sum(x ** 3.5)


def power_both(x, y):
    return np.sum(x ** y)


def square(x):
    return np.sum(x ** 2)


def reciprocal(x):
    return np.sum(np.reciprocal(x))


def scalar_weak(x, s):
    return np.sum(np.sin(x * s + s))


def remainder(x, y):
    return np.sum(np.remainder(x, y) * x)


def fmod(x, y):
    return np.sum(np.fmod(x, y) * x)


# ---------------------------------------------------------------- unary math
def exp(x): return np.sum(np.exp(x))
def log(x): return np.sum(np.log(x))
def sqrt(x): return np.sum(np.sqrt(x))
def sin(x): return np.sum(np.sin(x))
def cos(x): return np.sum(np.cos(x))
def tan(x): return np.sum(np.tan(x))
def arcsin(x): return np.sum(np.arcsin(x))
def arccos(x): return np.sum(np.arccos(x))
def arctan(x): return np.sum(np.arctan(x))
def sinh(x): return np.sum(np.sinh(x))
def cosh(x): return np.sum(np.cosh(x))
def tanh(x): return np.sum(np.tanh(x))
def arcsinh(x): return np.sum(np.arcsinh(x))
def arccosh(x): return np.sum(np.arccosh(x + 2.0))
def arctanh(x): return np.sum(np.arctanh(x))
def expm1(x): return np.sum(np.expm1(x))
def log1p(x): return np.sum(np.log1p(x))
def log2(x): return np.sum(np.log2(x))
def log10(x): return np.sum(np.log10(x))
def exp2(x): return np.sum(np.exp2(x))
def cbrt(x): return np.sum(np.cbrt(x))
def degrees(x): return np.sum(np.sin(np.degrees(x)))
def sinc(x): return np.sum(np.sinc(x))
def hypot(x, y): return np.sum(np.hypot(x, y))
def arctan2(x, y): return np.sum(np.arctan2(x, y))
def logaddexp(x, y): return np.sum(np.logaddexp(x, y))
def logaddexp2(x, y): return np.sum(np.logaddexp2(x, y))
def absolute(x): return np.sum(np.abs(x) * x)


# ---------------------------------------------------------------- selections
def maximum(x, y): return np.sum(np.maximum(x, y) ** 2)
def minimum(x, y): return np.sum(np.minimum(x, y) ** 2)
def relu(x): return np.sum(np.maximum(x, 0.0) * x)
def clip(x): return np.sum(np.clip(x, -0.5, 0.5) * x)
def where(x, y): return np.sum(np.where(x > 0, x * y, y * y))
def stop_ops(x): return np.sum(np.floor(x) * x + np.round(x) + np.sign(x) * x + np.ceil(x) * x)
def compare_mask(x): return np.sum(x * (x > 0))


# ---------------------------------------------------------------- reductions
def sum_axis(x): return np.sum(np.sin(np.sum(x, axis=0)))
def sum_keepdims(x): return np.sum(np.sin(x * np.sum(x, axis=-1, keepdims=True)))
def mean(x): return np.mean(x * x)
def mean_axis(x): return np.sum(np.sin(x.mean(axis=1)))
def amax(x): return np.sum(np.sin(np.max(x, axis=0)))
def amin_all(x): return np.min(x) * 2.0
def prod(x): return np.prod(x)
def prod_axis(x): return np.sum(np.prod(x, axis=1))
def std(x): return np.std(x)
def var_axis(x): return np.sum(np.var(x, axis=0))
def norm(x): return np.linalg.norm(x)
def cumsum(x): return np.sum(np.sin(np.cumsum(x, axis=0)))
def softmax_loss(x):
    e = np.exp(x - x.max(axis=-1, keepdims=True))
    p = e / e.sum(axis=-1, keepdims=True)
    return np.sum(p * np.arange(4.0))


def logsumexp(x):
    m = np.max(x)
    return m + np.log(np.sum(np.exp(x - m)))


# ---------------------------------------------------------------- products
def matmul(a, b): return np.sum(np.sin(a @ b))
def dot(a, b): return np.sum(np.sin(np.dot(a, b)))
def inner(a, b): return a @ b
def einsum_mm(a, b): return np.sum(np.sin(np.einsum("ij,jk->ik", a, b)))
def einsum_sum(a, b): return np.sum(np.sin(np.einsum("ij,j->j", a, b)))
def einsum_batch(a, b): return np.sum(np.sin(np.einsum("bij,bjk->bik", a, b)))
def outer(a, b): return np.sum(np.sin(np.outer(a, b)))


# ---------------------------------------------------------------- shapes and data movement
def reshape(x): return np.sum(np.sin(x.reshape(2, -1)) * np.array([1.0, 2.0, 3.0]))
def transpose(x): return np.sum(np.sin(x.T) * np.arange(3.0))
def broadcast_to(x): return np.sum(np.sin(np.broadcast_to(x, (3, 4))) * np.arange(4.0))
def squeeze(x): return np.sum(np.sin(np.squeeze(x, axis=0)) * np.arange(4.0))
def expand_dims(x): return np.sum(np.sin(np.expand_dims(x, 1)) * np.arange(3.0)[:, None])
def concatenate(x, y): return np.sum(np.sin(np.concatenate([x, y, x], axis=1)) * np.arange(10.0))
def stack(x, y): return np.sum(np.sin(np.stack([x, y])) * np.arange(4.0))
def split(x):
    a, b = np.split(x, 2, axis=0)
    return np.sum(np.sin(a) * b)


def slicing(x): return np.sum(np.sin(x[1:, ::2])) + np.sum(x[::-1, 1] ** 2 * np.arange(4.0))
def int_index(x): return np.sum(np.sin(x[1]) + x[-1, 2] ** 3)
def take(x, i): return np.sum(np.sin(x[i]) * np.arange(4.0))
def take_axis(x, i): return np.sum(np.sin(np.take(x, i, axis=1)))
def fancy2d(x): return np.sum(np.sin(x[[0, 2, 2], [1, 3, 3]]))
def boolean_mask(x): return np.sum(np.sin(x[x > 0]))
def take_along(x):
    i = np.argsort(x, axis=1)
    return np.sum(np.take_along_axis(x, i, axis=1) * np.arange(4.0))


def sort(x): return np.sum(np.sort(x, axis=-1) * np.arange(4.0))
def argmax_index(x): return x[np.argmax(x)] * 3.0
def tile(x): return np.sum(np.sin(np.tile(x, (2, 3))) * np.arange(6.0))
def pad_constant(x): return np.sum(np.sin(np.pad(x, 1)) * np.arange(6.0))
def pad_edge(x): return np.sum(np.sin(np.pad(x, (1, 2), mode="edge")) * np.arange(7.0))
def pad_reflect(x): return np.sum(np.sin(np.pad(x, 2, mode="reflect")) * np.arange(8.0))
def flip(x): return np.sum(np.flip(x, axis=0) * np.arange(3.0)[:, None] * x)
def tril(x): return np.sum(np.sin(np.tril(x, -1)) * x)
def triu(x): return np.sum(np.sin(np.triu(x)) * x)
def repeat(x): return np.sum(np.sin(np.repeat(x, 2)) * np.arange(8.0))
def diff(x): return np.sum(np.diff(x) ** 2)
def reshape_empty(x): return np.sum(np.sin(x.reshape(3, -1).T))


# ---------------------------------------------------------------- dtypes
def to_float64(x): return np.sum(np.sin(x.astype(np.float64)))
def float32_chain(x): return np.sum(np.tanh(x) * np.exp(x))
def int_arg(x, n): return np.sum(x * n)


# ---------------------------------------------------------------- second derivatives
def scalar_poly(x): return np.sin(x) * x ** 3 + np.exp(x) / x
def scalar_tanh(x): return np.tanh(2.0 * x) + np.log1p(x * x)
def vector_loss(x): return np.sum(np.sin(x) * x ** 2) + np.max(x) ** 2


def hess_slices(x): return np.sum(np.sin(x[1:]) * x[:-1]) + np.max(x) ** 2
def hess_sort(x): return np.sum(np.sort(x) * np.arange(4.0)) ** 2 + np.prod(x)
def hess_pad_tile(x):
    return np.sum(np.pad(x, 1, mode="edge") ** 3) + np.sum(np.tile(x, 2) ** 2 * np.arange(8.0))


def hess_products(x): return np.sum(np.tanh(x @ x.T)) + np.sum(np.cumsum(x) ** 2)
def hess_where(x): return np.sum(np.where(x > 0, x ** 3, np.exp(x))) + np.std(x) + np.linalg.norm(x)
def hess_select(x):
    clipped = np.sum(np.clip(x, -0.5, 0.5) ** 2 * x)
    return clipped + np.sum(x[[0, 2, 2]] ** 3) + np.mean(np.abs(x) * x)


# ---------------------------------------------------------------- vjp / jacobian
def elementwise(x): return np.sin(x) * x
def two_outputs(x, y): return np.sin(x) * y, np.sum(x * y)
def matrix_fn(a, b): return np.tanh(a @ b)


# ---------------------------------------------------------------- errors
def vector_out(x): return np.sin(x)


def int_out(x): return np.sum(x > 0)


def tuple_out(x): return np.sum(x), np.sum(x * x)


def cumprod(x):
    return np.sum(np.cumprod(x))


def runtime_if(x):
    s = np.sum(x)
    if s > 0:
        s = s * 2.0
    return s


def runtime_list(x, n):
    out = []
    for i in range(n):
        out.append(x * i)
    return np.sum(np.stack(out))


def runtime_while(x):
    while np.sum(x) < 10.0:
        x = x * 2.0
    return np.sum(x)


def axis_from_arg(x, n):
    return np.sum(np.sin(x.sum(axis=int(n))))


# ---------------------------------------------------------------- transforms inside compile
def fit_loss(w, x, y):
    return np.mean((np.tanh(x @ w) - y) ** 2)


FIT_STEP = pyonnx.value_and_grad(fit_loss)


def fit(w, x, y, steps):
    value = np.float64(0.0)
    for _ in range(steps):
        value, g = FIT_STEP(w, x, y)
        w = w - 0.5 * g
    return w, value


def fit_inline_grad(w, x, y):
    g = pyonnx.grad(fit_loss)(w, x, y)
    return w - 0.5 * g


def hessian_diag_inside(x):
    return np.diagonal(pyonnx.jacobian(pyonnx.grad(vector_loss))(x))


def grad_of_inner_grad(x):
    return np.sum(pyonnx.grad(vector_loss)(x) ** 2)


def vjp_inside(x):
    return pyonnx.vjp(vector_loss, x)
