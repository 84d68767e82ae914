"""Inspecting a compiled function: its counters, providers, models and listings.

Input: a compiled function and example arguments or :func:`pyonnx.spec` specs (or none: the
signature called last). Output: conversion counters, the providers that run it, the
``onnx.ModelProto`` (dimensions named, run-time check outputs kept or dropped) or a
:class:`pyonnx.show.Listing`. Nothing here is cached or runs a session: each model view
converts the signature again (``_build_for``).
"""

from __future__ import annotations

from typing import Any

import numpy as np

from pyonnx.conversion_outcomes import (
    _at_user_level,
    _checkable,
    _need_static,
    _rank_checks,
    _shapes_needed,
)
from pyonnx.errors import ConversionError

__all__ = ["Inspection", "_without_checks"]


class Inspection:
    """The inspection methods of :class:`pyonnx.api.CompiledFunction` (a mixin: it reads the
    function's ``_recorder``, ``_cache``, ``_providers``, ``_params``, ``_params_for``,
    ``_build``, ``_bind``, ``_last``, ``_lock``)."""

    @property
    def conversions(self) -> int:
        """Signatures converted so far (disk-cache hits not included)."""
        return self._recorder.conversions

    @property
    def disk_hits(self) -> int:
        """Signatures read from the disk cache instead of converted."""
        return self._recorder.disk_hits

    def stats(self) -> dict[str, Any]:
        """Conversion counters: ``signatures`` (in memory now), ``conversions``,
        ``disk_cache_hits``, ``misses`` (first calls of a signature: conversions + disk hits)
        and ``seconds_converting``. ``PYONNX_LOG_COMPILES=1`` logs each conversion."""
        return self._recorder.stats(len(self._cache))

    @property
    def providers(self) -> tuple[str, ...]:
        """The providers running the last compiled signature (or those that would be tried)."""
        if self._last is not None:
            return self._last.session.providers
        return self.providers_to_try

    @property
    def providers_to_try(self) -> tuple[str, ...]:
        if self._providers is None:
            from pyonnx.runtime.providers import resolve_providers

            self._providers = resolve_providers(self._providers_arg)
        return self._providers

    def to_onnx(self, *args: Any, **kwargs: Any):
        """The ``onnx.ModelProto`` for example arguments or :func:`pyonnx.spec` specs.

        Arrays give symbolic dimensions (the model serves every size); specs keep their named
        and fixed dimensions. ``checks=False`` (a keyword, unless the function has a parameter
        of that name) drops the run-time check outputs (``check_<k>_failed``,
        ``check_<k>_value_<j>``: see ``pyonnx.check_protocol``) and their metadata; by default
        they are kept, for a deployment that wants to test them.
        """
        import onnx

        checks = True
        if "checks" in kwargs and "checks" not in self._params:
            checks = bool(kwargs.pop("checks"))
        if "_layouts" in self.__dict__:
            layout, flat = self._layout_for(args, kwargs)
            return layout.to_onnx(*flat, **({} if checks else {"checks": False}))
        from pyonnx.passes.name_output_dims import name_output_dims

        model = onnx.load_from_string(self._build_for(args, kwargs)[1])
        if not checks:
            model = _without_checks(model)
        return name_output_dims(model)

    def show(self, *args: Any, **kwargs: Any):
        """The model as a listing grouped by source line (:class:`pyonnx.show.Listing`: text
        when printed, HTML in Jupyter, ``.dot()`` for graphviz), for example arguments or
        specs, or without arguments for the signature called last."""
        import onnx

        from pyonnx.passes.name_output_dims import name_output_dims
        from pyonnx.show import Listing

        if args or kwargs or self._last is None:
            model = onnx.load_from_string(self._build_for(args, kwargs)[1])
        else:
            model = onnx.load_from_string(self._last.model)
        return Listing(name_output_dims(model), self.fn.__qualname__)

    def _repr_html_(self) -> str:
        """Jupyter's view: the listing of the signature called last (or, before any call, the
        function's name)."""
        import html

        if self._last is None:
            return f"<pre>{html.escape(repr(self))} (not called yet: no model)</pre>"
        return self.show().html()

    def _build_for(self, args: tuple, kwargs: dict) -> tuple[list, bytes, str, tuple[bool, ...]]:
        """(params, model bytes, structure, scalars) for example arguments or specs (not
        cached; Python scalars needed at conversion time become static as in a call)."""
        if kwargs or len(args) != len(self._params):
            args = self._bind(args, kwargs)
        rank_checks = False
        while True:
            try:
                params = self._params_for(args, symbolic=not self.static_shapes)
                with _rank_checks(rank_checks):
                    return (params, *self._build(params))
            except ConversionError as e:
                raise _at_user_level(e) from None
            except Exception as e:
                if not rank_checks and _checkable(e) and (self.static_shapes or not any(
                        isinstance(a, (np.ndarray, np.generic)) for a in args)):
                    # Static shapes cannot help (a spec names the dimensions): keep them
                    # symbolic and check at run time (np.squeeze without axis).
                    rank_checks = True
                    continue
                try:
                    if _shapes_needed(self, e):
                        continue
                except ConversionError as error:
                    raise _at_user_level(error) from None
                if not isinstance(e, _need_static()):
                    raise
                with self._lock:
                    self._set_static(self.static_argnames | set(e.argnames))


def _without_checks(model):
    """``model`` (an ``onnx.ModelProto``) without its run-time check outputs, their metadata
    and the nodes only they used (``to_onnx(..., checks=False)``)."""
    import onnx
    import onnx_ir as ir

    from pyonnx import check_protocol
    from pyonnx.passes.pipeline import optimize, to_bytes

    if check_protocol.KEY not in {p.key for p in model.metadata_props}:
        return model
    return onnx.load_from_string(to_bytes(optimize(check_protocol.strip(ir.from_proto(model)))))
