"""numpy's memory order of the arrays a function makes: whether ``a.reshape(...)`` is a view.

numpy reshapes (``reshape``, ``ravel``) return a view of a C-contiguous array and, for other
layouts, a view or a copy depending on the strides. Elementwise ufuncs, ``np.where``,
``astype``, ``np.copy``, ``np.array``, ``*_like``, reductions and most other functions keep their
input's memory order (order='K'): ``np.cosh(x.T)`` is Fortran-ordered, so its ``reshape(-1)``
is a copy. This module answers, for one Array that is the whole of its memory (not a view),
whether numpy's array is known to be C-contiguous; when it is not known, the aliasing rules
(:mod:`pyonnx.frontend.lower.aliases`) treat its reshape as "a view or a copy": the values are
the same either way, and a write that could tell them apart is refused (or follows the copy
meaning where nothing can see the difference).

Input: an Array and the conversion's ``AliasState`` (``ctx.aliases``). Output: a bool.

The analysis walks the graph that computes the value, backwards: a ``Transpose`` (``.T``,
``swapaxes``, ``moveaxis``, ``np.transpose``) may leave a non-C order, and every op passes on
its inputs' order, except the ones numpy always allocates in C order (``@``/``np.dot``,
``x.copy()``, ``np.ascontiguousarray``: :func:`mark_c_order`). Values of rank <= 1, or with at
most one dimension that is not 1, are always C-contiguous once they are a whole array (numpy
allocates 1-D results contiguously). Function parameters are the caller's arrays: they are
taken as C-contiguous, numpy's default, and where a write depends on it the call checks it
(``OutputStructure.contiguous``: a Fortran-ordered or strided argument is refused at the call).
A loop's carried value inside its body is not known.
"""

from __future__ import annotations

from typing import Any

from pyonnx.frontend.graph.values import Array

__all__ = ["mark_c_order", "maybe_not_c", "strided", "C_ORDER_OPS"]

# Ops whose numpy counterparts allocate their result in C order whatever their inputs' order
# (matmul, dot, the creation functions with their default order='C').
C_ORDER_OPS = frozenset({
    "MatMul", "Gemm", "MatMulInteger", "Range", "ConstantOfShape", "Constant", "Shape", "Size",
    "EyeLike", "RandomUniform", "RandomNormal", "RandomUniformLike", "RandomNormalLike",
    "OneHot", "NonZero",
})


def mark_c_order(ctx, a: Array) -> Array:
    """Records that ``a`` (a new value, not an argument's) is C-ordered in numpy
    (``x.copy()``, ``np.ascontiguousarray``)."""
    ctx.aliases.c_order.add(a.value)
    return a


def maybe_not_c(ctx, a: Array, assumed: set | None = None) -> bool:
    """Whether numpy's array for ``a`` (the whole of its memory) may not be C-contiguous.

    ``assumed`` collects the names of the parameters taken as C-contiguous for a False answer
    (the call checks them: see ``OutputStructure.contiguous``)."""
    state = ctx.aliases
    assumed = set() if assumed is None else assumed
    if a.value in state.param_values:  # (a strided 1-D argument is no contiguous array)
        assumed.add(state.param_values[a.value])
        return False
    if strided(a.value):
        return True
    if _few_dims(a.shape):
        return False
    # (a value's answer never changes: the graph is SSA and marks are made with the value)
    cached = state.layout_cache.get(a.value)
    if cached is None:
        found: set = set()
        cached = state.layout_cache[a.value] = (_walk(state, a.value, {}, {}, found),
                                                frozenset(found))
    assumed |= cached[1]
    return cached[0]


def _few_dims(shape: Any) -> bool:
    """At most one dimension that is not 1 (None: unknown): contiguous in every order."""
    if shape is None:
        return False
    dims = list(shape)
    return sum(1 for d in dims if not (isinstance(d, int) and d == 1)) <= 1


def _value_dims(v: Any) -> Any:
    shape = getattr(v, "shape", None)
    if shape is None:
        return None
    return [d if isinstance(d, int) else None for d in shape]


def _walk(state, v: Any, seen: dict, links: dict, assumed: set) -> bool:
    """``seen``: id(value) -> answer (False while in progress); ``links``: id(a Loop body's
    state input) -> the values it takes (the Loop's entry value, the body's next value)."""
    if v is None:
        return False
    hit = seen.get(id(v))
    if hit is not None:
        return hit
    final = state.layout_cache.get(v)
    if final is not None:
        assumed |= final[1]
        return final[0]
    # Optimistic on cycles (a Loop's state through its body): the answer is True only if
    # some path reaches a non-C source.
    seen[id(v)] = False
    result = _decide(state, v, seen, links, assumed)
    seen[id(v)] = result
    return result


def strided(v: Any) -> bool:
    """Whether ``v`` is marked as numpy's strided view of a hidden buffer (``np.nonzero`` of
    an array of rank >= 2): not contiguous though it is a whole array here, even 1-D."""
    node = v.producer() if hasattr(v, "producer") else None
    return node is not None and bool(node.meta.get("pyonnx.strided"))


def _decide(state, v: Any, seen: dict, links: dict, assumed: set) -> bool:
    if strided(v):
        return True
    if v in state.c_order or _few_dims(_value_dims(v)):
        return False
    if v in state.follows:
        return _walk(state, state.follows[v], seen, links, assumed)
    node = v.producer()
    if node is None:
        if v in state.param_values:
            assumed.add(state.param_values[v])  # an argument: taken as C-ordered, checked
            return False
        if v.const_value is not None:
            return False
        if id(v) in links:
            return any(_walk(state, o, seen, links, assumed) for o in links[id(v)])
        return True  # a subgraph's input: a Loop's carried value inside its body
    op = node.op_type
    if op in C_ORDER_OPS and not node.domain:
        return False
    if op == "Transpose" and not node.domain:
        perm = node.attributes.get("perm")
        perm = list(perm.as_ints()) if perm is not None else None
        if perm is None or perm != sorted(perm):
            return True
    if op in ("Gather", "Compress") and not node.domain:
        # numpy's advanced indexing after a slice (x[:, idx], x[:, mask]) iterates the
        # indexed axis outermost: its result is not C-ordered (np.take(x, i, axis=1) is)
        axis = node.attributes.get("axis")
        if axis is not None and axis.as_int() != 0:
            return True
    index = list(node.outputs).index(v)
    if op == "If":
        return any(_walk(state, _branch_output(node, name, index), seen, links, assumed)
                   for name in ("then_branch", "else_branch"))
    if op == "Loop":
        body = node.attributes["body"].as_graph()
        n_states = len(node.inputs) - 2
        for k in range(n_states):
            links[id(body.inputs[k + 2])] = (node.inputs[k + 2], body.outputs[k + 1])
        outs = [body.outputs[index + 1]]
        if index < n_states:
            outs.append(node.inputs[index + 2])
        return any(_walk(state, o, seen, links, assumed) for o in outs)
    if any(a.name in ("then_branch", "else_branch", "body") for a in node.attributes.values()):
        return True  # another op with subgraphs (Scan): not followed
    return any(_walk(state, i, seen, links, assumed) for i in node.inputs)


def _branch_output(node: Any, name: str, index: int) -> Any:
    graph = node.attributes[name].as_graph()
    return graph.outputs[index]
