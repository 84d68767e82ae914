"""Smooth programs for the gradient mode: float64 ``x``, ``w``; elementwise math, reductions,
order statistics (sort, median, argmax, minimum/maximum, clip to arrays), running sums,
matmul, slicing, item assignment into copies, run-time if/for/while, break, early return; one
float scalar result. The same generator as compile mode, with this table of expressions."""

from __future__ import annotations

from fuzzing import constructs as C
from fuzzing import values as V
from fuzzing.generator import Generator

SMOOTH = ("np.sin", "np.cos", "np.tanh", "np.exp", "np.arctan", "np.sinh", "np.cosh", "np.square")
POSITIVE = ("np.log", "np.sqrt", "np.log2", "np.log10", "np.cbrt", "np.reciprocal")


def _float(g, scalar_ok=True):
    kinds = ("array", "npscalar") if scalar_ok else ("array",)
    names = g.names(kinds, lambda n, d: d.dtype.startswith("float"))
    return g.rng.choice(names) if names else None


def g_arith(g):
    a, b = _float(g), _float(g)
    if a is None:
        return None
    b = b if b and g.rng.random() < 0.8 else g.rng.choice(("0.5", "1.5", "2.0"))
    op = g.rng.choice(("+", "-", "*", "/"))
    if op == "/":
        return f"({a} / ({b} * {b} + 1.0))", False
    return f"({a} {op} {b})", False


def g_unary(g):
    a = _float(g)
    if a is None:
        return None
    if g.rng.random() < 0.5:
        fn = g.rng.choice(SMOOTH)
        return (f"{fn}(0.5 * {a})" if fn in ("np.exp", "np.sinh", "np.cosh") else f"{fn}({a})"), False
    two = _float(g) or a
    r = g.rng.random()
    if r < 0.2:
        return f"np.hypot({a}, {two} * 0.5 + 0.25)", False
    if r < 0.35:
        return f"np.arctan2({a}, {two} * {two} + 0.5)", False
    return f"{g.rng.choice(POSITIVE)}({a} * {a} + 0.5)", False


def g_reduce(g):
    a = _float(g, scalar_ok=False)
    if a is None:
        return None
    d = g.desc(a)
    ax = f"axis={g.rng.randint(0, d.ndim - 1)}" if d.ndim and g.rng.random() < 0.4 else ""
    fn = g.rng.choice(("np.sum", "np.mean", "np.max", "np.min", "np.prod", "np.sum"))
    return f"{fn}({a}{', ' + ax if ax else ''})", False


def g_matmul(g):
    a, b = _float(g, False), _float(g, False)
    if a is None:
        return None
    return g.rng.choice((f"({a} @ {b})", f"np.dot({a}, {b})", f"({a} @ {b}.T)", f"np.outer({a}, {b})")), False


def g_index(g):
    a = _float(g, scalar_ok=False)
    if a is None:
        return None
    idx = C.gen_index(g, a)
    if ">" in idx:
        return None
    return f"{a}[{idx}]", False


def g_shape(g):
    a = _float(g, scalar_ok=False)
    if a is None:
        return None
    return g.rng.choice((f"{a}.copy()", f"{a}.T", f"{a}.reshape(-1)", f"np.concatenate([{a}, {a}])",
                         f"np.flip({a}, axis=0)", f"np.where({a} > 0.1, {a}, 0.0)",
                         f"np.maximum({a}, 0.2)", f"np.abs({a})", f"np.clip({a}, -0.9, 0.9)")), False


def g_order(g):
    """Order statistics, running sums and elementwise choices between two arrays: piecewise
    smooth (fuzzing.kinks measures their ties), or smooth (cumsum, cumprod, logaddexp)."""
    a = _float(g, scalar_ok=False)
    if a is None:
        return None
    b = _float(g, scalar_ok=False) or a
    forms = [f"np.sort({a}, axis=0)", f"np.sort({a})", f"np.median({a})",
             f"np.cumsum({a}, axis=0)", f"np.cumprod({a} * 0.5 + 1.0, axis=0)",
             f"np.minimum({a}, {b})", f"np.maximum({a}, {b} * 0.5)",
             f"{a}.reshape(-1)[np.argmax({a})]", f"np.clip({a}, {b} - 0.5, {b} + 0.5)",
             f"np.logaddexp({a}, {b})", f"np.diff({a}, axis=0)"]
    return g.rng.choice(forms), False


EXPRESSIONS = [(5, ("grad",), g_arith), (5, ("grad",), g_unary), (3, ("grad",), g_reduce),
               (1, ("grad",), g_matmul), (3, ("grad",), g_index), (2, ("grad",), g_shape),
               (2, ("grad",), g_order)]


class GradGenerator(Generator):
    max_depth = 2

    def make_inputs(self):
        rng = self.rng
        self.params = ["x", "w"]
        self.alias = {}
        rank = rng.choice((1, 1, 2))
        shape = tuple(rng.randint(2, 4) for _ in range(rank))
        shape_b = (shape[0] + 1,) + shape[1:]
        self.inputs = [[_point(rng, shape), _point(rng, shape)],
                       [_point(rng, shape_b), _point(rng, shape_b)]]
        for p in self.params:
            self.exact[p] = False


def _point(rng, shape):
    import numpy as np
    n = int(np.prod(shape))
    return np.array([rng.uniform(-1, 1) for _ in range(n)]).reshape(shape)


def generate(seed: int):
    g = GradGenerator(seed, mode="grad")
    g.expressions = EXPRESSIONS
    return g.program(g.rng.randint(3, 9))


def resample(prog, attempt: int):
    """The same program at another point (when finite differences find a kink or switch)."""
    import random
    rng = random.Random(prog.seed * 31 + attempt)
    prog.inputs = [[_point(rng, v.shape) for v in ins] for ins in prog.inputs]
    return prog


V  # noqa: B018 - values imported for its dtypes by readers of this module
