"""Programs mixing control flow, item assignment, views and lists (regression cases found by
adversarial testing), for tests/test_mixed.py."""

import numpy as np


def mixed_a1(x, t):
    y = x.copy()
    r = y[1:]
    for i in range(3):
        if y.sum() > t:
            r[i] = r[i] * 2
        else:
            y[0] += 1
    return y, r

def mixed_a2(m):
    y = m.copy()
    t = y.T
    for j in range(y.shape[1]):
        t[j] = t[j] - t[j].mean()
    return y

def mixed_a4(x):
    out = []
    y = x.copy()
    for i in range(y.shape[0]):
        out.append(y[i] * 1)
        y[i] = 0
    return np.array(out), y

def mixed_a6(x):
    acc = np.zeros(3)
    for row in x:
        acc += row
        row[0] = -1
    return acc, x

def mixed_a7(x, k):
    y = x.copy()
    y[k:] = y[:-k] if k > 0 else y
    return y

def mixed_a8(m):
    s = 0.0
    for i, row in enumerate(m):
        if i % 2:
            continue
        s = s + row.sum()
        if s > 20:
            return s, i
    return s, -1

def mixed_a9(x):
    y = x.copy()
    y[y > 1] += 10
    y[[0, 0]] += 1
    return y

def mixed_a10(x, n):
    buf = np.zeros((n, 2))
    for i in range(n):
        buf[i, 0] = x[i % x.shape[0]]
        buf[i, 1] = i
    return buf

def helper(m, i):
    if m[i].sum() > 0:
        m[i] = 0
        return 1
    return 0

def mixed_b1(x):
    y = x.copy()
    c = 0
    for i in range(y.shape[0]):
        c += helper(y, i)
    return y, c

def mixed_b2(x, t):
    if x.max() > t:
        return x[x > t]
    return x[:1]

def mixed_b3(x):
    i = 0
    j = 0
    while True:
        i += 1
        while j < i:
            j += 2
            if j > 7:
                break
        if i > 5:
            break
    return i, j

def mixed_b4(x):
    out = []
    for v in x:
        if v > 0:
            out.append(v * 2)
        elif v < -1:
            out.append(-v)
        else:
            continue
    return np.array(out), len(out)

def mixed_b5(m):
    s = m[0] * 0
    for i in range(m.shape[0]):
        for j in range(i):
            if m[i, j] < 0:
                break
            s = s + m[i]
        else:
            s = s - 1
    return s

def mixed_b6(x):
    n = x.shape[0]
    lo, hi = 0, n
    while lo < hi:
        mid = (lo + hi) // 2
        if x[mid] < 0.5:
            lo = mid + 1
        else:
            hi = mid
    return lo

def mixed_b7(x, k):
    y = x.copy()
    for i in range(k):
        y = np.concatenate([y, y[-1:] + 1])
    y[0] = -1
    return y

def mixed_b8(x):
    a = x.copy()
    b = a[::-1]
    b[0] = 100
    c = b[1:3]
    c += 5
    return a

def mixed_b9(x):
    s = 0
    for i, (u, v) in enumerate(zip(x, x[1:])):
        if u > v:
            s += i
    return s

def mixed_b10(x, flag):
    y = x * 2 if flag else x
    return y.sum()

def mixed_c1(x):
    for i in range(3):
        if x[i] > 0:
            return x[i] * i
    return x[0] * 0

def mixed_c2(x):
    out = []
    while True:
        out.append(x.sum())
        x = x[1:]
        if x.shape[0] == 0:
            break
    return np.array(out)

def mixed_c3(x, n):
    y = x
    for i in range(n):
        y = y + 1 if i % 2 else y * 2
    return y

def mixed_c4(x):
    total = 0
    for i in range(x.shape[0]):
        if x[i] < 0:
            total -= 1
            continue
        for j in range(i):
            if x[j] > x[i]:
                total += 1
    return total

def mixed_c5(x):
    best, arg = -np.inf, -1
    for i, v in enumerate(x):
        if v > best:
            best, arg = v, i
    return best, arg

def mixed_c6(x, t):
    return x.sum() if x.max() > t and x.min() < -t else (x.mean() if x.size else 0.0)

def mixed_c7(m):
    res = np.zeros(m.shape[1])
    for row in m:
        if row.sum() > 0:
            res = np.maximum(res, row)
    return res

def mixed_c8(x):
    k = 0
    while k < x.shape[0] and x[k] != 0:
        k += 1
    return k

def mixed_d1(x, t):
    if x.sum() > t:
        x[0] = -1
        return 1
    x[-1] = -2
    return 0

def mixed_d2(x):
    r = x[1:]
    if x[0] > 0:
        r = x[:2]
    r[0] = 9
    return x

def mixed_d3(x, t):
    y = x.copy()
    v = y[1:] if t > 0 else y[:-1]
    v[0] = 5
    return y

def mixed_d4(x):
    v = x.reshape(2, -1)
    v[:, 0] += 100

def mixed_d5(m):
    for i in range(m.shape[0]):
        m[i, :i] = 0

def mixed_d6(x):
    y = x
    y = y + 1
    y[0] = 7
    return x, y
