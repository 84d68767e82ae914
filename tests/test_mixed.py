"""Programs mixing run-time control flow, item assignment, views, aliases and lists, against
numpy: results and the arguments afterwards (tests/mixed_kernels.py)."""

from __future__ import annotations

import numpy as np
import pytest

from tests import mixed_kernels as k
from tests.oracle import check

R = np.random.default_rng(0)
CASES = [
    (k.mixed_a1, (np.arange(5.0), 3.0)), (k.mixed_a1, (np.arange(5.0), 100.0)),
    (k.mixed_a2, (np.arange(6.0).reshape(2, 3),)),
    (k.mixed_a4, (np.arange(4.0),)), (k.mixed_a6, (np.arange(9.0).reshape(3, 3),)),
    (k.mixed_a7, (np.arange(5.0), 2)), (k.mixed_a8, (np.arange(20.0).reshape(5, 4),)),
    (k.mixed_a9, (np.arange(4.0),)), (k.mixed_a10, (np.arange(3.0), np.int64(5))),
    (k.mixed_b1, (R.normal(size=(5, 3)),)), (k.mixed_b2, (np.arange(5.0), 2.5)),
    (k.mixed_b2, (np.arange(5.0), 10.0)), (k.mixed_b3, (np.zeros(1),)),
    (k.mixed_b4, (np.array([1.0, -3, 0.5, -0.5, 2]),)), (k.mixed_b5, (R.normal(size=(4, 4)),)),
    (k.mixed_b6, (np.sort(R.random(17)),)), (k.mixed_b6, (np.zeros(0),)),
    (k.mixed_b7, (np.arange(3.0), np.int64(2))), (k.mixed_b8, (np.arange(6.0),)),
    (k.mixed_b9, (R.normal(size=8),)), (k.mixed_b10, (np.arange(3.0), True)),
    (k.mixed_b10, (np.arange(3.0), False)),
    (k.mixed_c1, (np.array([-1.0, -2, 3, 4]),)), (k.mixed_c1, (np.array([-1.0, -2, -3, 4]),)),
    (k.mixed_c2, (np.arange(4.0),)), (k.mixed_c3, (np.arange(3.0), np.int64(5))),
    (k.mixed_c4, (R.normal(size=7),)), (k.mixed_c5, (R.normal(size=6),)),
    (k.mixed_c5, (np.zeros(0),)), (k.mixed_c6, (R.normal(size=5), 0.5)),
    (k.mixed_c7, (R.normal(size=(5, 3)),)), (k.mixed_c8, (np.array([3.0, 2, 0, 1]),)),
    (k.mixed_c8, (np.array([3.0, 2]),)),
    (k.mixed_d1, (np.arange(4.0), 2.0)), (k.mixed_d1, (np.arange(4.0), 20.0)),
    (k.mixed_d3, (np.arange(4.0), 1)), (k.mixed_d4, (np.arange(6.0),)),
    (k.mixed_d5, (np.ones((4, 4)),)), (k.mixed_d6, (np.arange(3.0),)),
]


@pytest.mark.parametrize("fn,args", [(k.mixed_d2, (np.arange(4.0),)),
                                     (k.mixed_d2, (np.arange(4.0) - 1,)),
                                     (k.mixed_d3, (np.arange(4.0), np.int64(1))),
                                     (k.mixed_d3, (np.arange(4.0), np.int64(0)))])
def test_views_chosen_at_run_time(fn, args):
    # Followed since issue 13's refusals: the write reaches the memory of the path that ran
    # (lower/choices.py); what stays refused is in tests/test_refusals_fixed.py.
    check(fn, *args)


@pytest.mark.parametrize("fn,args", CASES, ids=[f"{c[0].__name__}-{i}" for i, c in
                                                 enumerate(CASES)])
def test_mixed_programs(fn, args):
    check(fn, *args)  # results and the arguments after the call
