"""Lift nested ``def`` statements and ``lambda`` expressions out of the function's AST.

Input: a FunctionDef. Output: the same, where

* each nested ``def g(...): ...`` statement is the assignment ``g = <def>(d1, ..., f1, ...)``
  whose call is marked ``pyonnx_def`` (the nested FunctionDef, canonicalized on its own) and
  whose arguments are its default values (evaluated where the ``def`` stands, as Python does)
  followed by the enclosing locals it reads (``pyonnx_free``);
* each ``lambda`` is the same marked call, for the FunctionDef ``def <lambda>(...): return e``;
* each read of a name bound only by such definitions (``g``, ``f = lambda ...``) is the call
  ``g(<closure> x, y)`` marked ``pyonnx_closure``: the function with the current values of the
  enclosing locals its body reads.

Liveness then sees a closure's reads where the function is referenced (a helper called in a loop
reads the loop's current values), and the nested body is not part of the enclosing body (its
names, returns and loops are its own). The lowering (:mod:`pyonnx.frontend.lower.local_functions`)
inlines a call to the function as it inlines a module-level helper.
Requires: nothing; runs first, so every later pass sees one function body at a time.
"""

from __future__ import annotations

import ast

__all__ = ["LocalFunctionTransformer", "transform", "free_names"]


def _params(args: ast.arguments) -> set[str]:
    names = {a.arg for a in args.posonlyargs + args.args + args.kwonlyargs}
    if args.vararg is not None:
        names.add(args.vararg.arg)
    if args.kwarg is not None:
        names.add(args.kwarg.arg)
    return names


def _scope_nodes(body: list[ast.AST]):
    """The nodes of one scope: nested functions and lambdas are not descended into (their
    defaults are), and are yielded themselves."""
    todo = list(body)
    while todo:
        n = todo.pop()
        yield n
        if isinstance(n, (ast.FunctionDef, ast.Lambda)):
            todo.extend(n.args.defaults + [d for d in n.args.kw_defaults if d is not None])
            continue
        todo.extend(ast.iter_child_nodes(n))


def free_names(fn: ast.FunctionDef | ast.Lambda) -> frozenset[str]:
    """Names ``fn``'s body reads from enclosing scopes (its nested functions' included)."""
    body = fn.body if isinstance(fn.body, list) else [fn.body]
    local = _params(fn.args)
    loads: set[str] = set()
    for n in _scope_nodes(body):
        if isinstance(n, ast.Name):
            (loads if isinstance(n.ctx, ast.Load) else local).add(n.id)
        elif isinstance(n, ast.FunctionDef):
            local.add(n.name)
            loads |= free_names(n)
        elif isinstance(n, ast.Lambda):
            loads |= free_names(n)
        elif isinstance(n, ast.comprehension):
            local |= {t.id for t in ast.walk(n.target) if isinstance(t, ast.Name)}
    return frozenset(loads - local)


def _locals(tree: ast.FunctionDef) -> set[str]:
    names = _params(tree.args)
    for n in _scope_nodes(tree.body):
        if isinstance(n, ast.Name) and not isinstance(n.ctx, ast.Load):
            names.add(n.id)
        elif isinstance(n, ast.FunctionDef):
            names.add(n.name)
    return names


class LocalFunctionTransformer(ast.NodeTransformer):
    """Single use: lifts the nested functions of one FunctionDef (see the module docstring)."""

    def __init__(self, tree: ast.FunctionDef):
        self.tree = tree
        self.local_names = _locals(tree)
        if tree.__dict__.get("pyonnx_nested"):
            # a nested function's own closure values are bound as its locals too
            self.local_names |= free_names(tree)
        self.function_names: set[str] = set()
        self.free_of: dict[str, set[str]] = {}
        self.lifted: list[ast.FunctionDef] = []
        self.comprehension_targets: list[set[str]] = []

    def run(self) -> ast.FunctionDef:
        self.function_names = self._names_bound_to_functions()
        self.tree.body = [self.visit(s) for s in self.tree.body]
        self.tree.pyonnx_lifted = self.lifted  # type: ignore[attr-defined]
        return self.tree

    def _names_bound_to_functions(self) -> set[str]:
        """Names whose every binding is a ``def`` or ``name = lambda ...``."""
        defs: set[str] = set()
        other: set[str] = set()
        for n in _scope_nodes(self.tree.body):
            if isinstance(n, ast.FunctionDef):
                defs.add(n.name)
                self.free_of.setdefault(n.name, set()).update(free_names(n))
            elif isinstance(n, ast.Assign) and isinstance(n.value, ast.Lambda) and all(
                    isinstance(t, ast.Name) for t in n.targets):
                defs |= {t.id for t in n.targets}
                for t in n.targets:
                    self.free_of.setdefault(t.id, set()).update(free_names(n.value))
                    t.pyonnx_function_target = True  # type: ignore[attr-defined]
            elif isinstance(n, ast.Name) and not isinstance(n.ctx, ast.Load) and \
                    not n.__dict__.get("pyonnx_function_target"):
                other.add(n.id)
        return defs - other - _params(self.tree.args)

    def _definition(self, fn: ast.FunctionDef, origin: ast.AST, lam: bool) -> ast.Call:
        free = sorted(free_names(fn) & self.local_names)
        defaults = [self.visit(d) for d in fn.args.defaults]
        kw_defaults = [self.visit(d) for d in fn.args.kw_defaults if d is not None]
        call = ast.Call(func=ast.Name(id="_pyonnx_def", ctx=ast.Load()),
                        args=defaults + kw_defaults
                        + [ast.Name(id=n, ctx=ast.Load()) for n in free],
                        keywords=[])
        for n in ast.walk(call):
            ast.copy_location(n, origin)
        # (the nested tree keeps placeholders: its defaults are the call's arguments)
        fn.args.defaults = [ast.Constant(None) for _ in fn.args.defaults]
        fn.args.kw_defaults = [None if d is None else ast.Constant(None)
                               for d in fn.args.kw_defaults]
        fn.pyonnx_nested = True  # type: ignore[attr-defined]
        call.pyonnx_def = fn  # type: ignore[attr-defined]
        self.lifted.append(fn)
        call.pyonnx_free = tuple(free)  # type: ignore[attr-defined]
        call.pyonnx_lambda = lam  # type: ignore[attr-defined]
        late = sorted(free_names(fn) & set().union(*self.comprehension_targets))
        call.pyonnx_late_binding = late[0] if late else None  # type: ignore[attr-defined]
        return call

    def visit_FunctionDef(self, node: ast.FunctionDef) -> ast.stmt:
        call = self._definition(node, node, lam=False)
        target = ast.copy_location(ast.Name(id=node.name, ctx=ast.Store()), node)
        return ast.copy_location(ast.Assign(targets=[target], value=call), node)

    def visit_Lambda(self, node: ast.Lambda) -> ast.expr:
        body = ast.copy_location(ast.Return(value=node.body), node.body)
        fn = ast.FunctionDef(name="<lambda>", args=node.args, body=[body], decorator_list=[],
                             returns=None, type_params=[])
        ast.copy_location(fn, node)
        return self._definition(fn, node, lam=True)

    def _comprehension(self, node: ast.AST) -> ast.AST:
        self.comprehension_targets.append({t.id for g in node.generators for t in ast.walk(g.target)
                                           if isinstance(t, ast.Name)})
        try:
            return self.generic_visit(node)
        finally:
            self.comprehension_targets.pop()

    visit_ListComp = visit_GeneratorExp = visit_DictComp = visit_SetComp = _comprehension

    def visit_Name(self, node: ast.Name) -> ast.expr:
        if not isinstance(node.ctx, ast.Load) or node.id not in self.function_names:
            return node
        # g → g(<closure> free...): the function with the enclosing values it reads now.
        free = sorted(self.free_of[node.id] & self.local_names)
        call = ast.Call(func=node, args=[ast.Name(id=n, ctx=ast.Load()) for n in free],
                        keywords=[])
        for n in ast.walk(call):
            ast.copy_location(n, node)
        call.pyonnx_closure = True  # type: ignore[attr-defined]
        call.pyonnx_free = tuple(free)  # type: ignore[attr-defined]
        return call


def transform(tree: ast.FunctionDef) -> ast.FunctionDef:
    """Lifts ``tree``'s nested functions; they are listed in ``tree.pyonnx_lifted``, for the
    caller to canonicalize each on its own."""
    return LocalFunctionTransformer(tree).run()
