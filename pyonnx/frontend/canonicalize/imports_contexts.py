"""Rewrite imports in the body and no-op ``with`` blocks into plain statements.

Input: a FunctionDef. Output: the same, where

* ``import m.n as a`` / ``import m.n`` / ``from m import x as y`` are the assignments
  ``a = <import>()`` / ``m = <import>()`` / ``y = <import>()`` whose calls are marked
  ``pyonnx_import = (module, attribute or None)``: the lowering resolves the module at conversion
  time as a module-level import is (and refuses modules pyonnx does not convert), and liveness
  sees an ordinary binding;
* ``with ctx1, ctx2: body`` is the marked expression statement ``<context>(ctx1, ctx2)``
  (``pyonnx_context``) followed by ``body``: the lowering accepts the contexts that change no
  value (``np.errstate``, ``warnings.catch_warnings``) and refuses the others at the ``with``.

Requires: nothing.
"""

from __future__ import annotations

import ast

__all__ = ["ImportsContextsTransformer", "transform"]


def _marked(origin: ast.AST, args: list[ast.expr], **marks) -> ast.Call:
    call = ast.Call(func=ast.Name(id="_pyonnx_builtin", ctx=ast.Load()), args=args, keywords=[])
    ast.copy_location(call, origin)
    ast.copy_location(call.func, origin)
    for k, v in marks.items():
        setattr(call, k, v)
    return call


def _assign(origin: ast.AST, name: str, value: ast.expr) -> ast.Assign:
    target = ast.copy_location(ast.Name(id=name, ctx=ast.Store()), origin)
    return ast.copy_location(ast.Assign(targets=[target], value=value), origin)


class ImportsContextsTransformer(ast.NodeTransformer):
    def visit_Import(self, node: ast.Import) -> list[ast.stmt]:
        out = []
        for alias in node.names:
            if alias.asname is not None:
                out.append(_assign(node, alias.asname,
                                   _marked(node, [], pyonnx_import=(alias.name, None))))
            else:  # import a.b binds a
                top = alias.name.split(".")[0]
                out.append(_assign(node, top, _marked(node, [], pyonnx_import=(alias.name, ""))))
        return out

    def visit_ImportFrom(self, node: ast.ImportFrom) -> list[ast.stmt]:
        return [_assign(node, alias.asname or alias.name,
                        _marked(node, [], pyonnx_import=("." * node.level + (node.module or ""),
                                                         alias.name)))
                for alias in node.names]

    def visit_With(self, node: ast.With) -> list[ast.stmt]:
        check = _marked(node, [item.context_expr for item in node.items],
                        pyonnx_context=[item.optional_vars for item in node.items])
        body = [self.visit(s) for s in node.body]
        flat: list[ast.stmt] = [ast.copy_location(ast.Expr(value=check), node)]
        for s in body:
            flat.extend(s if isinstance(s, list) else [s])
        return flat


def transform(tree: ast.FunctionDef) -> ast.FunctionDef:
    return ImportsContextsTransformer().visit(tree)
