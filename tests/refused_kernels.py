"""Functions using constructs pyonnx refuses; each refused construct is on a line marked
``# <- name`` so the tests can find its expected line and column without hard-coding them."""

import math  # noqa: F401
import time

import numpy as np


def uses_with(x):
    with open("f") as f:  # <- with
        pass
    return x


def uses_try(x):
    try:  # <- try
        y = x + 1
    except ValueError:
        y = x
    return y


def uses_yield(x):
    yield x  # <- yield


def uses_class(x):
    class A:  # <- class
        pass
    return x


def uses_global(x):
    global COUNTER  # <- global
    return x


def uses_lambda(x):
    f = lambda v: f(v) + 1  # <- lambda  # noqa: E731
    return f(x)


def uses_eval(x):
    return eval("x + 1")  # <- eval


def uses_exec(x):
    exec("y = 1")  # <- exec
    return x


def uses_print(x):
    print(x)  # <- print
    return x


def uses_time(x):
    t = time.time()  # <- time
    return x + t


def uses_tobytes(x):
    return x.tobytes()  # <- tobytes


def uses_fstring(x):
    s = f"value {x}"  # <- fstring
    return x


def uses_import(x):
    import os  # <- import  # noqa: F401
    return x


def recursive(x):
    return recursive(x - 1)  # <- recursion


def _helper_with_print(v):
    print(v)  # <- helper_print
    return v


def calls_bad_helper(x):
    return _helper_with_print(x) + 1


def uses_undefined(x):
    return x + not_defined_anywhere  # <- undefined  # noqa: F821


def uses_before_assignment(x):
    y = z + x  # <- unbound  # noqa: F821
    z = 1
    return y


def uses_nested_def(x):
    def inner(v):
        return inner(v)  # <- nested_def
    return inner(x)


def uses_match(x):
    match x.ndim:  # <- match
        case 1:
            return x
    return x


def uses_star_args(x, *rest):
    return x


def uses_setattr(x):
    x.shape = (3,)  # <- setattr
    return x


def raises_static(x):
    if x.ndim == 2:
        raise ValueError("x must be 1-D")  # <- raise
    return x


def bad_inplace_dtype(x):
    x += 1.5  # <- inplace
    return x


def ambiguous_truth(x):
    if x > 0:  # <- ambiguous
        return x
    return -x


def branch_undefined(x):
    if x[0, 0] > 0:
        y = x * 2
    return y  # <- branch_undefined


def possibly_undefined(x):
    for row in x:
        last = row  # (a view: a new array is checked at run time, maybe_bound.py)
    return last  # <- possibly_undefined


def read_before_loop_assignment(x):
    for row in x:
        total = prev + row  # <- read_before_loop
        prev = row
    return x


def dtype_changes_in_branches(x):
    if x[0, 0] > 0:  # <- branch_dtypes
        y = x.astype(np.float32)
    else:
        y = x
    return y


def dtype_narrows_in_loop(x):
    s = x.sum() * 0.5
    for row in x:  # <- loop_dtypes
        s = row.sum()
    return s


def uses_resize(x):
    y = x + 1
    y.resize(3)  # <- resize
    return y
