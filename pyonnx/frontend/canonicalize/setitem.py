"""Rewrite item assignment ``x[i] = v`` into the rebinding ``x = <setitem>(x, i, v)``.

Input: a FunctionDef with no AugAssign (``x[i] += v`` is already ``x[i] = x[i] + v``).
Output: the same where every assignment to a subscript whose innermost base is a name ``x``
(``x[i]``, ``x[i][j]``, ``x.T[0]``) is ``x = CALL(target, index, value)``; the call is marked
``pyonnx_setitem`` and carries the root name in ``pyonnx_root``. Liveness then sees a new
definition of ``x`` (a write in a loop makes ``x`` loop state; beniget, for one, would count
it as a use). The lowering writes through the target's view chain and rebinds every name of
the same memory (:mod:`pyonnx.frontend.lower.aliases`), then evaluates ``x`` again.

An assignment with several targets (``a[0] = b = v``) first binds the value to a fresh name,
as Python evaluates it once. A write through ``x.flat`` (``x.flat[i] = v``) writes through the
flat view ``x.reshape(-1)`` bound to a fresh name: numpy's flat iterator writes into ``x`` in
C order, which is what a write through that view does (numpy's reshape of a non-contiguous
view is a copy: the lowering refuses a write through it). Targets rooted in an attribute (``self.w[0] = v``) are left for
the lowering to refuse.
Requires: augassign.
"""

from __future__ import annotations

import ast
import itertools

from pyonnx.frontend.canonicalize.templates import FLAG_PREFIX, located

__all__ = ["SetItemTransformer", "transform", "root_name"]


def root_name(target: ast.expr) -> str | None:
    """The name at the bottom of a subscript/attribute chain (``x`` in ``x.T[0][1]``)."""
    node = target
    while isinstance(node, (ast.Subscript, ast.Attribute)):
        if isinstance(node, ast.Attribute) and not isinstance(node.value, (ast.Name,
                                                                           ast.Subscript)):
            return None
        node = node.value
    return node.id if isinstance(node, ast.Name) else None


class SetItemTransformer(ast.NodeTransformer):
    """Single use: numbers the temporaries of multi-target assignments."""

    def __init__(self):
        self._ids = itertools.count(1)

    def visit_Assign(self, node: ast.Assign) -> ast.AST | list[ast.stmt]:
        if not any(isinstance(t, ast.Subscript) for t in node.targets):
            return node
        if len(node.targets) > 1:
            tmp = f"{FLAG_PREFIX}value_{next(self._ids)}"
            out: list[ast.stmt] = located([ast.Assign(
                targets=[ast.Name(id=tmp, ctx=ast.Store())], value=node.value)], node)
            for t in node.targets:
                single = located([ast.Assign(targets=[t], value=ast.Name(id=tmp,
                                                                          ctx=ast.Load()))], t)
                out.append(self.visit_Assign(single[0]))
            return out
        target = node.targets[0]
        if isinstance(target, ast.Subscript) and isinstance(target.value, ast.Attribute) \
                and target.value.attr == "flat":
            return self._flat_write(node, target)
        root = root_name(target) if isinstance(target, ast.Subscript) else None
        if root is None or _attribute_in_chain(target):
            return node
        call = ast.Call(func=ast.Name(id=f"{FLAG_PREFIX}setitem", ctx=ast.Load()),
                        args=[target.value, target.slice, node.value], keywords=[])
        call.pyonnx_setitem = True  # type: ignore[attr-defined]
        call.pyonnx_root = located([ast.Name(id=root, ctx=ast.Load())], target)[0]  # type: ignore[attr-defined]
        store = ast.Name(id=root, ctx=ast.Store())
        # x[i] = v does not make x local in Python: scope analysis skips this binding.
        store.pyonnx_setitem_root = True  # type: ignore[attr-defined]
        new = ast.Assign(targets=[store], value=call)
        return located([new], target)[0]


    def _flat_write(self, node: ast.Assign, target: ast.Subscript) -> list[ast.stmt]:
        """``x.flat[i] = v`` → ``t = x.reshape(-1); t[i] = v``."""
        tmp = f"{FLAG_PREFIX}flat_{next(self._ids)}"
        view = ast.Call(func=ast.Attribute(value=target.value.value, attr="reshape",
                                           ctx=ast.Load()),
                        args=[ast.Constant(value=-1)], keywords=[])
        view.pyonnx_flat = True  # a view of any array (lower/function.py)
        bind = located([ast.Assign(targets=[ast.Name(id=tmp, ctx=ast.Store())], value=view)],
                       target)
        write = located([ast.Assign(targets=[ast.Subscript(
            value=ast.Name(id=tmp, ctx=ast.Load()), slice=target.slice, ctx=ast.Store())],
            value=node.value)], node)
        return bind + [self.visit_Assign(write[0])]


def _attribute_in_chain(target: ast.Subscript) -> bool:
    """``self.w[0] = v``: an attribute of something other than an array's view attribute
    (``z.real[i] = v``/``z.imag[i] = v`` on a name is a write into a part: complex_writes)."""
    node: ast.expr = target
    if isinstance(target.value, ast.Attribute) and target.value.attr in ("real", "imag") \
            and isinstance(target.value.value, ast.Name):
        return False
    while isinstance(node, (ast.Subscript, ast.Attribute)):
        if isinstance(node, ast.Attribute) and node.attr not in ("T", "mT"):
            return True
        node = node.value
    return False


def transform(tree: ast.FunctionDef) -> ast.FunctionDef:
    return SetItemTransformer().visit(tree)
