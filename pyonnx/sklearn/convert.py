"""``pyonnx.sklearn.to_onnx``: register every custom step of an estimator, then call skl2onnx.

Input: a fitted estimator, pipeline, ``ColumnTransformer`` or ``FeatureUnion`` (nested in any
way), a sample of ``X`` and skl2onnx's options. Output: the ``onnx.ModelProto`` skl2onnx builds,
in which every step skl2onnx has no converter for (a class of the user's, or a subclass of a
scikit-learn class, whose methods therefore are the user's) is the pyonnx graph of its methods.

A step that cannot be converted raises :class:`pyonnx.ConversionError` at its source line, with
a note naming the step.
"""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

from pyonnx.errors import ConversionError
from pyonnx.sklearn import complex_pairs
from pyonnx.sklearn.register import MIN_OPSET, onnx_opset, register

__all__ = ["to_onnx", "custom_steps", "MIN_OPSET"]


def custom_steps(estimator: Any) -> list[Any]:
    """The steps of ``estimator`` (itself included) that skl2onnx cannot convert by itself.

    Pipelines, ``ColumnTransformer`` (its fitted ``transformers_``) and ``FeatureUnion`` are
    searched; ``"drop"``/``"passthrough"`` steps are skipped.
    """
    from skl2onnx._supported_operators import sklearn_operator_name_map

    from pyonnx.sklearn.register import is_registered

    return [s for s in _walk(estimator)
            if type(s) not in sklearn_operator_name_map or is_registered(type(s))]


def _walk(estimator: Any) -> Iterator[Any]:
    from sklearn.compose import ColumnTransformer
    from sklearn.pipeline import FeatureUnion, Pipeline

    if estimator is None or isinstance(estimator, str):
        return
    if isinstance(estimator, Pipeline):
        for _, step in estimator.steps:
            yield from _walk(step)
    elif isinstance(estimator, ColumnTransformer):
        # transformers_ holds the fitted clones (transformers, the unfitted originals).
        for _, step, _ in getattr(estimator, "transformers_", estimator.transformers):
            yield from _walk(step)
    elif isinstance(estimator, FeatureUnion):
        for _, step in estimator.transformer_list:
            yield from _walk(step)
    else:
        yield estimator


def to_onnx(estimator: Any, X_sample: Any = None, *, target_opset: Any = None,
            **options: Any) -> Any:
    """Converts a fitted scikit-learn estimator or pipeline with custom steps to ONNX.

    Registers (:func:`pyonnx.sklearn.register`) the class of every custom step found by
    :func:`custom_steps`, then calls ``skl2onnx.to_onnx``.

    Args:
        estimator: the fitted estimator or pipeline.
        X_sample: an array like the model's input (its dtype and column count are used; one
            row is enough), or None with ``initial_types=`` in ``options``.
        target_opset: the ONNX opset (an int or skl2onnx's dict form); default and minimum
            :data:`MIN_OPSET` (21), the opset pyonnx's operators are written for.
        **options: passed to ``skl2onnx.to_onnx`` (``options=``, ``initial_types=``,
            ``final_types=``, ``name=``, ...).

    Returns:
        The ``onnx.ModelProto``.

    Raises:
        ConversionError: a custom step cannot be converted (at its source line), or
            ``target_opset`` is below 21.
    """
    import skl2onnx
    from skl2onnx.common.utils import InvalidInputTypeException

    from pyonnx.api import _at_user_level

    if target_opset is None:
        target_opset = MIN_OPSET
    try:
        onnx_opset(target_opset)
        for step in custom_steps(estimator):
            if not _registered_with_skl2onnx(type(step)):
                register(type(step))
        with complex_pairs.conversion() as state:
            try:
                model = skl2onnx.to_onnx(estimator, X_sample, target_opset=target_opset,
                                         **options)
            except InvalidInputTypeException as e:
                complex_pairs.refuse_wrong_type(e)
                raise
            # complex inputs/outputs become trailing-2 real tensors
            return complex_pairs.finish(model, state)
    except ConversionError as e:
        raise _at_user_level(e) from None


def _registered_with_skl2onnx(cls: type) -> bool:
    from skl2onnx._supported_operators import sklearn_operator_name_map

    return cls in sklearn_operator_name_map
