"""Functions that write into arrays, for tests/test_setitem.py (pyonnx reads their source)."""

import numpy as np

TABLE = np.arange(6.0)


# ---------------------------------------------------------------- write forms
def write_int(x, i, v):
    y = x.copy()
    y[i] = v
    return y


def write_two_ints(m, i, j, v):
    y = m.copy()
    y[i, j] = v
    return y


def write_slice(x, a, b, s, v):
    y = x.copy()
    y[a:b:s] = v
    return y


def write_static_slices(x):
    y = x.copy()
    y[1:4] = 7
    y[::-2] = -1
    y[-2:] = y[:2]
    return y


def write_ellipsis_column(m, k, v):
    y = m.copy()
    y[..., k] = v
    return y


def write_column(m, j, col):
    y = m.copy()
    y[:, j] = col
    return y


def write_row_broadcast(m, row):
    y = m.copy()
    y[1:] = row
    return y


def write_mask_scalar(x, t):
    y = x.copy()
    y[y > t] = 0
    return y


def write_mask_values(x):
    y = x.copy()
    y[y > 2] = y[y > 2] * 10
    return y


def write_index_array(x, idx, v):
    y = x.copy()
    y[idx] = v
    return y


def write_two_index_arrays(m, rows, cols, v):
    y = m.copy()
    y[rows, cols] = v
    return y


def write_newaxis(x, v):
    y = x.copy()
    y[None, 1:3] = v
    return y


def write_zero_d(x):
    y = x.sum() * 1
    z = np.array(y)
    z[...] = 5
    return z


def augmented_all(x, v):
    y = x.copy()
    y[0] += v
    y[1] -= v
    y[2] *= v
    y[1:3] += v
    return y


def augmented_int(x, v):
    y = x.copy()
    y[0] //= v
    y[1] %= v
    y[2] **= 2
    y[3] &= v
    y[4] |= v
    y[5] ^= v
    y[0] <<= 1
    y[1] >>= 1
    return y


def augmented_scalar_cast(x):
    y = x.copy()
    y[0] += 1.7
    return y


def duplicate_indices_add(x, idx):
    y = x.copy()
    y[idx] += 1
    return y


def add_at(x, idx, v):
    y = x.copy()
    np.add.at(y, idx, v)
    return y


def subtract_at(x, idx):
    y = x.copy()
    np.subtract.at(y, idx, 2)
    return y


def copyto_fill_putmask(x):
    y = x.copy()
    z = x.copy()
    w = x.copy()
    np.copyto(y, x * 2)
    z.fill(3)
    np.putmask(w, w > 1, 0)
    np.copyto(y, -1, where=x > 3)
    return y, z, w


def nested_subscript(m):
    y = m.copy()
    y[1][2] = 50
    return y


def write_empty(x):
    y = x.copy()
    y[x > 100] = 1
    y[0:0] = 5
    return y


# ---------------------------------------------------------------- aliases and views
def alias_write(x):
    y = x.copy()
    z = y
    z[0] = 99
    return y, z


def view_write(x):
    y = x.copy()
    r = y[1:]
    r[0] = 100
    return y, r


def chained_views(x):
    y = x.copy()
    a = y[1:]
    b = a[::2]
    b[1] = -7
    return y, a, b


def row_view_in_place(m):
    y = m.copy()
    row = y[1]
    row += 1
    return y


def transpose_view(m):
    y = m.copy()
    t = y.T
    t[0] = -1
    return y, t


def reshape_view(x):
    y = x.copy()
    v = y.reshape(2, -1)
    v[1, 0] = 42
    r = y.ravel()
    r[0] = 7
    return y, v


def copies_break_the_link(x):
    y = x.copy()
    c = y.copy()
    c[0] = 1000
    f = y[[0, 1]]
    f[0] = 2000
    s = y + 0
    s[1] = 3000
    k = np.array(y)
    k[2] = 4000
    return y, c, f, s, k


def view_then_rebind(x):
    y = x.copy()
    r = y[1:]
    y = y * 2
    r[0] = -5
    return y, r


def view_of_argument(x):
    r = x[::2]
    r[:] = 0


def mutate_argument(x, v):
    x[0] = v


def mutate_argument_in_loop(x):
    for i in range(x.shape[0]):
        x[i] = x[i] * i


def mutate_and_return(x):
    x[-1] = 0
    return x.sum()


def helper_that_writes(m, i):
    m[i] = 0


def calls_writing_helper(x):
    y = x.copy()
    helper_that_writes(y, 1)
    return y


# ---------------------------------------------------------------- control flow
def write_in_branch(x, t):
    y = x.copy()
    if x.sum() > t:
        y[0] = -1
    else:
        y[1:] = 0
    return y


def write_through_view_in_branch(x, t):
    y = x.copy()
    r = y[2:]
    if x.sum() > t:
        r[0] = 77
    return y, r


def squares_loop(n):
    y = np.zeros(n)
    for i in range(n):
        y[i] = i * i
    return y


def recurrence_loop(x):
    y = x.copy()
    for i in range(1, x.shape[0]):
        y[i] = y[i - 1] * 0.5 + x[i]
    return y


def row_view_loop(m):
    y = m.copy()
    for i in range(m.shape[0]):
        row = y[i]
        row += i
    return y


def view_written_in_loop(x, n):
    y = x.copy()
    r = y[1:]
    for i in range(n):
        r[i] = -i
    return y, r


def write_in_while_with_break(x, t):
    y = x.copy()
    i = 0
    while i < y.shape[0]:
        if y[i] > t:
            break
        y[i] = 0
        i += 1
    return y, i


def cumulative_max_inplace(x):
    for i in range(1, x.shape[0]):
        if x[i] < x[i - 1]:
            x[i] = x[i - 1]


# ---------------------------------------------------------------- refused
def data_dependent_alias(a, b):
    # (y = a if c else b is followed: tests/test_refusals_fixed.py); a view of a view as many
    # times as the loop runs is not
    y = a[1:]
    while y.sum() > b.sum():
        y = y[::2]
    y[0] = 1  # <- ambiguous_alias
    return a, b


def flip_view_write(m):
    y = m.copy()
    s = np.split(y, 1)[0]  # (np.flip views are followed: tests/test_refusals_fixed.py)
    s[0] = 1  # <- unknown_view
    return y


def squeeze_view_write(m):
    y = m.copy()
    s = np.squeeze(y, axis=0)
    s[0] = 1
    e = np.expand_dims(y, 0)
    e[0, 0, 1] = 2
    return y


def module_constant_write(x):
    TABLE[0] = 1  # <- module_constant
    return x


def scalar_write(x):
    s = 3
    s[0] = 1  # <- scalar_write
    return x


def write_rows_while_iterating(m):
    y = m.copy()
    for row in y:
        row[0] = -1
        row += 1
    return y


def enumerate_rows_write(m):
    y = m.copy()
    for i, row in enumerate(y):
        row *= i
    return y


def normalize_rows_in_place(m):
    for row in m:
        row /= row.sum()


def append_then_write(x, n):
    buf = x.copy()
    out = []
    for i in range(n):
        buf[0] = i
        out.append(buf)  # <- append_written
    return np.stack(out)


def append_copy_then_write(x, n):
    buf = x.copy()
    out = []
    for i in range(n):
        buf[0] = i
        out.append(buf.copy())
    return np.stack(out)


def write_into_static_zeros(x):
    out = np.zeros(4)
    same = out
    out[1] = x[0]
    out[2:] = x[-2:]
    return out, same


def in_place_on_static_alias(x):
    acc = np.zeros(3)
    other = acc
    for row in x:
        acc += row
    return acc, other


def alias_multiplied_in_while(x):
    y = x.copy()
    z = y
    while z.sum() < 100:
        z *= 2
    return y, z


def strided_view_in_place_in_loop(x, n):
    y = x.copy()
    v = y[::2]
    i = 0
    while i < n:
        v += 1
        i += 1
    return y


def static_table_view_write(x):
    t = np.arange(4.0)
    v = t[1:]
    v[0] = x[0]
    return t
