"""Lowering of one function body, and inlining of the user functions it calls.

Input: a :class:`~pyonnx.frontend.source.FunctionSource` whose AST has been checked and
canonicalized, and the frontend values of its arguments. Output: the frontend value it returns,
with the nodes it needs emitted into the :class:`~pyonnx.frontend.graph.context.Lowering`.
"""

from __future__ import annotations

import ast
import functools
import inspect
import linecache
import types
from typing import Any

from pyonnx.errors import ConversionError
from pyonnx.frontend.analysis import annotate_liveness
from pyonnx.frontend.canonicalize import canonicalize
from pyonnx.frontend.lower import (alias_writes, appends, complex_into_real, complex_writes,
                                   comprehensions,
                                   copy_or_view, imports_contexts, list_setitem,
                                   local_functions)
from pyonnx.frontend.graph.iterables import DynamicIter
from pyonnx.frontend.graph.values import Seq, Undefined
from pyonnx.frontend.lower.calls import _hashable, call
from pyonnx.frontend.lower.item_in_place import item_in_place
from pyonnx.frontend.lower.iteration import iterate
from pyonnx.frontend.lower.env import Env, assigned_names
from pyonnx.frontend.lower.followed import followed_error
from pyonnx.frontend.lower.expr import ExprLowering
from pyonnx.frontend.lower.stmt import ReturnSignal, StmtLowering
from pyonnx.frontend.source import FunctionSource, parse_function
from pyonnx.frontend.syntax_check import check_syntax
from pyonnx.loc import SourceLoc

__all__ = ["FunctionLowering", "prepare"]


@functools.lru_cache(maxsize=1024)  # bounded: each entry holds its function (and globals)
def _prepared(code: types.CodeType, fn: types.FunctionType) -> tuple[FunctionSource, ast.FunctionDef, frozenset[str]]:
    src = parse_function(fn)
    check_syntax(src)
    tree = annotate_liveness(canonicalize(src.tree))
    return src, tree, assigned_names(tree)


def _local_tree(tree: ast.FunctionDef) -> ast.FunctionDef:
    """A nested function's canonical tree with liveness (annotated once)."""
    if not tree.__dict__.get("_pyonnx_liveness"):
        annotate_liveness(tree)
        tree._pyonnx_liveness = True  # type: ignore[attr-defined]
    return tree


def prepare(fn: types.FunctionType) -> tuple[FunctionSource, ast.FunctionDef, frozenset[str]]:
    """Parses, checks and canonicalizes ``fn`` once per function object (cached)."""
    return _prepared(fn.__code__, fn)


class FunctionLowering(ExprLowering, StmtLowering):
    """Lowers the body of one Python function.

    Attributes:
        ctx: the Lowering shared by the whole conversion.
        src: the function being lowered.
        env: its names.
        stack: code objects of the functions being inlined (for recursion detection).
    """

    def __init__(self, ctx, fn: types.FunctionType | None, stack: tuple[Any, ...] = (),
                 local: tuple[FunctionSource, ast.FunctionDef, frozenset[str]] | None = None):
        self.ctx = ctx
        # ``local``: a nested function's (enclosing source, canonical tree, locals) instead of fn
        self.src, self.tree, local_names = prepare(fn) if local is None else local
        self.env = Env(self.src, local_names)
        self.stack = stack + ((fn.__code__,) if local is None else (self.tree,))
        self.dynamic_depth = 0
        self._loc_cache: dict[tuple[int, int], SourceLoc] = {}
        self.return_loc: SourceLoc | None = None  # where run() saw the value returned

    def loc_of(self, node: ast.AST) -> SourceLoc:
        # Cached on the node: canonical trees are kept per function, so later conversions
        # of the same function find it there.
        loc = node.__dict__.get("_pyonnx_loc")
        if loc is not None:
            return loc
        loc = self._compute_loc(node)
        node._pyonnx_loc = loc  # type: ignore[attr-defined]
        return loc

    def _compute_loc(self, node: ast.AST) -> SourceLoc:
        lineno = getattr(node, "lineno", self.tree.lineno)
        col = getattr(node, "col_offset", 0)
        key = (lineno, col)
        loc = self._loc_cache.get(key)
        if loc is None:
            loc = SourceLoc(self.src.filename, lineno, col, self.src.name,
                            linecache.getline(self.src.filename, lineno))
            self._loc_cache[key] = loc
        return loc

    def run(self, bound: dict[str, Any]) -> Any:
        """Binds the parameters and lowers the body; returns the returned value."""
        for name, value in bound.items():
            self.env.bind(name, value)
        self.ctx.frames.append(self)
        try:
            self.block(self.tree.body)
        except ReturnSignal as r:
            self.return_loc = r.loc
            return r.value
        finally:
            self.ctx.frames.pop()
        return None

    # ------------------------------------------------------------ calls
    def expr_Call(self, node: ast.Call) -> Any:
        if node.__dict__.get("pyonnx_setitem"):
            # x[i] = v, rewritten to x = <setitem>(x, i, v) (canonicalize/setitem.py)
            target_node, index_node, value_node = node.args
            done = item_in_place(self, node)  # (c[k] op= v on a list's or dict's array item)
            if done is not None and isinstance(done[0], dict) and any(
                    v is done[1] for v in done[0].values()):
                return self.expr(node.pyonnx_root)  # (written: the dict holds the array)
            value = self.expr(value_node) if done is None else done[1]
            if complex_writes.is_part(target_node):  # z.real[i] = v, z.imag[i] = v
                base = self.expr(target_node.value)
                complex_writes.write_part(self, target_node, base, self.expr(index_node), value)
                return self.expr(node.pyonnx_root)
            target = self.expr(target_node)
            index = self.expr(index_node)
            if isinstance(target, (list, Seq)):  # lst[i] = v: the list afterwards
                new = list_setitem.assign(self, target, index, value)
                root = node.pyonnx_root
                if not (isinstance(target_node, ast.Name) and isinstance(root, ast.Name)
                        and root.id == target_node.id):
                    raise self.ctx.error("item assignment into a list inside another value is "
                                         "not supported; assign to a list bound to a name")
                return new
            text = f"'{ast.unparse(target_node)}'"
            if complex_into_real.applies(target, value):  # numpy's real part (or TypeError)
                value = complex_into_real.convert(self.ctx, target, value)
            if complex_writes.handles(target, value):
                complex_writes.write(self, target_node, target, index, value)
            else:
                copy_or_view.refuse_masked_overlap(self.ctx, target, index, value, text)
                alias_writes.write(self, target, index, value, text)
            return self.expr(node.pyonnx_root)
        if node.__dict__.get("pyonnx_def"):  # a nested def or lambda (canonicalize/local_functions)
            return local_functions.define(self, node)
        if node.__dict__.get("pyonnx_import"):  # import in the body (canonicalize/imports_contexts)
            return imports_contexts.import_value(self, node)
        if "pyonnx_context" in node.__dict__:  # with np.errstate(...): a no-op context
            return imports_contexts.enter_contexts(self, node)
        if node.__dict__.get("pyonnx_deleted"):  # del name (canonicalize/unpack_del)
            return Undefined(f"name '{node.pyonnx_deleted}' was deleted ('del') at line "
                             f"{node.lineno} (Python raises NameError here)")
        if node.__dict__.get("pyonnx_closure"):
            return local_functions.with_current_values(self, node)
        if node.__dict__.get("pyonnx_append"):
            # lst.append(v), rewritten to lst = lst.append(v) (canonicalize/list_append.py)
            return appends.append(self, self.expr(node.func.value), self.expr(node.args[0]))
        if node.__dict__.get("pyonnx_truth"):  # bool(e) of a comprehension's loop form
            return call(self, bool, [self.expr(node.args[0])], {})
        if node.__dict__.get("pyonnx_flat"):
            # x.flat[i] = v's view x.reshape(-1) (canonicalize/setitem.py): numpy's flat
            # iterator addresses x's elements in C order whatever x's strides, so it is a
            # view of any array (never numpy's view-or-copy reshape)
            node.__dict__["pyonnx_flat"] = False
            state = self.ctx.aliases
            state.flat_view += 1
            try:
                return self.expr(node)
            finally:
                state.flat_view -= 1
                node.__dict__["pyonnx_flat"] = True
        func = self.expr(node.func)
        if len(node.args) in (1, 2) and isinstance(node.args[0], (ast.ListComp, ast.GeneratorExp)) \
                and not node.keywords and _hashable(func) and func in comprehensions.REDUCTIONS:
            # sum/any/all over a comprehension: at run time, an accumulating loop
            start = self.expr(node.args[1]) if len(node.args) == 2 else 0
            reduced, value = comprehensions.comprehension(
                self, node.args[0], comprehensions.REDUCTIONS[func], start)
            if reduced:
                return value
            return call(self, func, [value, *([start] if len(node.args) == 2 else [])], {})
        args: list[Any] = []
        for a in node.args:
            if isinstance(a, ast.Starred):  # f(*items): the items, known at conversion time
                args.extend(self._unpacked(a))
            elif isinstance(a, ast.GeneratorExp):
                args.append(self._generator_argument(func, a))
            else:
                args.append(self.expr(a))
        kwargs: dict[str, Any] = {}
        for kw in node.keywords:
            value = self.expr(kw.value)
            if kw.arg is not None:
                kwargs[kw.arg] = value
                continue
            if not isinstance(value, dict) or not all(isinstance(k, str) for k in value):
                raise self.ctx.error("'**' needs a dict with string keys known at conversion "
                                     "time", self.loc_of(kw.value))
            for k, v in value.items():
                if k in kwargs:
                    raise self.ctx.error(f"got multiple values for keyword argument '{k}'",
                                         self.loc_of(kw.value))
                kwargs[k] = v
        return call(self, func, args, kwargs)

    def _generator_argument(self, func: Any, node: ast.GeneratorExp) -> Any:
        """A generator expression passed to a call: its items as a list, for callees that
        iterate once (builtins, numpy). A Python function may iterate it twice (the second time
        it is empty in Python), so it is refused there."""
        if isinstance(func, (types.FunctionType, types.MethodType,
                             local_functions.LocalFunction)):
            raise self.ctx.error(
                "a generator expression passed to a Python function: it can be iterated once "
                "only; pass a list comprehension [...] instead", self.loc_of(node))
        return comprehensions.comprehension(self, node)[1]

    def call_value(self, func: Any, args: list[Any], kwargs: dict[str, Any]) -> Any:
        """``func(*args, **kwargs)`` on evaluated values (helpers that call back: reduce, map)."""
        return call(self, func, args, kwargs)

    def _unpacked(self, node: ast.Starred) -> list[Any]:
        value = self.expr(node.value)
        prev = self.ctx.loc
        self.ctx.loc = self.loc_of(node)
        try:
            items = iterate(self.ctx, value)
        finally:
            self.ctx.loc = prev
        if isinstance(items, DynamicIter):
            raise self.ctx.error(
                f"'*{ast.unparse(node.value)}' needs a number of items known at conversion time "
                "(a tuple, a static list, an array with a fixed first dimension); pass the "
                "sequence itself", self.loc_of(node))
        return list(items)

    def inline_local(self, fn: local_functions.LocalFunction, args: list[Any],
                     kwargs: dict[str, Any]) -> Any:
        """Inlines a call to a nested function or lambda; its enclosing values are bound as
        locals of its body (Python's closure cells, read now)."""
        name = fn.tree.name
        if fn.tree in self.stack:
            raise self.ctx.error(
                f"recursive call to {name}: an ONNX graph cannot recurse; rewrite it as a loop")
        stale = fn.stale_names()
        if stale:
            raise self.ctx.error(
                f"{name} reads '{stale[0]}', which was rebound after {name} was referenced; "
                f"Python would read the new value: call {name}(...) by its own name after the "
                "assignment")
        try:
            bound = fn.signature.bind(*args, **kwargs)
        except TypeError as e:
            raise self.ctx.error(f"{name}(): {e}") from None
        bound.apply_defaults()
        tree = _local_tree(fn.tree)
        callee = FunctionLowering(self.ctx, None, self.stack, local=(
            fn.frame.src, tree, assigned_names(tree)))
        callee.dynamic_depth = self.dynamic_depth
        values = {**fn.captured, **bound.arguments}
        prev = self.ctx.loc
        try:
            return callee.run({n: v for n, v in values.items()})
        except ConversionError as e:
            raise followed_error(e, prev, None) from None
        finally:
            self.ctx.loc = prev

    def inline(self, fn: types.FunctionType, args: list[Any], kwargs: dict[str, Any]) -> Any:
        """Inlines a call to the user function ``fn`` (Python's argument binding)."""
        if fn.__code__ in self.stack:
            raise self.ctx.error(
                f"recursive call to {fn.__qualname__}: an ONNX graph cannot recurse; rewrite it "
                "as a loop")
        try:
            bound = inspect.signature(fn).bind(*args, **kwargs)
        except TypeError as e:
            raise self.ctx.error(f"{fn.__qualname__}(): {e}") from None
        bound.apply_defaults()
        prev = self.ctx.loc
        try:
            # (reading the callee's source is inside: its syntax check refuses at the caller's
            # line when the callee is library code)
            callee = FunctionLowering(self.ctx, fn, self.stack)
            callee.dynamic_depth = self.dynamic_depth
            return callee.run(dict(bound.arguments))
        except ConversionError as e:
            raise followed_error(e, prev, fn) from None
        finally:
            self.ctx.loc = prev
