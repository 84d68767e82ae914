"""The type structure of values that cross control flow: what an ``If`` output or a ``Loop``
state is made of, and how two paths' types join.

Input: frontend values (Arrays, Python numbers, tuples and lists of them, other static values).
Output: a :data:`Plan` per value, the join of two plans (both branches of an ``if``, a loop's
entry and its body's exit), and the conversion between values and the flat list of Arrays a
plan describes (the ``If`` outputs or ``Loop`` state, in order).

Joining follows numpy where one type can stand for both without changing a result:
* the same dtype joins to itself; dimensions that differ become run-time dimensions (the rank
  must agree);
* a Python number joins an array whose dtype numpy keeps when combining them (``0`` with a
  float32 array is float32; a Python float with an int32 array is refused);
* Python ``int`` and ``float`` join to a Python ``float``;
* in a loop, an entry value whose dtype casts safely to the dtype an iteration gives it is
  promoted (``s = np.int32(0)`` accumulating float64 values carries a float64); the other way
  round (an iteration narrowing the type) is refused: numpy's result dtype would depend on the
  trip count;
* anything else is an error that names both types.
"""

from __future__ import annotations

import dataclasses
from typing import Any, Iterator

import numpy as np

from pyonnx.frontend.graph import complex_kinds, dtypes
from pyonnx.frontend.graph.complex_values import Complex, memory_note, parts, real_dtype
from pyonnx.frontend.graph.optional import Maybe
from pyonnx.frontend.graph.records import ComplexSeq, Records
from pyonnx.frontend.graph.values import Array, Seq, Undefined, is_static

__all__ = ["Leaf", "Static", "Tree", "OptPlan", "optional_join", "optional_array_join", "SeqPlan", "ComplexPlan", "Plan", "plan_of", "join", "kind_changed", "mixes_python_scalar", "JoinError", "leaves_of",
           "rebuild", "placeholder", "leaf_plans", "number_leaf", "is_number", "PYTHON_NUMBERS"]

PYTHON_NUMBERS = (bool, int, float)


@dataclasses.dataclass(frozen=True)
class Leaf:
    """One graph value: its dtype, static shape (None = run-time dimension) and weakness."""

    dtype: np.dtype
    shape: tuple[int | None, ...]
    weak: bool = False


@dataclasses.dataclass(frozen=True)
class Static:
    """A conversion-time value, the same on every path."""

    value: Any

    def __eq__(self, other: object) -> bool:
        return isinstance(other, Static) and _same_static(self.value, other.value)

    def __hash__(self) -> int:
        return id(type(self.value))


@dataclasses.dataclass(frozen=True)
class Tree:
    """A tuple, list or dict holding graph values (a dict's ``keys``, in order, name its
    children; a dict's key order is part of its type: a returned dict shows it)."""

    kind: type
    children: tuple
    keys: tuple | None = None


@dataclasses.dataclass(frozen=True)
class SeqPlan:
    """A list whose length differs between paths: an ONNX sequence of one element type."""

    dtype: np.dtype
    shape: tuple[int | None, ...]
    weak: bool | None = False  # as Seq.weak: Python numbers, numpy values, or mixed (None)


@dataclasses.dataclass(frozen=True)
class ComplexPlan:
    """A complex value (graph/complex_values.Complex): carried as two real leaves of
    ``real_dtype(dtype)`` (real part, imaginary part), never as an ONNX complex tensor."""

    dtype: np.dtype
    shape: tuple[int | None, ...]
    weak: bool = False
    # complex_values.memory_note on some path, and Complex.mem on every path (the buffers
    # it may be): not part of the type (a loop's types settle whatever buffers it makes)
    shared: str = dataclasses.field(default="", compare=False)
    mem: frozenset = dataclasses.field(default=frozenset(), compare=False)
    param: str | None = dataclasses.field(default=None, compare=False)  # Complex.param
    # a 0-d value's numpy kind (graph/complex_kinds): compared, so that a loop whose
    # iterations change it is lowered again with "unknown"
    zero_d: str | None = None


@dataclasses.dataclass(frozen=True)
class RecordsPlan:
    """A list of k-tuples whose length differs between paths (graph/records.Records): one
    sequence per field."""

    fields: tuple[SeqPlan, ...]


@dataclasses.dataclass(frozen=True)
class OptPlan:
    """A 0-d number that may be None (graph/optional.Maybe): carried as a bool leaf (has a
    value) and the number's leaf (a ComplexPlan for a complex number: its two parts)."""

    leaf: "Leaf | ComplexPlan"


Plan = Leaf | Static | Tree | SeqPlan | ComplexPlan | OptPlan | RecordsPlan


class JoinError(Exception):
    """Two paths give a variable types that no single ONNX type can carry.

    Attributes:
        first, second: the two types, described ("a float32 array of shape (?,)").
        hint: why they cannot join, or what to write instead.
    """

    def __init__(self, first: str, second: str, hint: str = ""):
        super().__init__(f"{first} / {second}: {hint}")
        self.first, self.second, self.hint = first, second, hint


def _same_static(a: Any, b: Any) -> bool:
    if a is b:
        return True
    if type(a) is not type(b):
        return False
    if isinstance(a, np.ndarray):
        return a.dtype == b.dtype and a.shape == b.shape and bool(np.array_equal(a, b))
    try:
        return bool(a == b)
    except Exception:
        return False


def is_number(v: Any) -> bool:
    return (type(v) in PYTHON_NUMBERS or isinstance(v, np.generic)) and \
        np.dtype(type(v) if not isinstance(v, np.generic) else v.dtype).kind in "biuf"


def plan_of(value: Any) -> Plan:
    """The plan of one value (numbers are Static: they stay Python values while paths agree)."""
    if isinstance(value, Array):
        return Leaf(value.dtype, value.shape, value.weak)
    if isinstance(value, Seq):
        return SeqPlan(value.dtype, value.shape, value.weak)
    if isinstance(value, ComplexSeq):  # a run-time list of complex values: two sequences
        return SeqPlan(np.dtype(value.dtype), value.shape, value.weak)
    if isinstance(value, Maybe):
        if isinstance(value.value, Complex):
            return OptPlan(ComplexPlan(value.value.dtype, value.value.shape, value.value.weak))
        return OptPlan(Leaf(value.value.dtype, value.value.shape, value.value.weak))
    if isinstance(value, Records):
        return RecordsPlan(tuple(SeqPlan(f.dtype, f.shape, f.weak) for f in value.fields))
        # (a complex field, records.ComplexSeq: a SeqPlan of complex dtype, two sequences)
    if isinstance(value, Complex):
        return ComplexPlan(value.dtype, value.shape, value.weak, memory_note(value), value.mem,
                           value.param, complex_kinds.kind(value))
    if isinstance(value, (tuple, list)) and not is_static(value):
        return Tree(type(value), tuple(plan_of(v) for v in value))
    if type(value) is dict and not all(is_static(v) for v in value.values()):
        return _dict_tree(value)
    return Static(value)


def _dict_tree(value: dict) -> Tree:
    return Tree(dict, tuple(plan_of(v) for v in value.values()), tuple(value))


def _items(value: Any, plan: Tree) -> list:
    """The children of a tuple, list or dict value in ``plan``'s order."""
    return [value[k] for k in plan.keys] if plan.kind is dict else list(value)


def _make(plan: Tree, children: Iterator[Any]) -> Any:
    if plan.kind is dict:
        return dict(zip(plan.keys, children))
    return plan.kind(children)


def _is_array_constant(v: Any) -> bool:
    """A numpy array computed at conversion time (``np.zeros(3)``), which joins a graph
    value of its dtype and shape."""
    return isinstance(v, np.ndarray) and v.dtype.kind in "biuf"


def number_leaf(v: Any) -> Leaf:
    """The plan of a number as a graph value (a Python number is weak, a numpy scalar not)."""
    if isinstance(v, np.generic):
        return Leaf(v.dtype, ())
    return Leaf(dtypes.default_dtype_of_scalar(v), (), weak=True)


def _describe(p: Plan) -> str:
    if isinstance(p, Leaf):
        kind = {"b": "bool", "i": "int", "u": "int", "f": "float"}[p.dtype.kind]
        if p.weak:
            return f"a Python {kind}"
        dims = ",".join("?" if d is None else str(d) for d in p.shape)
        article = "an" if str(p.dtype)[0] in "aeiou" else "a"
        return f"{article} {p.dtype} array of shape ({dims}{',' if len(p.shape) == 1 else ''})"
    if isinstance(p, Tree) and p.kind is dict:
        return f"a dict with keys {list(p.keys)}"
    if isinstance(p, Tree):
        return f"a {p.kind.__name__} of {len(p.children)} items"
    if isinstance(p, SeqPlan):
        return f"a list of {p.dtype} arrays"
    if isinstance(p, ComplexPlan):
        dims = ",".join("?" if d is None else str(d) for d in p.shape)
        return "a Python complex" if p.weak else f"a {p.dtype} array of shape ({dims})"
    if isinstance(p, OptPlan):
        return f"None or {_describe(p.leaf)}"
    if isinstance(p, RecordsPlan):
        return f"a list of {len(p.fields)}-tuples"
    return repr(p.value)


def _number_or_none(p: Plan) -> Leaf | ComplexPlan | None | bool:
    """The Leaf (ComplexPlan for a complex one) of a 0-d number plan, None for the plan of
    None, False for anything else."""
    if isinstance(p, OptPlan):
        return p.leaf
    if isinstance(p, Static) and p.value is None:
        return None
    complex_plan = _as_complex_plan(p)
    if complex_plan is not None:  # (memory notes dropped: a 0-d item read is a copy)
        return ComplexPlan(complex_plan.dtype, (), complex_plan.weak) \
            if complex_plan.shape == () else False
    if isinstance(p, Static) and is_number(p.value):
        return number_leaf(p.value)
    if isinstance(p, Leaf) and p.shape == ():
        return p
    return False


def optional_join(a: Plan, b: Plan, loop: bool) -> OptPlan | None:
    """The plan of a name that is None on one path (or before an iteration) and a 0-d number
    on the other (the "not found yet" sentinel), or None when ``a``/``b`` are not that."""
    la, lb = _number_or_none(a), _number_or_none(b)
    if la is False or lb is False or (la is None and lb is None):
        return None
    if not (isinstance(a, OptPlan) or isinstance(b, OptPlan) or la is None or lb is None):
        return None
    if la is None or lb is None:
        leaf = la or lb
    elif isinstance(la, ComplexPlan) != isinstance(lb, ComplexPlan):
        return None  # a real number on one path, a complex one on the other
    elif isinstance(la, ComplexPlan):
        joined = _join_complex(la, lb, loop)
        return OptPlan(ComplexPlan(joined.dtype, joined.shape, joined.weak))
    else:
        leaf = _join_leaves(la, lb, loop)
    # (the leaf's shape: () for a number, an array's for a returned one, optional_array_join)
    if isinstance(leaf, ComplexPlan):
        return OptPlan(ComplexPlan(leaf.dtype, leaf.shape, leaf.weak))
    return OptPlan(Leaf(leaf.dtype, leaf.shape, leaf.weak))


def optional_array_join(a: Plan, b: Plan, loop: bool) -> OptPlan | None:
    """The plan of a returned value that is None on one path and an array on the other
    (``if not keep.any(): return None`` before ``return boxes[keep]``), or None when ``a``/``b``
    are not that: an OptPlan whose leaf has the array's rank (its dimensions joined)."""
    def leaf_of(p: Plan) -> Plan | bool | None:
        if isinstance(p, OptPlan):
            return p.leaf
        if isinstance(p, Static) and p.value is None:
            return None
        return p if isinstance(p, (Leaf, ComplexPlan)) else False
    la, lb = leaf_of(a), leaf_of(b)
    if la is False or lb is False or (la is None and lb is None):
        return None
    try:
        leaf = la if lb is None else lb if la is None else join(la, lb, loop)
    except JoinError:
        return None
    return OptPlan(leaf) if isinstance(leaf, (Leaf, ComplexPlan)) else None


def _list_items(p: Plan) -> list[Plan] | None:
    """The item plans of a list-valued plan (a Python list or a run-time one), else None."""
    if isinstance(p, Static) and type(p.value) is list:
        return [plan_of(v) for v in p.value]
    if isinstance(p, Tree) and p.kind is list:
        return list(p.children)
    return None


def _join_list(a: Plan, b: Plan) -> SeqPlan:
    """Two lists of different lengths (or a list and a run-time list) as one ONNX sequence."""
    joined = _join_complex_field(a, b, any_rank=True)  # (complex items: lower/complex_lists)
    if joined is not None:
        return joined
    items: list[Plan] = []
    seqs: list[SeqPlan] = []
    for p in (a, b):
        if isinstance(p, SeqPlan):
            seqs.append(p)
        else:
            items.extend(_list_items(p) or [])
    elems: list[Leaf] = [Leaf(q.dtype, q.shape) for q in seqs]
    kinds: set[bool | None] = {q.weak for q in seqs}
    for q in items:
        if isinstance(q, Static) and is_number(q.value):
            q = number_leaf(q.value)
        if not isinstance(q, Leaf):
            raise JoinError(_describe(a), _describe(b), "a list whose length is only known at "
                            "run time must hold arrays or numbers: append an array of the "
                            "fields (np.array([x, y])) or keep one list per field")
        elems.append(q)
        kinds.add(q.weak)
    if not elems:
        raise JoinError("an empty list", "an empty list", "")
    elem = elems[0]
    for q in elems[1:]:
        elem = _join_leaves(elem, q, False)
    weak = kinds.pop() if len(kinds) == 1 else None
    return SeqPlan(elem.dtype, elem.shape, weak)


def _tuple_items(p: Plan) -> list[tuple] | None:
    """The items of a list plan as tuples of plans, when every item is a tuple."""
    items = _list_items(p)
    if items is None:
        return None
    out = []
    for q in items:
        if isinstance(q, Static) and type(q.value) is tuple:
            q = Tree(tuple, tuple(plan_of(v) for v in q.value))
        if not (isinstance(q, Tree) and q.kind is tuple):
            return None
        out.append(q.children)
    return out


def _join_records(a: Plan, b: Plan) -> RecordsPlan | None:
    """Two lists of tuples of different lengths (or a RecordsPlan) as one sequence per field;
    None when ``a``/``b`` are not that (an empty Python list joins a list of tuples)."""
    sides = []
    for p in (a, b):
        if isinstance(p, RecordsPlan):
            sides.append(p)
            continue
        items = _tuple_items(p)
        if items is None:
            return None
        sides.append(items)
    arity = {len(s.fields) if isinstance(s, RecordsPlan) else len(t)
             for s in sides for t in (s if isinstance(s, list) else [s])}
    if not arity:
        return None  # two empty lists
    if not any(isinstance(s, RecordsPlan) for s in sides) and \
            len(sides[0]) == len(sides[1]) and len(sides[0]) != 0:
        return None  # lists of one length: a Tree of tuples
    if len(arity) != 1:
        raise JoinError(_describe(a), _describe(b), "a list of tuples built at run time holds "
                        "tuples of one length")
    k = arity.pop()
    fields = []
    for j in range(k):
        per_side: list[Plan] = []
        for s in sides:
            if isinstance(s, RecordsPlan):
                per_side.append(s.fields[j])
            else:
                per_side.append(Tree(list, tuple(t[j] for t in s)))
        try:
            joined = _join_complex_field(per_side[0], per_side[1])
            fields.append(joined if joined is not None else
                          _join_list(per_side[0], per_side[1]))
        except JoinError as e:
            raise JoinError(_describe(a), _describe(b), f"item {j} of the tuples: {e.hint}")
    return RecordsPlan(tuple(fields))


def _join_complex_field(a: Plan, b: Plan, any_rank: bool = False) -> SeqPlan | None:
    """A field of complex items of a list of tuples built at run time (records.ComplexSeq):
    a SeqPlan of their complex dtype; its items must be 0-d and of one type (Python list
    items keep their types: a complex64 next to a complex128 or a Python complex would read
    back differently). None when no item is complex. ``any_rank``: a list of complex arrays
    (lower/complex_lists), whose items have one rank."""
    items: list[Plan] = []
    for p in (a, b):
        if isinstance(p, SeqPlan):
            items.append(p)
        else:
            items.extend(_list_items(p) or [])
    complex_items = [q for q in items if (isinstance(q, SeqPlan) and q.dtype.kind == "c")
                     or _as_complex_plan(q) is not None]
    if not complex_items:
        return None
    kinds, ranks, shape = set(), set(), None
    for q in items:
        c = q if isinstance(q, SeqPlan) and q.dtype.kind == "c" else _as_complex_plan(q)
        if c is None and any_rank:
            raise JoinError(_describe(a), _describe(b), "a list built at run time holds one "
                            "type of item: complex values next to real ones would keep their "
                            "own types in numpy's list; convert them (np.complex128(v))")
        if c is None or c.shape != () and not any_rank:
            raise JoinError(_describe(a), _describe(b), "a list of tuples built at run time "
                            "holds complex numbers (0-d) of one type in a field, not arrays "
                            "or real numbers next to them")
        kinds.add((np.dtype(c.dtype), bool(c.weak)))
        ranks.add(len(c.shape))
        shape = tuple(c.shape) if shape is None else tuple(
            x if x == y else None for x, y in zip(shape, c.shape))
    if len(kinds) != 1:
        raise JoinError(_describe(a), _describe(b), "the complex items have different types "
                        "(complex64, complex128, Python complex); convert them to one "
                        "(np.complex128(v))")
    if len(ranks) != 1:
        raise JoinError(_describe(a), _describe(b), "the complex items of a list built at run "
                        "time have different ranks: an ONNX sequence holds one rank")
    dtype, weak = kinds.pop()
    return SeqPlan(dtype, shape, weak)


def join(a: Plan, b: Plan, loop: bool = False) -> Plan:
    """The plan that can carry both ``a`` and ``b`` (with ``loop``: ``a`` is a loop's entry or
    state type and ``b`` the type after an iteration).

    Raises:
        JoinError: no such plan (different ranks, dtypes numpy would keep apart, structures).
    """
    if isinstance(a, OptPlan) != isinstance(b, OptPlan) and (
            isinstance(a, OptPlan) and isinstance(a.leaf, ComplexPlan)
            or isinstance(b, OptPlan) and isinstance(b.leaf, ComplexPlan)):
        joined = optional_join(a, b, loop)  # a possibly-None complex number
        if joined is None:
            raise JoinError(_describe(a), _describe(b))
        return joined
    if isinstance(a, ComplexPlan) or isinstance(b, ComplexPlan) or (
            _complex_static(a) and _complex_static(b) and a != b):
        return _join_complex(a, b, loop)  # (before a == b: memory notes join too)
    if a == b:
        return a
    if isinstance(a, OptPlan) or isinstance(b, OptPlan):
        joined = optional_join(a, b, loop)
        if joined is None:
            raise JoinError(_describe(a), _describe(b))
        return joined
    records = _join_records(a, b)
    if records is not None:
        return records
    if (isinstance(a, SeqPlan) or _list_items(a) is not None) and (
            isinstance(b, SeqPlan) or _list_items(b) is not None) and (
            isinstance(a, SeqPlan) or isinstance(b, SeqPlan)
            or len(_list_items(a) or ()) != len(_list_items(b) or ())):
        return _join_list(a, b)
    if isinstance(a, Static) and _is_array_constant(a.value) and not isinstance(b, Static):
        return join(Leaf(a.value.dtype, a.value.shape), b, loop)
    if isinstance(b, Static) and _is_array_constant(b.value) and not isinstance(a, Static):
        return join(a, Leaf(b.value.dtype, b.value.shape), loop)
    if isinstance(a, Static) and isinstance(b, Static) and type(a.value) is dict is \
            type(b.value):
        return join(_dict_tree(a.value), _dict_tree(b.value), loop)
    if isinstance(a, Static) and isinstance(b, Static) and type(a.value) in (tuple, list) and \
            type(a.value) is type(b.value) and len(a.value) == len(b.value):
        # item by item: (False, 1.5) on one path, (True, 2.5) on the other
        return join(Tree(type(a.value), tuple(plan_of(v) for v in a.value)),
                    Tree(type(b.value), tuple(plan_of(v) for v in b.value)), loop)
    if isinstance(a, Static) and isinstance(b, Static):
        if is_number(a.value) and is_number(b.value):
            return join(number_leaf(a.value), number_leaf(b.value), loop)
        if callable(a.value) and callable(b.value):
            raise JoinError(_describe(a), _describe(b), "a function chosen at run time cannot be "
                            "converted; define one function and put the 'if' inside it")
        raise JoinError(_describe(a), _describe(b))
    if isinstance(a, Static) and isinstance(b, Leaf) and is_number(a.value):
        return join(number_leaf(a.value), b, loop)
    if isinstance(b, Static) and isinstance(a, Leaf) and is_number(b.value):
        return join(a, number_leaf(b.value), loop)
    if isinstance(a, Leaf) and isinstance(b, Leaf):
        return _join_leaves(a, b, loop)
    if isinstance(a, Static) and type(a.value) is dict and isinstance(b, Tree):
        return join(_dict_tree(a.value), b, loop)
    if isinstance(b, Static) and type(b.value) is dict and isinstance(a, Tree):
        return join(a, _dict_tree(b.value), loop)
    if isinstance(a, Tree) and isinstance(b, Tree) and a.kind is dict is b.kind and \
            a.keys != b.keys:
        raise JoinError(_describe(a), _describe(b), "a dict has one set of keys, in one "
                        "order, on every path: bind the same keys in the same order on both "
                        "(a missing one with a placeholder value)")
    if isinstance(a, Tree) and isinstance(b, Tree) and a.kind is b.kind and \
            len(a.children) == len(b.children):
        if a.kind is dict:
            return Tree(dict, tuple(join(x, y, loop) for x, y in zip(a.children, b.children)),
                        a.keys)
        return Tree(a.kind, tuple(join(x, y, loop) for x, y in zip(a.children, b.children)))
    if isinstance(a, Tree) and isinstance(b, Static) and isinstance(b.value, a.kind) and \
            len(b.value) == len(a.children):
        return join(a, Tree(a.kind, tuple(plan_of(v) for v in b.value)), loop)
    if isinstance(b, Tree) and isinstance(a, Static) and isinstance(a.value, b.kind) and \
            len(a.value) == len(b.children):
        return join(Tree(b.kind, tuple(plan_of(v) for v in a.value)), b, loop)
    raise JoinError(_describe(a), _describe(b))


def _complex_static(p: Plan) -> bool:
    return isinstance(p, Static) and (isinstance(p.value, complex) or isinstance(
        p.value, (np.generic, np.ndarray)) and p.value.dtype.kind == "c")


def _as_complex_plan(p: Plan) -> ComplexPlan | None:
    if isinstance(p, ComplexPlan):
        return p
    if _complex_static(p):
        v = p.value
        if isinstance(v, complex) and not isinstance(v, np.generic):
            # (np.complex128 subclasses complex, but is a numpy scalar: strong, seed 978118)
            return ComplexPlan(np.dtype(np.complex128), (), True)
        return ComplexPlan(v.dtype, np.shape(v), False, zero_d=complex_kinds.static_kind(v))
    return None


def _join_complex(a: Plan, b: Plan, loop: bool) -> ComplexPlan:
    """Two complex plans (or a complex conversion-time value) join when numpy keeps one dtype:
    equal dtypes; a Python complex with a complex array; in a loop, complex64 entry state that
    an iteration makes complex128. A real value on one path and a complex one on the other
    is refused (numpy's dtype would depend on the path)."""
    pa, pb = _as_complex_plan(a), _as_complex_plan(b)
    if pa is None or pb is None:
        raise JoinError(_describe(a), _describe(b), "numpy's dtype depends on the path taken; "
                        "make both complex (e.g. x.astype(np.complex128)) on every path")
    if len(pa.shape) != len(pb.shape):
        raise JoinError(_describe(a), _describe(b), "the rank must be the same on every path")
    shape = tuple(x if x == y else None for x, y in zip(pa.shape, pb.shape))
    shared = pa.shared or pb.shared
    mem = pa.mem | pb.mem
    param = pa.param if pa.param == pb.param else None
    zero_d = complex_kinds.join([pa.zero_d, pb.zero_d])
    if pa.param != pb.param:  # the argument's memory on one path only
        shared = shared or "it is an argument (the caller's memory)"
    if pa.dtype == pb.dtype:
        return ComplexPlan(pa.dtype, shape, pa.weak and pb.weak, shared, mem, param, zero_d)
    if pa.weak != pb.weak:
        # (a Python complex on one path: the join's value is marked where it is one, and
        # checked where numpy's dtype or value would show it: lower/control_flow/complex_paths)
        strong = pb if pa.weak else pa
        return ComplexPlan(strong.dtype, shape, False, shared, mem, param, zero_d)
    if loop and np.can_cast(pa.dtype, pb.dtype, "safe"):
        return ComplexPlan(pb.dtype, shape, False, shared, mem, param, zero_d)
    raise JoinError(_describe(a), _describe(b), "ONNX gives a variable one dtype: convert one "
                    "of them (.astype(...))")


_KIND_ORDER = "biuf"
_PYTYPE = {"b": bool, "i": int, "u": int, "f": float, "c": complex}


def mixes_python_scalar(a: Plan, b: Plan) -> bool:
    """Whether ``a`` and ``b`` are a Python number on one side and a numpy value on the other
    (the join carries the numpy one: the returned Python type would depend on the path)."""
    a = number_leaf(a.value) if isinstance(a, Static) and is_number(a.value) else a
    b = number_leaf(b.value) if isinstance(b, Static) and is_number(b.value) else b
    return isinstance(a, Leaf) and isinstance(b, Leaf) and a.weak != b.weak


def kind_changed(a: Plan | None, b: Plan | None) -> bool:
    """Whether two 0-d-or-array leaves differ in kind (bool / integer / float), the difference
    numpy's result shows in its type whichever the values (int 0 against float 0.0)."""
    if not (isinstance(a, Leaf) and isinstance(b, Leaf)):
        return False
    kinds = {"b": 0, "i": 1, "u": 1, "f": 2, "c": 3}
    return kinds.get(a.dtype.kind) != kinds.get(b.dtype.kind)


def _join_leaves(a: Leaf, b: Leaf, loop: bool) -> Leaf:
    if len(a.shape) != len(b.shape):
        raise JoinError(_describe(a), _describe(b), "the rank must be the same on every path")
    shape = tuple(x if x == y else None for x, y in zip(a.shape, b.shape))
    weak = a.weak and b.weak
    if a.dtype == b.dtype:
        return Leaf(a.dtype, shape, weak)
    if a.weak and b.weak:  # Python bool/int/float: the wider Python type
        wide = max((a, b), key=lambda p: _KIND_ORDER.index(p.dtype.kind))
        return Leaf(wide.dtype, shape, True)
    if (a.weak or b.weak) and not loop and kind_changed(a, b):
        # A Python scalar on one path, a numpy value of another kind on the other (a Python
        # int or a float64): the value numpy gives depends on the path taken at run time, in
        # type and in how later operations promote; one graph value cannot carry that. (The
        # same kind, a Python float and a float32 0-d, is joined as the numpy value.)
        w = a if a.weak else b
        raise JoinError(_describe(a), _describe(b), "numpy's type depends on the path taken; "
                        f"make both the same, e.g. {_PYTYPE[w.dtype.kind].__name__}(...) or "
                        "np.asarray(...) on both paths")
    if a.weak or b.weak:
        w, s = (a, b) if a.weak else (b, a)
        pytype = {"b": bool, "i": int, "u": int, "f": float}[w.dtype.kind]
        if np.result_type(s.dtype, pytype(0)) == s.dtype:
            return Leaf(s.dtype, shape, False)
    elif loop and np.can_cast(a.dtype, b.dtype, "safe"):
        # ``a`` is the loop's entry type, ``b`` what an iteration makes of it: promoting the
        # entry gives every iteration the type numpy gives it from the first iteration on.
        return Leaf(b.dtype, shape, False)
    raise JoinError(_describe(a), _describe(b), "ONNX gives a variable one dtype: convert one "
                    "of them (.astype(...))")


def leaves_of(ctx, plan: Plan, value: Any) -> list[Array | Seq]:
    """The graph values ``value`` contributes under ``plan`` (cast to the plan's dtypes)."""
    if isinstance(plan, Static):
        return []
    if isinstance(plan, Leaf):
        if isinstance(value, Undefined) or value is None:
            raise TypeError("pyonnx bug: an undefined value has no leaves")
        arr = ctx.asarray(value, plan.dtype) if not isinstance(value, Array) else value
        if arr.dtype != plan.dtype:
            arr = ctx.cast(arr, plan.dtype)
        return [arr]
    if isinstance(plan, SeqPlan) and plan.dtype.kind == "c":  # real parts, imaginary parts
        return _complex_field(ctx, value, plan)
    if isinstance(plan, SeqPlan):
        from pyonnx.frontend.graph import sequences
        return [sequences.as_sequence(ctx, value, plan.dtype, plan.shape, plan.weak)]
    if isinstance(plan, RecordsPlan):
        from pyonnx.frontend.graph import sequences
        if isinstance(value, Records):
            fields = list(value.fields)
        else:
            fields = [[t[j] for t in value] for j in range(len(plan.fields))]
        out = []
        for f, p in zip(fields, plan.fields):
            if p.dtype.kind == "c":  # a complex field: its real parts, then imaginary parts
                out += _complex_field(ctx, f, p)
            else:
                out.append(sequences.as_sequence(ctx, f, p.dtype, p.shape, p.weak))
        return out
    if isinstance(plan, OptPlan):
        if isinstance(value, Maybe):
            return [value.has] + leaves_of(ctx, plan.leaf, value.value)
        has = ctx.const_array(np.array(value is not None))
        if value is None:
            value = _zero(ctx, plan.leaf)
        return [has] + leaves_of(ctx, plan.leaf, value)
    if isinstance(plan, ComplexPlan):
        if isinstance(value, Undefined) or value is None:
            raise TypeError("pyonnx bug: an undefined value has no leaves")
        re, im = parts(ctx, value, plan.dtype)
        return [re, im]
    items = _items(value, plan)
    return [leaf for p, v in zip(plan.children, items) for leaf in leaves_of(ctx, p, v)]


def _zero(ctx, leaf: Leaf | ComplexPlan) -> Array | Complex:
    """The zero an OptPlan carries while its value is None (never read then): 0-d for a
    number, of the leaf's rank (0 where a dimension is known only at run time) for a returned
    array (control_flow/common.join_or_error)."""
    shape = tuple(0 if d is None else d for d in leaf.shape)
    if isinstance(leaf, ComplexPlan):
        zero = ctx.const_array(np.zeros(shape, real_dtype(leaf.dtype)))
        return Complex(zero, zero, leaf.dtype, leaf.weak)
    return ctx.const_array(np.zeros(shape, leaf.dtype), weak=leaf.weak)


def _complex_field(ctx, value: Any, plan: SeqPlan) -> list:
    """The two sequences (real parts, imaginary parts) of a complex field of a list of
    tuples: ``value`` a records.ComplexSeq or the Python list of its items."""
    from pyonnx.frontend.graph import sequences

    rd = real_dtype(plan.dtype)
    if isinstance(value, ComplexSeq):
        return [sequences.as_sequence(ctx, value.re, rd, plan.shape, plan.weak),
                sequences.as_sequence(ctx, value.im, rd, plan.shape, plan.weak)]
    pairs = [parts(ctx, v, plan.dtype) for v in value]
    return [sequences.as_sequence(ctx, [ctx.asarray(p[k], rd) for p in pairs], rd, plan.shape,
                                  plan.weak) for k in (0, 1)]


def placeholder(ctx, plan: Plan) -> Any:
    """A value of ``plan``'s type standing for one that is never read (a return value before
    the function returned, on the path that has not returned yet)."""
    if isinstance(plan, Static):
        return plan.value
    if isinstance(plan, Leaf):
        shape = tuple(d if d is not None else 0 for d in plan.shape)
        # weak as the plan: a Python scalar returned on one path stays one after the join
        return ctx.const_array(np.zeros(shape, plan.dtype), weak=plan.weak)
    if isinstance(plan, (SeqPlan, RecordsPlan)):
        return []
    if isinstance(plan, OptPlan):
        return Maybe(ctx.const_array(np.array(False)), _zero(ctx, plan.leaf))
    if isinstance(plan, ComplexPlan):
        shape = tuple(d if d is not None else 0 for d in plan.shape)
        zeros = np.zeros(shape, real_dtype(plan.dtype))
        return Complex(ctx.const_array(zeros), ctx.const_array(zeros), plan.dtype, plan.weak)
    return _make(plan, (placeholder(ctx, p) for p in plan.children))


def rebuild(plan: Plan, values: Iterator[Any]) -> Any:
    """The value of ``plan`` made of the next graph values (``ir.Value``) from ``values``."""
    if isinstance(plan, Static):
        return plan.value
    if isinstance(plan, Leaf):
        return Array(next(values), plan.dtype, plan.shape, plan.weak)
    if isinstance(plan, SeqPlan) and plan.dtype.kind == "c":
        rd = real_dtype(plan.dtype)
        re = Seq(next(values), rd, plan.shape, plan.weak)
        return ComplexSeq(re, Seq(next(values), rd, plan.shape, plan.weak), plan.dtype,
                          bool(plan.weak))
    if isinstance(plan, SeqPlan):
        return Seq(next(values), plan.dtype, plan.shape, plan.weak)
    if isinstance(plan, RecordsPlan):
        fields = []
        for p in plan.fields:
            if p.dtype.kind == "c":
                rd = real_dtype(p.dtype)
                re = Seq(next(values), rd, p.shape, p.weak)
                fields.append(ComplexSeq(re, Seq(next(values), rd, p.shape, p.weak), p.dtype,
                                         bool(p.weak)))
            else:
                fields.append(Seq(next(values), p.dtype, p.shape, p.weak))
        return Records(tuple(fields))
    if isinstance(plan, OptPlan):
        has = Array(next(values), np.dtype(np.bool_), ())
        return Maybe(has, rebuild(plan.leaf, values))
    if isinstance(plan, ComplexPlan):
        rd = real_dtype(plan.dtype)
        re = Array(next(values), rd, plan.shape)
        z = Complex(re, Array(next(values), rd, plan.shape), plan.dtype, plan.weak)
        z.shared = plan.shared and f"{plan.shared} on some path of a run-time if/loop"
        z.mem = plan.mem or z.mem
        z.param = plan.param
        complex_kinds.mark(z, plan.zero_d)
        return z
    return _make(plan, (rebuild(p, values) for p in plan.children))


def leaf_plans(plan: Plan) -> list[Leaf | SeqPlan]:
    """The plans of the graph values ``plan`` is made of, in order."""
    if isinstance(plan, Static):
        return []
    if isinstance(plan, SeqPlan) and plan.dtype.kind == "c":  # (a run-time complex list)
        return [SeqPlan(real_dtype(plan.dtype), plan.shape, plan.weak)] * 2
    if isinstance(plan, (Leaf, SeqPlan)):
        return [plan]
    if isinstance(plan, OptPlan):
        return [Leaf(np.dtype(np.bool_), ())] + leaf_plans(plan.leaf)
    if isinstance(plan, RecordsPlan):  # (a complex field: two sequences of its parts)
        return [q for p in plan.fields for q in (
            [SeqPlan(real_dtype(p.dtype), p.shape, p.weak)] * 2 if p.dtype.kind == "c"
            else [p])]
    if isinstance(plan, ComplexPlan):  # the real and the imaginary part
        return [Leaf(real_dtype(plan.dtype), plan.shape)] * 2
    return [leaf for p in plan.children for leaf in leaf_plans(p)]
