"""Issue 15's remaining everyday Python: returned dicts, np.vstack/np.hstack of run-time lists,
list elements written in branches and loops."""

import numpy as np


def return_dict(x):
    return {"mean": x.mean(), "std": x.std()}


def dict_in_tuple(x):
    return x.sum(), {"a": x * 2, "b": (x.max(), 3), 7: None}


def dict_from_branches(x):
    if x.sum() > 0:
        d = {"v": x * 2, "n": 1}
    else:
        d = {"v": -x, "n": 1}
    return d


def stack_rows(x, n):
    rows = []
    for i in range(n):
        rows.append(x * i)
    return np.vstack(rows), np.hstack(rows)


def stack_scalars(x, n):
    vals = []
    for i in range(n):
        vals.append(x[i] * 2)
    return np.vstack(vals), np.hstack(vals)


def stack_matrices(x, n):
    blocks = []
    for i in range(n):
        blocks.append(x + i)
    return np.vstack(blocks), np.hstack(blocks)


def last_peak_in_branch(x):
    peaks = [x[0]]
    for i in range(1, x.shape[0]):
        if x[i] > peaks[-1]:
            peaks.append(x[i])
        else:
            peaks[-1] = peaks[-1] + x[i]
    return np.array(peaks)


def static_list_item_in_branch(x):
    best = [0.0, -1]
    for i in range(x.shape[0]):
        if x[i] > best[0]:
            best[0] = x[i]
            best[1] = i
    return best[0], best[1]


def static_list_item(x):
    lst = [x[0], x[1]]
    alias = lst
    lst[-1] = x[2]
    return alias[1] + lst[0]


def list_item_alias_in_branch(x):
    lst = [0.0]
    other = lst
    if x.sum() > 0:
        lst[0] = x[0]
    return other[0]


def dict_mixed_numbers_from_branches(x):
    if x.sum() > 0:
        d = {"scale": 2, "shift": 0.5}
    else:
        d = {"scale": 3, "shift": -1.0}
    return x * d["scale"] + d["shift"], d


def dict_returned_from_branches(x):
    if x.max() > 2:
        return {"m": x.max(), "v": x}
    return {"m": x.min(), "v": -x}


def dict_rebound_in_loop(x):
    d = {"s": x * 0.0, "n": 0}
    for v in x:
        d = {"s": d["s"] + v, "n": d["n"] + 1}
    return d


def dict_key_order_differs(x):
    if x.sum() > 0:
        d = {"a": x, "b": 1.0}
    else:
        d = {"b": 2.0, "a": x}
    return d


def dict_keys_differ(x):
    if x.sum() > 0:
        d = {"a": x}
    else:
        d = {"a": x, "b": x}
    return d["a"]


def dict_holds_view_then_write(x):
    d = {"a": x[1:], "n": 2}
    x[1] = 100.0
    return d["a"] * d["n"]


def dict_of_views_from_branches_then_write(x):
    if x.sum() > 0:
        d = {"a": x[1:]}
    else:
        d = {"a": x[:-1]}
    x[1] = 100.0
    return d["a"]
