"""scikit-learn's helpers that custom ``transform``/``predict`` code calls, with their meaning.

Input: calls in converted source. Output: numpy registry entries (loaded by
``import pyonnx.sklearn``). scikit-learn's own source for these goes through input checks,
array-API dispatch and warnings pyonnx does not convert; each entry here decides at conversion
time what depends on the arguments' kinds (``Y is None``, ``Y is X``, dtypes, flags) and then
inlines a small numpy function with the same result for dense arrays (the ``_core`` functions
of each module, converted from their source like the user's code).

Modules: :mod:`.checks` (``as_float_array``, ``column_or_1d``, ``check_consistent_length``,
``_check_feature_names``, ``_check_n_features``; ``check_array``/``validate_data``/
``check_is_fitted`` are in :mod:`pyonnx.sklearn.validation`), :mod:`.pairwise`
(``euclidean_distances``, ``pairwise_distances``, the kernels, ``cosine_similarity``,
``manhattan_distances``), :mod:`.extmath` (``softmax``, ``stable_cumsum``).
``safe_sparse_dot`` and ``row_norms`` convert from scikit-learn's own source.
"""

from __future__ import annotations

import inspect
from collections.abc import Callable
from typing import Any

__all__ = ["inline", "bind"]


def inline(ctx, fn: Callable[..., Any], *args: Any, **kwargs: Any) -> Any:
    """``fn(*args, **kwargs)`` converted from ``fn``'s source, as if the user's code called it
    (in the function being converted: ``ctx.frames[-1]``)."""
    return ctx.frames[-1].inline(fn, list(args), kwargs)


def bind(ctx, target: Callable[..., Any], name: str, args: tuple,
         kwargs: dict) -> dict[str, Any]:
    """``target``'s parameters bound to the call's arguments, defaults applied."""
    try:
        bound = inspect.signature(target).bind(*args, **kwargs)
    except TypeError as e:
        raise ctx.error(f"{name}(): {e}") from None
    bound.apply_defaults()
    return dict(bound.arguments)
