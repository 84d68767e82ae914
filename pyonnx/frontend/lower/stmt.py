"""Lowering of statements.

Input: canonical statement ASTs (no ``AugAssign``, no ``break``/``continue``, one final
``return``), annotated with liveness. Output: bindings in the environment and nodes in the
graph. Control flow whose condition or iterable is known at conversion time runs at conversion
time: only the taken branch is lowered, a short static ``for`` is unrolled, a ``while`` runs
while its test stays static. A condition or trip count known only at run time becomes an ONNX
``If`` or ``Loop`` (:mod:`pyonnx.frontend.lower.control_flow`); a ``while`` whose test turns
run-time after some unrolled iterations continues as a ``Loop``.
"""

from __future__ import annotations

import ast
from typing import Any

import numpy as np

from pyonnx.errors import ConversionError
from pyonnx.frontend.graph import scalar_kinds
from pyonnx.frontend.lower import (alias_writes, checks, complex_aliases, control_flow,
                                   memory_sharing, optional_reads)
from pyonnx.frontend.lower.expr import static_truth
from pyonnx.frontend.graph.iterables import DynamicIter
from pyonnx.frontend.lower.iteration import iterate
from pyonnx.frontend.graph.complex_values import Complex
from pyonnx.frontend.graph.values import Array, is_static
from pyonnx.frontend.canonicalize.early_return import RETURN_VALUE
from pyonnx.frontend.vectorize import vectorize_loop

__all__ = ["StmtLowering", "ReturnSignal"]

# A static loop is unrolled at most this many times; past it the graph grows too large.
MAX_UNROLL = 1000


class ReturnSignal(Exception):
    """``return value`` reached on a conversion-time path."""

    def __init__(self, value: Any, loc: Any = None):
        self.value = value
        self.loc = loc  # the return statement's SourceLoc (errors about the returned value)


def _current(ctx, item: Any) -> Any:
    """An unrolled loop's item as it is now: a view of memory written by earlier iterations
    (a row of the array being iterated) is re-derived from the memory's contents."""
    if isinstance(item, Array):
        from pyonnx.frontend.lower.iteration import current_item
        return alias_writes.current(ctx, current_item(ctx, item))
    if isinstance(item, tuple):
        return tuple(_current(ctx, v) for v in item)
    if isinstance(item, Complex):
        from pyonnx.frontend.lower.complex_iteration import current_item
        return current_item(ctx, item)
    return item


def target_names(target: ast.expr) -> frozenset[str]:
    return frozenset(n.id for n in ast.walk(target) if isinstance(n, ast.Name))


class StmtLowering:
    """Mixin of :class:`~pyonnx.frontend.lower.function.FunctionLowering`: ``block(stmts)``."""

    ctx: Any
    dynamic_depth: int  # > 0 inside a run-time branch or loop body

    def block(self, stmts: list[ast.stmt]) -> None:
        for s in stmts:
            self.stmt(s)

    def stmt(self, node: ast.stmt) -> None:
        ctx = self.ctx
        prev = ctx.loc
        ctx.loc = self.loc_of(node)
        try:
            visitor = getattr(self, f"stmt_{type(node).__name__}", None)
            if visitor is None:
                raise ctx.error(f"{type(node).__name__} statements are not supported")
            visitor(node)
        except ConversionError as e:
            raise e.with_loc(ctx.loc) from None
        finally:
            ctx.loc = prev

    # ----------------------------------------------------------- assignment
    def stmt_Expr(self, node: ast.Expr) -> None:
        if isinstance(node.value, ast.Constant):  # docstrings and bare literals
            return
        self.expr(node.value)

    def stmt_Assign(self, node: ast.Assign) -> None:
        target = node.targets[0]
        value = optional_reads.returned(self, node.value) if isinstance(target, ast.Name) \
            and target.id == RETURN_VALUE else self.expr(node.value)
        if getattr(node.value, "pyonnx_inplace", None) is True and isinstance(target, ast.Name):
            # x op= v on an array is in place in numpy: names and views sharing x's memory
            # (and the caller, for an argument) see the new values.
            found, old, _ = self.env.lookup(target.id)
            if found and isinstance(old, np.ndarray) and \
                    alias_writes.held_elsewhere(self, old, target.id):
                # A conversion-time array something else also sees: the write goes to the
                # graph value every holder is rebound to (views of it are refused there).
                if old.dtype.kind == "c":
                    self._complex_in_place(target, old, value)
                    return
                old = alias_writes.materialize(self, old, f"'{target.id}'")
                value = self.ctx.asarray(value)
            # (a numpy scalar is immutable: 't = s; t += 1' rebinds t and leaves s alone)
            if found and isinstance(old, Array) and not old.weak and isinstance(value, Array) \
                    and scalar_kinds.scalar_kind(self.ctx, old) != "scalar" \
                    and memory_sharing.shares_memory(self.ctx, old, target.id):
                self._in_place(target.id, old, value)
                mixed = self.ctx.aliases.mixed0d
                if old.value in mixed:  # written where an array, rebound where a scalar
                    new = self.env.lookup(target.id)[1]
                    if isinstance(new, Array) and new.ndim == 0:
                        mixed[new.value] = mixed[old.value]
                return
            if found:  # rebinds x: a 0-d array stays one (scalar_kinds.after_inplace)
                value = scalar_kinds.after_inplace(self.ctx, old, value)
        for target in node.targets:
            self.assign(target, value)

    def _complex_in_place(self, target: ast.Name, old: np.ndarray, value: Any) -> None:
        """``x op= v`` on a conversion-time complex array another name also holds: written
        into its memory, which every holder sees (complex_materialize)."""
        from pyonnx.frontend.lower import complex_materialize, complex_writes

        held = complex_materialize.materialize(self, old, f"'{target.id}'")
        if held is None:
            raise self.ctx.error(
                f"'{target.id} op= ...' on a complex array made at conversion time that shares "
                "memory with other arrays in a way pyonnx does not follow (a broadcast or "
                "read-only view, another dtype); write x = x op ..., or bind the other name to "
                "a .copy()")
        if not isinstance(value, Complex):  # (a conversion-time result: x += 0)
            value = self.ctx.asarray(value) if not np.iscomplexobj(value) else value
        complex_writes.write(self, target, held, Ellipsis, value)

    def _in_place(self, name: str, old: Array, value: Array) -> None:
        from pyonnx.frontend.lower.setitem import setitem

        if value.ndim != old.ndim or any(p is not None and q is not None and p != q
                                         for p, q in zip(old.shape, value.shape)):
            raise self.ctx.error(
                f"non-broadcastable output operand with shape {old.shape} doesn't match the "
                f"broadcast shape {value.shape} (numpy raises ValueError for '{name} op= ...')")
        if value.shape == old.shape and None not in old.shape:
            alias_writes.write_with(self, old, lambda ctx, t: value, f"'{name}'")
        else:  # a run-time check that the result has x's shape (the write fails otherwise)
            alias_writes.write_with(self, old, lambda ctx, t: setitem(ctx, t, Ellipsis, value),
                               f"'{name}'")

    def stmt_AnnAssign(self, node: ast.AnnAssign) -> None:
        if node.value is not None:
            self.assign(node.target, self.expr(node.value))

    def assign(self, target: ast.expr, value: Any) -> None:
        """Binds ``value`` to an assignment target (a name or a tuple/list to unpack)."""
        if isinstance(target, ast.Name):
            self.env.bind(target.id, value)
        elif isinstance(target, (ast.Tuple, ast.List)):
            for t in target.elts:
                if isinstance(t, ast.Subscript):
                    raise self.ctx.error(
                        f"item assignment inside an unpacking target ('{ast.unparse(target)} "
                        "= ...') is not supported; assign each item in its own statement (a "
                        "swap needs a copy of one side first, as rows are views: t = A[0].copy(); "
                        "A[0] = A[1]; A[1] = t)", self.loc_of(t))
            items = self._unpack(target, value, len(target.elts))
            for t, v in zip(target.elts, items):
                self.assign(t, v)
        elif isinstance(target, ast.Subscript):
            attr = next((n.attr for n in ast.walk(target) if isinstance(n, ast.Attribute)), None)
            if attr == "flat":
                raise self.ctx.error(
                    f"item assignment through '.flat' ('{ast.unparse(target)} = ...') is not "
                    "supported; write into a flat view instead: flat = x.reshape(-1); "
                    "flat[i] = v", self.loc_of(target))
            if attr is not None:
                raise self.ctx.error(
                    f"item assignment through the attribute '.{attr}' "
                    f"('{ast.unparse(target)} = ...') is not supported; bind the array to a "
                    "local name and write into it", self.loc_of(target))
            raise self.ctx.error(
                "item assignment (x[...] = v) is not supported yet; build the array with "
                "np.where, np.concatenate or arithmetic instead", self.loc_of(target))
        elif isinstance(target, ast.Attribute):
            raise self.ctx.error("assigning to an attribute is not supported in a compiled "
                                 "function; use a local variable", self.loc_of(target))
        else:
            raise self.ctx.error(f"cannot assign to {type(target).__name__}", self.loc_of(target))

    def _unpack(self, target: ast.expr, value: Any, n: int) -> list[Any]:
        if isinstance(value, Array):
            if value.ndim == 0:
                raise self.ctx.error("cannot unpack a 0-d array", self.loc_of(target))
            if value.shape[0] is None:
                return self._unpack_checked(target, value, n)
            if value.shape[0] != n:
                raise self.ctx.error(f"cannot unpack an array of length {value.shape[0]} into "
                                     f"{n} names", self.loc_of(target))
            from pyonnx.frontend.graph.indexing import getitem
            return [getitem(self.ctx, value, i) for i in range(n)]
        try:
            items = list(value)
        except TypeError as e:
            raise self.ctx.error(f"cannot unpack: {e}", self.loc_of(target)) from None
        if len(items) != n:
            raise self.ctx.error(f"cannot unpack {len(items)} values into {n} names",
                                 self.loc_of(target))
        return items

    def _unpack_checked(self, target: ast.expr, value: Array, n: int) -> list[Any]:
        """``a, b = row`` with a run-time length: the items, each made to fail at run time
        unless the length is ``n`` (numpy's ValueError)."""
        from pyonnx.frontend.graph.checks import runtime_check
        from pyonnx.frontend.graph.indexing import getitem

        ctx = self.ctx
        if value.dtype.kind not in "iuf":
            raise ctx.error(
                f"unpacking a {value.dtype} array into {n} names needs its first dimension "
                "known at conversion time; index it instead (a, b = x[0], x[1])",
                self.loc_of(target))
        length = ctx.asarray(ctx.dim(value, 0))
        bad = Array(ctx.op("Not", ctx.op("Equal", ctx.cast(length, np.dtype(np.int64)),
                                         ctx.const(np.array(n, np.int64)))),
                    np.dtype(np.bool_), ())
        return [runtime_check(ctx, bad, getitem(ctx, value, i), "unpack_length",
                              f"ValueError: wrong number of values to unpack (expected {n})")
                for i in range(n)]

    # --------------------------------------------------------- control flow
    def stmt_Pass(self, node: ast.Pass) -> None:
        pass

    def stmt_Return(self, node: ast.Return) -> None:
        if isinstance(node.value, ast.Name) and node.value.id == RETURN_VALUE and \
                not self.env.lookup(RETURN_VALUE)[0] and \
                checks.recorded(self.ctx):
            # Every path that reaches the end raised (a run-time check): the call raises, the
            # model returns a stand-in nobody reads.
            raise ReturnSignal(None, self.loc_of(node))
        raise ReturnSignal(None if node.value is None else optional_reads.returned(
            self, node.value), self.loc_of(node.value or node))

    def stmt_If(self, node: ast.If) -> None:
        test = self.expr(node.test)
        truth = static_truth(self.ctx, test)
        if truth is None:
            control_flow.lower_if(self, node, test)
            return
        self.block(node.body if truth else node.orelse)

    def stmt_For(self, node: ast.For) -> None:
        from pyonnx.frontend.lower.complex_iteration import iterated
        # (complex memory a run-time loop reads its items from: refused writes while it runs)
        before = set(iterated(self.ctx))
        try:
            self._for(node)
        finally:
            iterated(self.ctx).intersection_update(before)

    def _for(self, node: ast.For) -> None:
        # Vectorization first: a range loop the dependence analysis proves equivalent to
        # whole-array numpy code is lowered as that code (pyonnx/frontend/vectorize); any other
        # loop continues below, unchanged (unrolled when static, else a Loop).
        if vectorize_loop(self, node, lambda v, n: memory_sharing.shares_memory(self.ctx, v, n)):
            return
        ctx = self.ctx
        prev = ctx.loc
        ctx.loc = self.loc_of(node.iter)
        items = iterate(ctx, self.expr(node.iter))
        ctx.loc = prev
        extra = getattr(node, "pyonnx_extra_test", None)
        if isinstance(items, DynamicIter):
            first = self.expr(extra) if extra is not None else True
            if static_truth(ctx, first) is False:
                self.block(node.orelse)
                return
            complex_aliases.prepare(ctx)  # (before the loop takes its entry values)
            control_flow.lower_loop(
                self, node, count=items.count, first=first,
                start=lambda k: self.assign(node.target, items.item(ctx, k)),
                next_test=(lambda: self.expr(extra)) if extra is not None else None,
                targets=target_names(node.target))
            self.block(node.orelse)
            return
        if len(items) > MAX_UNROLL:
            raise ctx.error(f"this loop runs {len(items)} times at conversion time, more "
                            f"than the {MAX_UNROLL} pyonnx unrolls")
        for item in items:
            if extra is not None:
                test = self.expr(extra)
                truth = static_truth(ctx, test)
                if truth is False:
                    break
                if truth is None:
                    def run(item=item):
                        self.assign(node.target, _current(ctx, item))
                        self.block(node.body)
                    control_flow.unrolled_iteration(self, node, test, run)
                    continue
            self.assign(node.target, _current(ctx, item))
            self.block(node.body)
        self.block(node.orelse)

    def stmt_While(self, node: ast.While) -> None:
        count = 0
        while True:
            test = self.expr(node.test)
            truth = static_truth(self.ctx, test)
            if truth is None:
                # The rest of the loop runs in the model.
                complex_aliases.prepare(self.ctx)  # (before the loop takes its entry values)
                control_flow.lower_loop(self, node, count=None, first=test, start=None,
                                        next_test=lambda: self.expr(node.test))
                break
            if not truth:
                break
            count += 1
            if count > MAX_UNROLL:
                raise self.ctx.error(f"this loop runs more than {MAX_UNROLL} times at "
                                     "conversion time")
            self.block(node.body)
        self.block(node.orelse)

    def stmt_Raise(self, node: ast.Raise) -> None:
        if self.dynamic_depth:
            # Reached under a run-time condition: a check the compiled function raises after
            # the run (checks.py); early_return made the raise leave the function.
            checks.record(self, node)
            return
        exc: Any = None
        if isinstance(node.exc, ast.Call):
            func = self.expr(node.exc.func)
            if isinstance(func, type) and issubclass(func, BaseException):
                args = [self.expr(a) for a in node.exc.args]
                exc = func(*(a if is_static(a) else "<array>" for a in args))
        if exc is None and node.exc is not None:
            exc = self.expr(node.exc)
        text = (f"{type(exc).__name__}: {exc}" if isinstance(exc, BaseException)
                else getattr(exc, "__name__", "an exception"))
        raise self.ctx.error(f"the function raises {text} for inputs of this signature")
