"""Lowering of Python expressions to frontend values.

Input: canonical expression ASTs. Output: static Python values or Arrays. Operators on static
values run in Python; an operator with an Array operand is the numpy ufunc of the same meaning
(``a + b`` → ``np.add``), so numpy's promotion applies. Calls are dispatched in
:mod:`pyonnx.frontend.lower.calls`, subscripts in :mod:`pyonnx.frontend.graph.indexing`.
"""

from __future__ import annotations

import ast
import operator
from typing import Any

import numpy as np

from pyonnx.errors import ConversionError
from pyonnx.frontend.lower import control_flow
from pyonnx.frontend.graph import scalar_kinds, sequences
from pyonnx.frontend.lower import aliases, comprehensions, view_calls, writers
from pyonnx.frontend.graph.iterables import DynamicRange
from pyonnx.frontend.graph.values import Array, ArrayMethod, Seq, Undefined, is_static
from pyonnx.frontend.lower import list_forms, optional_reads
from pyonnx.frontend.graph.optional import Maybe
from pyonnx.frontend.graph import records
from pyonnx.frontend.graph import complex_values
from pyonnx.frontend.graph.complex_values import Complex
from pyonnx.frontend.lower import complex_abs_compare, complex_calls, complex_ops
from pyonnx.frontend.lower import complex_scalar_compare
from pyonnx.frontend.lower import complex_writes as complex_inplace
from pyonnx.frontend.lower.iteration import range_item
from pyonnx.frontend.lower import index_tricks
from pyonnx.frontend.numpy_calls import lookup, lookup_attribute, lookup_method

__all__ = ["ExprLowering", "BINOP_UFUNCS", "static_truth"]

BINOP_UFUNCS: dict[type, Any] = {
    ast.Add: np.add, ast.Sub: np.subtract, ast.Mult: np.multiply, ast.Div: np.true_divide,
    ast.FloorDiv: np.floor_divide, ast.Mod: np.remainder, ast.Pow: np.power,
    ast.MatMult: np.matmul, ast.BitAnd: np.bitwise_and, ast.BitOr: np.bitwise_or,
    ast.BitXor: np.bitwise_xor, ast.LShift: np.left_shift, ast.RShift: np.right_shift,
}
_PY_BINOPS: dict[type, Any] = {
    ast.Add: operator.add, ast.Sub: operator.sub, ast.Mult: operator.mul,
    ast.Div: operator.truediv, ast.FloorDiv: operator.floordiv, ast.Mod: operator.mod,
    ast.Pow: operator.pow, ast.MatMult: operator.matmul, ast.BitAnd: operator.and_,
    ast.BitOr: operator.or_, ast.BitXor: operator.xor, ast.LShift: operator.lshift,
    ast.RShift: operator.rshift,
}
_PY_INPLACE: dict[type, Any] = {
    ast.Add: operator.iadd, ast.Sub: operator.isub, ast.Mult: operator.imul,
    ast.Div: operator.itruediv, ast.FloorDiv: operator.ifloordiv, ast.Mod: operator.imod,
    ast.Pow: operator.ipow, ast.MatMult: operator.imatmul, ast.BitAnd: operator.iand,
    ast.BitOr: operator.ior, ast.BitXor: operator.ixor, ast.LShift: operator.ilshift,
    ast.RShift: operator.irshift,
}
_CMP_UFUNCS: dict[type, Any] = {
    ast.Eq: np.equal, ast.NotEq: np.not_equal, ast.Lt: np.less, ast.LtE: np.less_equal,
    ast.Gt: np.greater, ast.GtE: np.greater_equal,
}
_PY_CMPS: dict[type, Any] = {
    ast.Eq: operator.eq, ast.NotEq: operator.ne, ast.Lt: operator.lt, ast.LtE: operator.le,
    ast.Gt: operator.gt, ast.GtE: operator.ge, ast.Is: operator.is_, ast.IsNot: operator.is_not,
    ast.In: lambda a, b: a in b, ast.NotIn: lambda a, b: a not in b,
}


def static_truth(ctx, value: Any) -> bool | None:
    """Python's ``bool(value)`` when known at conversion time, else None (run-time condition).

    Raises:
        NeedStatic: the condition depends on a Python-scalar argument (which then becomes static).
        ConversionError: numpy refuses the truth value (an array of more than one element).
    """
    if isinstance(value, (Seq, records.Records, records.ComplexSeq)):  # a run-time list
        return None
    if isinstance(value, Complex):  # numpy's bool(z): either part nonzero, known at run time
        if value.static_size not in (None, 1):
            raise ctx.error("the truth value of an array with more than one element is ambiguous "
                            "(numpy raises ValueError); use a.any() or a.all()")
        return None
    if isinstance(value, Array):
        if value.static_size not in (None, 1):
            raise ctx.error("the truth value of an array with more than one element is ambiguous "
                            "(numpy raises ValueError); use a.any() or a.all()")
        if value.value.const_value is None and ctx.data_dependent(value.value):
            return None  # a run-time condition (If/Loop), whatever the scalar arguments
        try:
            v = ctx.static(value, "condition")
        except ConversionError:
            return None
        return bool(np.asarray(v).reshape(-1)[0]) if np.size(v) == 1 else bool(v)
    try:
        return bool(value)
    except ValueError as e:  # a static numpy array of several elements
        raise ctx.error(f"{e} (numpy raises ValueError)") from None


# (lowering class, AST node class) -> its expr_<Node> function: one dict look-up per
# subexpression instead of building the name and binding the method.
_VISITORS: dict[tuple[type, type], Any] = {}


class ExprLowering:
    """Mixin of :class:`~pyonnx.frontend.lower.function.FunctionLowering`: ``expr(node)``."""

    ctx: Any

    def expr(self, node: ast.expr) -> Any:
        """Lowers an expression; ConversionErrors without a location get this node's."""
        ctx = self.ctx
        prev = ctx.loc
        # (loc_of's cache, read inline: this runs for every subexpression.)
        ctx.loc = node.__dict__.get("_pyonnx_loc") or self.loc_of(node)
        try:
            key = (type(self), type(node))
            visitor = _VISITORS.get(key)
            if visitor is None:
                visitor = getattr(type(self), f"expr_{type(node).__name__}", None)
                if visitor is None:
                    raise ctx.error(f"{type(node).__name__} expressions are not supported")
                _VISITORS[key] = visitor
            return visitor(self, node)
        except ConversionError as e:
            raise e.with_loc(ctx.loc) from None
        finally:
            ctx.loc = prev

    def static_truth(self, value: Any) -> bool | None:
        """:func:`static_truth` in this lowering's context."""
        return static_truth(self.ctx, value)

    # ---------------------------------------------------------------- leaves
    def expr_Constant(self, node: ast.Constant) -> Any:
        return node.value

    def expr_Name(self, node: ast.Name) -> Any:
        found, value, why = self.env.lookup(node.id)
        if not found:
            pending = self.env.locals.get(node.id)
            if isinstance(pending, Undefined) and pending.bound is not None:
                # first assigned in a loop that may run 0 times: checked at run time
                from pyonnx.frontend.lower.control_flow import maybe_bound
                return maybe_bound.read(self, node.id, pending)
            raise self.ctx.error(why)
        if isinstance(value, Maybe):  # a number that may be None: checked at run time
            return optional_reads.read(self, node, value)
        return value

    def expr_Tuple(self, node: ast.Tuple) -> tuple:
        return tuple(list_forms.display_items(self, node.elts))

    def expr_List(self, node: ast.List) -> list:
        return list_forms.display_items(self, node.elts)

    def expr_Dict(self, node: ast.Dict) -> dict:
        """A dict with keys known at conversion time (options, named results)."""
        out: dict = {}
        for k, v in zip(node.keys, node.values):
            value = self.expr(v)
            if k is None:  # {**other, ...}
                if not isinstance(value, dict):
                    raise self.ctx.error("'**' in a dict needs a dict", self.loc_of(v))
                out.update(value)
                continue
            key = self.expr(k)
            if not is_static(key):
                raise self.ctx.error("dict keys must be known at conversion time (strings, "
                                     "ints); use an array for values looked up at run time",
                                     self.loc_of(k))
            try:
                out[key] = value
            except TypeError as e:
                raise self.ctx.error(f"TypeError: {e}", self.loc_of(k)) from None
        return out

    def expr_Slice(self, node: ast.Slice) -> slice:
        part = lambda e: None if e is None else self.expr(e)  # noqa: E731
        return slice(part(node.lower), part(node.upper), part(node.step))

    def expr_JoinedStr(self, node: ast.JoinedStr) -> str:
        parts = []
        for v in node.values:
            if isinstance(v, ast.Constant):
                parts.append(str(v.value))
                continue
            value = self.expr(v.value)
            if not is_static(value):
                raise self.ctx.error(
                    "string formatting of array values is not supported: an ONNX model computes "
                    "arrays, not text; return the array and format it outside")
            spec = self.expr(v.format_spec) if v.format_spec is not None else ""
            conv = {-1: lambda x: x, 115: str, 114: repr, 97: ascii}[v.conversion]
            parts.append(format(conv(value), spec))
        return "".join(parts)

    # ------------------------------------------------------------- operators
    def binary(self, op: type, left: Any, right: Any, inplace: bool = False) -> Any:
        """``left <op> right`` with Python's meaning on static values and numpy's on arrays."""
        if isinstance(left, Seq) or isinstance(right, Seq):
            raise self.ctx.error(list_forms.BINARY_REFUSAL)
        if complex_ops.involved(left, right):
            return complex_inplace.inplace_binary(self, op, left, right, inplace)
        for obj, other, reflected in ((left, right, False), (right, left, True)):
            hook = getattr(type(obj), "__pyonnx_binary__", None)  # value objects (np.poly1d)
            if hook is not None:
                result = hook(obj, op, other, reflected)
                if result is not NotImplemented:
                    return result
        if not isinstance(left, Array) and not isinstance(right, Array):
            if inplace is True and isinstance(left, np.ndarray):
                # numpy's in-place operator, on a copy (stmt_Assign binds it to the name when
                # nothing else sees the array): the array keeps its dtype and stays an array
                # (np.zeros(()) + 1 would be a numpy scalar)
                left, op_fn = left.copy(), _PY_INPLACE[op]
            else:
                op_fn = _PY_BINOPS[op]
            try:
                return op_fn(left, right)
            except Exception as e:
                raise self.ctx.error(f"{type(e).__name__}: {e}") from None
        if op in _INT_ARITHMETIC and _python_bool(left) and _python_bool(right):
            # Python's bool arithmetic is int arithmetic (True + True is 2), numpy's ufuncs on
            # bools are logical (fuzz seed 26005218: t * t of a Python bool gave False, not 0)
            left, right = (_as_python_int(self.ctx, v) for v in (left, right))
        ufunc = BINOP_UFUNCS[op]
        # ``a ** b`` is ndarray.__pow__, whose fast paths (square, sqrt) differ from np.power.
        entry = (lookup(operator.pow) if op is ast.Pow else None) or lookup(ufunc)
        if entry is None:
            raise self.ctx.error(f"the operator for np.{ufunc.__name__} is not supported yet")
        result = entry.fn(self.ctx, left, right)
        if inplace == "subscript" and isinstance(left, Array) and left.ndim == 0:
            inplace = False  # x[i] op= v on one element: numpy scalar arithmetic, cast on store
        kind = scalar_kinds.scalar_kind(self.ctx, left) if inplace is True else None
        if kind in ("scalar", "unknown") and isinstance(result, Array) and (
                result.dtype != left.dtype or result.ndim):
            if kind == "scalar":
                return result  # a numpy scalar is immutable: numpy rebinds (x = x op v)
            raise self.ctx.error(
                f"'x {_OP_TEXT.get(op, '?')}= ...' on a 0-d value that comes out of a run-time "
                "'if' or loop: numpy rebinds a numpy scalar to the promoted result "
                f"({result.dtype}, shape {result.shape}) but casts into a 0-d array, and pyonnx "
                f"cannot tell which this is here; write x = x {_OP_TEXT.get(op, '?')} ... (the "
                "scalar's meaning) or x = (x op ...).astype(x.dtype) (the array's)")
        if inplace and (isinstance(left, Array) and not left.weak or isinstance(left, np.ndarray)
                        and inplace is True) and result.dtype != left.dtype:
            # numpy's in-place operators cast the result back under same_kind casting.
            if not np.can_cast(result.dtype, left.dtype, casting="same_kind"):
                raise self.ctx.error(
                    f"Cannot cast ufunc '{ufunc.__name__}' output from dtype('{result.dtype}') to "
                    f"dtype('{left.dtype}') with casting rule 'same_kind' (numpy raises "
                    f"UFuncTypeError for 'x {_OP_TEXT.get(op, '?')}= ...'); write "
                    f"x = x {_OP_TEXT.get(op, '?')} ... to get a {result.dtype} result")
            result = self.ctx.cast(result, left.dtype)
        return result

    def expr_BinOp(self, node: ast.BinOp) -> Any:
        left = self.expr(node.left)
        right = self.expr(node.right)
        return self.binary(type(node.op), left, right, getattr(node, "pyonnx_inplace", False))

    def expr_UnaryOp(self, node: ast.UnaryOp) -> Any:
        operand = self.expr(node.operand)
        op = type(node.op)
        if isinstance(operand, Complex):
            return complex_ops.unary(self.ctx, op, operand)
        if op is ast.Not:
            truth = static_truth(self.ctx, operand)
            if truth is not None:
                return not truth
            if isinstance(operand, Seq):
                operand = sequences.truth(self.ctx, operand)
            b = self.ctx.cast(operand, np.bool_)
            if b.ndim:
                b = Array(self.ctx.op("Reshape", b, self.ctx.const(np.array([], np.int64))),
                          b.dtype, ())
            return Array(self.ctx.op("Not", b), np.dtype(np.bool_), (), weak=True)
        if not isinstance(operand, Array):
            try:
                return {ast.USub: operator.neg, ast.UAdd: operator.pos,
                        ast.Invert: operator.invert}[op](operand)
            except Exception as e:
                raise self.ctx.error(f"{type(e).__name__}: {e}") from None
        if operand.weak and operand.dtype == np.bool_:
            # A Python bool: Python's -b, +b and ~b are int arithmetic (~True is -2)
            as_int = self.ctx.cast(operand, np.int64)
            operand = Array(as_int.value, np.dtype(np.int64), operand.shape, weak=True)
        ufunc = {ast.USub: np.negative, ast.UAdd: np.positive, ast.Invert: np.invert}[op]
        entry = lookup(ufunc)
        if entry is None:
            raise self.ctx.error(f"np.{ufunc.__name__} is not supported yet")
        return entry.fn(self.ctx, operand)

    def expr_Compare(self, node: ast.Compare) -> Any:
        tested = optional_reads.none_test(self, node)  # 'best is None' on a Maybe
        if tested is not None:
            return tested
        return self._compare_from(node, 0, self.expr(node.left))

    def _compare_from(self, node: ast.Compare, i: int, left: Any) -> Any:
        """``left op_i c_i op_i+1 c_i+1 ...``: Python's chained comparison, each comparator
        evaluated once and only while the previous comparisons hold."""
        op, comparator = node.ops[i], node.comparators[i]
        right = self.expr(comparator)
        folded = list_forms.none_test(self.ctx, type(op), left, right)
        if folded is not None:
            value = folded
        elif isinstance(left, Seq) or isinstance(right, Seq):
            raise self.ctx.error(list_forms.compare_refusal(type(op)))
        elif (fused := complex_abs_compare.compare(self.ctx, type(op), left, right)) \
                is not None:  # abs(z) <= 2.0 without the square root
            value = fused
        elif complex_ops.involved(left, right) and type(op) in _CMP_UFUNCS:
            # (numpy scalars compare by numpy's scalar code, arrays by the ufunc)
            value = complex_scalar_compare.compare(self.ctx, type(op), left, right)
        elif isinstance(left, Array) or isinstance(right, Array):
            if type(op) not in _CMP_UFUNCS:
                raise self.ctx.error(
                    f"'{_CMP_TEXT[type(op)]}' needs values known at conversion time; "
                    "it cannot test array values")
            value = lookup(_CMP_UFUNCS[type(op)]).fn(self.ctx, left, right)
        else:
            try:
                value = _PY_CMPS[type(op)](left, right)
            except Exception as e:
                raise self.ctx.error(f"{type(e).__name__}: {e}") from None
        if i == len(node.ops) - 1:
            return value
        truth = static_truth(self.ctx, value)
        if truth is None:
            return control_flow.select(self, value, lambda: self._compare_from(node, i + 1, right),
                                       lambda: value, "the chained comparison")
        return self._compare_from(node, i + 1, right) if truth else value

    def expr_BoolOp(self, node: ast.BoolOp) -> Any:
        return self._boolop_from(node, 0)

    def _boolop_from(self, node: ast.BoolOp, i: int) -> Any:
        """``v_i and v_i+1 ...`` (or ``or``) with Python's short circuit: the value of the
        first operand that decides, each evaluated only when reached."""
        is_and = isinstance(node.op, ast.And)
        value = self.expr(node.values[i])
        if i == len(node.values) - 1:
            return value
        truth = static_truth(self.ctx, value)
        if truth is None:
            def rest() -> Any:  # runs where operand i is true (and) / false (or)
                with optional_reads.narrowed_by(self, node.values[i], is_and):
                    return self._boolop_from(node, i + 1)
            keep = lambda: value  # noqa: E731
            return control_flow.select(self, value, rest if is_and else keep,
                                       keep if is_and else rest,
                                       f"the '{'and' if is_and else 'or'}' expression")
        if truth != is_and:  # and: stop at the first false; or: at the first true
            return value
        return self._boolop_from(node, i + 1)

    def expr_IfExp(self, node: ast.IfExp) -> Any:
        cond = self.expr(node.test)
        truth = static_truth(self.ctx, cond)
        if truth is None:
            def side(branch: ast.expr, holds: bool) -> Any:
                with optional_reads.narrowed_by(self, node.test, holds):
                    return self.expr(branch)
            return control_flow.select(self, cond, lambda: side(node.body, True),
                                       lambda: side(node.orelse, False),
                                       "the conditional expression")
        return self.expr(node.body if truth else node.orelse)

    # ------------------------------------------------------------ attributes
    def expr_Attribute(self, node: ast.Attribute) -> Any:
        base = self.expr(node.value)
        name = node.attr
        if isinstance(base, Complex):
            return complex_calls.attribute(self.ctx, base, name)
        if isinstance(base, Array):
            attr = lookup_attribute(name)
            if attr is not None:
                result = attr(self.ctx, base)
                if name in ("T", "mT"):  # views
                    return view_calls.after_call(self.ctx, "transpose", [base], result)
                return result
            if lookup_method(name) is not None or name in writers.METHODS:
                return ArrayMethod(base, name)
            if name == "flat":
                raise self.ctx.error(
                    "'.flat' is supported indexed: x.flat[i] (read) and x.flat[i] = v (write); "
                    "for the flattened array write x.ravel() (a view) or x.flatten() (a copy)")
            if name in _WRITING_METHODS:
                raise self.ctx.error(
                    f"'.{name}()' writes into the array in a way pyonnx does not convert; write "
                    "with item assignment instead (x[idx] = values)")
            if hasattr(np.ndarray, name):
                raise self.ctx.error(
                    f"the array attribute or method '.{name}' is not supported"
                    + (": it leaves numpy (bytes, lists, files); convert outside the compiled "
                       "function" if name in _LEAVES_NUMPY else ""))
            raise self.ctx.error(f"'numpy.ndarray' object has no attribute '{name}'")
        if isinstance(base, (list, tuple)) and not is_static(base):
            raise self.ctx.error(f"'{type(base).__name__}.{name}' on a container of arrays is not "
                                 "supported here")
        if isinstance(base, Seq):
            raise self.ctx.error(list_forms.method_refusal(name))
        try:
            return getattr(base, name)
        except AttributeError as e:
            raise self.ctx.error(str(e)) from None

    # ---------------------------------------------------------- subscripts
    def expr_Subscript(self, node: ast.Subscript) -> Any:
        if isinstance(node.value, ast.Attribute) and node.value.attr == "flat":
            flat = self._flat_read(node.value)
            if flat is not None:
                from pyonnx.frontend.graph.indexing import getitem
                index = sequences.lists_as_arrays(self.ctx, self.expr(node.slice))
                # numpy's flat iterator returns copies (a scalar or a new array), never views
                if isinstance(flat, Complex):
                    return complex_calls.flat_getitem(self.ctx, flat, index)
                return getitem(self.ctx, flat, index)
        base = self.expr(node.value)
        if index_tricks.is_index_trick(base):  # np.r_[...], np.c_[...], np.s_[...]
            return index_tricks.subscript(self.ctx, base, index_tricks.index_value(self, node))
        index = self.expr(node.slice)
        if isinstance(base, np.ndarray) and base.dtype.kind == "c" and not is_static(index):
            base = complex_values.make(self.ctx, base.real, base.imag, base.dtype)
        if isinstance(base, Complex):
            return complex_calls.getitem(self.ctx, base, index)
        if isinstance(base, Array):
            from pyonnx.frontend.graph.indexing import getitem
            index = sequences.lists_as_arrays(self.ctx, index)
            result = getitem(self.ctx, base, index)
            if _basic(index) and not _selects_element(index, base.ndim):  # numpy: a view
                return aliases.register_view(self.ctx, result, base, aliases.GetItem(index))
            if result.value is base.value:
                # a[()] of a 0-d array: numpy's scalar copy, a value of its own (the array's
                # value is marked a 0-d array and may be written later)
                result = Array(self.ctx.op("Identity", base.value), base.dtype, base.shape,
                               base.weak)
            return result
        if isinstance(base, Seq):
            return sequences.item(self.ctx, base, index)
        if isinstance(base, records.ComplexSeq):  # a run-time list of complex values
            from pyonnx.frontend.lower import complex_lists
            return complex_lists.item(self.ctx, base, index)
        if isinstance(base, records.Records):
            return records.item(self.ctx, base, index)
        if isinstance(index, Array) and isinstance(base, (range, DynamicRange)):
            return range_item(self.ctx, base, index)
        if isinstance(index, Array):
            if isinstance(base, (tuple, list)) and index.ndim == 0:
                try:
                    return base[int(self.ctx.static(index, "a tuple index"))]
                except IndexError as e:
                    raise self.ctx.error(f"IndexError: {e}") from None
            if isinstance(base, np.ndarray):
                from pyonnx.frontend.graph.indexing import getitem
                return getitem(self.ctx, self.ctx.asarray(base), index)
            raise self.ctx.error("indexing a Python container with an array value is not "
                                 "supported; index an array instead")
        if isinstance(base, np.ndarray) and not is_static(index):
            from pyonnx.frontend.graph.indexing import getitem
            return getitem(self.ctx, self.ctx.asarray(base), index)
        try:
            return base[index]
        except Exception as e:
            raise self.ctx.error(f"{type(e).__name__}: {e}") from None

    def _flat_read(self, node: ast.Attribute) -> Array | None:
        """``x.flat`` read by an index (``x.flat[i]``): the C-order flattening of ``x`` as a new
        value (None when ``x`` is not an array: the attribute is looked up as usual)."""
        base = self.expr(node.value)
        if isinstance(base, Complex):
            return base
        if not isinstance(base, Array):
            return None
        flat = lookup(np.ravel).fn(self.ctx, base)
        return Array(self.ctx.op("Identity", flat.value), flat.dtype, flat.shape) \
            if flat.value is base.value else flat

    # ---------------------------------------------------------- comprehensions
    def expr_ListComp(self, node: ast.ListComp) -> Any:
        return comprehensions.comprehension(self, node)[1]

    expr_DictComp = expr_ListComp

    def expr_GeneratorExp(self, node: ast.GeneratorExp) -> Any:
        # A generator passed to a call is lowered there (lower/function.py: its items as a list
        # for a callee that iterates once); elsewhere it could be iterated twice.
        raise self.ctx.error("a generator expression is supported as a call argument "
                             "(sum(...), np.array(list(...)), tuple(...)); to keep the items, "
                             "write a list comprehension [...]")


# Operators whose Python meaning on two bools is int arithmetic (``&``, ``|``, ``^`` stay bool;
# ``/`` is float either way)
_INT_ARITHMETIC = frozenset({ast.Add, ast.Sub, ast.Mult, ast.FloorDiv, ast.Mod, ast.Pow})


def _python_bool(v: Any) -> bool:
    """A Python bool: static, or a run-time weak bool Array (a comparison of Python numbers)."""
    return isinstance(v, bool) or isinstance(v, Array) and v.weak and v.dtype == np.bool_


def _as_python_int(ctx, v: Any) -> Any:
    if isinstance(v, bool):
        return int(v)
    as_int = ctx.cast(v, np.int64)
    return Array(as_int.value, np.dtype(np.int64), v.shape, weak=True)


def _basic(index: Any) -> bool:
    """Whether numpy indexes with ``index`` by basic indexing (a view): ints, slices, ``...``,
    None and 0-d integer arrays only."""
    items = index if isinstance(index, tuple) else (index,)
    for it in items:
        if isinstance(it, Array):
            if it.ndim or it.dtype.kind not in "iu":
                return False
        elif isinstance(it, (list, np.ndarray, bool, np.bool_)):
            return False
        elif not (it is None or it is Ellipsis or isinstance(it, (int, np.integer, slice))):
            return False
    return True


def _selects_element(index: Any, ndim: int) -> bool:
    """Whether a basic ``index`` is an integer on every axis (no ``...``, None or slice):
    numpy then returns a numpy scalar, a copy of the element, not a view."""
    items = index if isinstance(index, tuple) else (index,)
    return len(items) == ndim and all(
        isinstance(it, (int, np.integer)) and not isinstance(it, (bool, np.bool_))
        or isinstance(it, Array) and it.ndim == 0 and it.dtype.kind in "iu" for it in items)


_OP_TEXT = {ast.Add: "+", ast.Sub: "-", ast.Mult: "*", ast.Div: "/", ast.FloorDiv: "//",
            ast.Mod: "%", ast.Pow: "**", ast.MatMult: "@", ast.BitAnd: "&", ast.BitOr: "|",
            ast.BitXor: "^", ast.LShift: "<<", ast.RShift: ">>"}
_CMP_TEXT = {ast.Is: "is", ast.IsNot: "is not", ast.In: "in", ast.NotIn: "not in"}
_WRITING_METHODS = {"put", "itemset", "resize", "setfield", "partition", "setflags"}
_LEAVES_NUMPY = {"tobytes", "tolist", "tofile", "dump", "dumps", "tostring", "ctypes", "data",
                 "__array_interface__"}
