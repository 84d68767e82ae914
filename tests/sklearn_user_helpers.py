"""A user's own helper module, called from the custom steps in tests/test_sklearn_errors.py (its
lines are checked there: keep the marked lines where they are or update the tests)."""

import numpy as np
from sklearn.utils.validation import check_symmetric


def log_scale(X):
    return np.log1p(np.abs(X))  # fine


def symmetric_part(X):
    return check_symmetric(X)  # MARK: library call


def describe(X):
    return "{} rows".format(len(X))  # MARK: refused here
