"""The table of constructs the generator draws from.

``EXPRESSIONS`` and ``STATEMENTS`` are lists of ``(weight, modes, builder)``; a builder takes the
generator and returns source (an expression ``(text, exact)`` or statement lines) or None when
the model has nothing fitting. Every result is checked by running it, so a builder may guess.
Adding a feature (complex numbers, lambdas, comprehensions) is adding rows.
"""

from __future__ import annotations

import numpy as np

from fuzzing import values as V

ARITH = ("+", "-", "*")
CMP = ("<", "<=", ">", ">=", "==", "!=")


def _lit(g, kind="any"):
    r = g.rng
    if kind == "int" or (kind == "any" and r.random() < 0.5):
        return str(r.choice((1, 2, 3, -1, -2))), True
    return r.choice(("0.5", "1.5", "-0.25", "2.0", "0.75")), True


def _operand(g, pred=None, scalar_ok=True):
    kinds = ("array", "npscalar", "pyscalar") if scalar_ok else ("array",)
    names = g.names(kinds, pred)
    if names and g.rng.random() < 0.85:
        n = g.rng.choice(names)
        return n, g.is_exact(n)
    return _lit(g)


def _float_name(g, nd=None):
    return g.names(("array",), lambda n, d: d.dtype.startswith("float") and (nd is None or d.ndim in nd))


# -- expressions ---------------------------------------------------------------------------
def e_arith(g):
    a, ea = _operand(g)
    b, eb = _operand(g)
    op = g.rng.choice(ARITH + ("/", "//", "%", "**"))
    if op == "**":
        return f"{a} ** 2", ea
    if op in ("//", "%"):
        if not (ea and eb):
            return None
        return f"({a} {op} {b})", True
    return f"({a} {op} {b})", ea and eb and op != "/"


def e_bitwise(g):
    isint = lambda n, d: d.dtype.startswith(("int", "uint")) or d.dtype == "bool"  # noqa: E731
    a, _ = _operand(g, isint)
    op = g.rng.choice(("&", "|", "^", "<<", ">>", "~"))
    if op == "~":
        return f"(~{a})", True
    if op in ("<<", ">>"):
        return f"({a} {op} {g.rng.randint(0, 2)})", True
    b, _ = _operand(g, isint)
    return f"({a} {op} {b})", True


def e_compare(g):
    a, ea = _operand(g)
    b, eb = _operand(g)
    if not (ea and eb):
        return None
    return f"({a} {g.rng.choice(CMP)} {b})", True


UNARY_EXACT = ("np.abs", "np.negative", "np.square", "np.positive")
UNARY_SMOOTH = ("np.sin", "np.cos", "np.tanh", "np.exp", "np.arctan", "np.sinh", "np.cosh",
                "np.expm1", "np.log1p", "np.cbrt")
UNARY_DISC = ("np.floor", "np.ceil", "np.trunc", "np.rint", "np.sign", "np.signbit", "np.isnan",
              "np.logical_not", "np.isfinite")


def e_unary(g):
    a, ea = _operand(g)
    r = g.rng.random()
    if r < 0.35:
        return f"{g.rng.choice(UNARY_EXACT)}({a})", ea
    if r < 0.7:
        fn = g.rng.choice(UNARY_SMOOTH)
        arg = f"np.abs({a})" if fn == "np.log1p" else a
        return f"{fn}({arg})", False
    if r < 0.8:
        return f"np.sqrt(np.abs({a}))", False
    if not ea:
        return None
    return f"{g.rng.choice(UNARY_DISC)}({a})", True


def e_cast(g):
    names = g.names(("array", "npscalar"))
    if not names:
        return None
    a = g.rng.choice(names)
    d = g.desc(a)
    to = g.rng.choice(V.DTYPES)
    if d.dtype.startswith("float") and not to.startswith("float"):
        if not g.is_exact(a):
            return None
        vals = g.eval(a)
        if vals is None or to == "bool":
            pass
        else:
            info = np.iinfo(to)
            if any(np.asarray(v).size and (np.min(v) < info.min or np.max(v) > info.max) for v in vals):
                return None
    form = g.rng.random()
    if d.kind == "npscalar" or form < 0.5:
        return f"{a}.astype(np.{to})" if d.kind == "array" else f"np.{to}({a})", g.is_exact(a)
    if form < 0.75:
        return f"np.asarray({a}, dtype=np.{to})", g.is_exact(a)
    return f"np.array({a}, dtype=np.{to})", g.is_exact(a)


def _axis(g, nd):
    if nd == 0 or g.rng.random() < 0.4:
        return ""
    return f"axis={g.rng.randint(-nd, nd - 1)}"


def e_reduce(g):
    names = g.names(("array",))
    if not names:
        return None
    a = g.rng.choice(names)
    d = g.desc(a)
    ex = g.is_exact(a)
    ax = _axis(g, d.ndim)
    keep = ", keepdims=True" if ax and g.rng.random() < 0.2 else ""
    fn = g.rng.choice(("sum", "sum", "max", "min", "mean", "argmax", "argmin", "any", "all",
                       "prod", "cumsum", "std"))
    if fn in ("argmax", "argmin") and not ex:
        return None
    if fn == "cumsum":
        return f"np.cumsum({a}{', ' + ax if ax else ''})", ex
    if fn in ("argmax", "argmin", "cumsum"):
        keep = ""
    sep = ", " if ax and keep else ""
    return f"{a}.{fn}({ax}{sep}{keep})", ex and fn not in ("mean", "std")


def e_reduce_more(g):
    """Reductions with where=, the nan family, ufunc reduce/accumulate, x.flat and x.item()
    reads, np.select (issue 16)."""
    names = g.names(("array",))
    if not names:
        return None
    a = g.rng.choice(names)
    d = g.desc(a)
    ex = g.is_exact(a)
    ax = _axis(g, d.ndim)
    axs = ", " + ax if ax else ""
    mask = f"{a} > {'0.5' if d.dtype.startswith('float') else '1'}"
    forms = [(f"np.sum({a}{axs}, where={mask})", ex), (f"np.max({a}{axs}, where={mask}, initial=0)", ex),
             (f"np.mean({a}{axs}, where={mask})", False), (f"{a}.any({ax}{', ' if ax else ''}where={mask})", ex),
             (f"np.nanmax({a}{axs}, initial=1)", ex), (f"np.nanprod({a}{axs})", ex),
             (f"np.nancumsum({a}{axs})", ex), (f"np.nanvar({a}{axs})", False),
             (f"np.add.reduce({a}{axs})", ex), (f"np.logical_or.reduce({a}{axs})", ex),
             (f"np.multiply.accumulate({a})" if d.ndim <= 1 else f"np.add.accumulate({a}, axis=1)", ex),
             (f"np.select([{mask}], [{a}], default=2)", ex)]
    if d.ndim >= 1:
        forms += [(f"{a}.flat[0]", ex), (f"{a}.flat[::2]", ex), (f"{a}.flat[-1:]", ex),
                  (f"np.maximum.accumulate({a}, axis=0)", ex)]
    return g.rng.choice(forms)


def e_shape(g):
    names = g.names(("array",))
    if not names:
        return None
    a = g.rng.choice(names)
    d = g.desc(a)
    b = g.rng.choice(names)
    forms = [f"{a}.reshape(-1)", f"{a}.T", f"{a}[None]", f"np.expand_dims({a}, 0)", f"{a}.ravel()",
             f"{a}.copy()", f"np.concatenate([{a}, {b}])", f"np.stack([{a}, {b}])",
             f"np.transpose({a})", f"np.squeeze({a})", f"np.atleast_2d({a})",
             # numpy's index tricks (issue 18): concatenation with ranges and scalars
             f"np.r_[{a}, {b}]", f"np.c_[{a}, {b}]", f"np.r_[{a}.ravel(), 0:3, 1.5]",
             f"np.r_['-1', {a}, {b}]", f"{a}[np.s_[::2]]", f"{a}[np.index_exp[1:]]"]
    if d.ndim:
        ax = g.rng.randint(0, d.ndim - 1)
        forms += [f"np.flip({a}, axis={ax})", f"np.concatenate([{a}, {a}], axis={ax})",
                  f"np.roll({a}, 1, axis={ax})", f"np.repeat({a}, 2, axis={ax})"]
    if d.ndim >= 2:
        forms += [f"np.swapaxes({a}, 0, 1)", f"{a}.reshape({a}.shape[0], -1)"]
    if g.is_exact(a):
        forms += [f"np.sort({a})", f"np.unique({a})", f"np.nonzero({a})[0]"]
        if g.is_exact(b):  # numpy_calls/science: set routines over unique
            forms += [f"np.union1d({a}, {b})", f"np.setdiff1d({a}, {b})"]
    if d.dtype != "bool":  # science: numpy refuses boolean subtraction
        forms += [f"np.ediff1d({a})"]
        if d.ndim == 1 and min(g.desc(a, 0).shape[0], g.desc(a, 1).shape[0]) >= 2:
            forms += [f"np.lib.stride_tricks.sliding_window_view({a}, 2)"]
    return g.rng.choice(forms), g.is_exact(a) and g.is_exact(b)


def gen_index(g, a: str, write=False) -> str | None:
    """An index for array ``a`` valid in both input sets (checked by evaluating it)."""
    d0, d1 = g.desc(a, 0), g.desc(a, 1)
    if d0.ndim == 0:
        return g.rng.choice(("...", "()", "None"))
    n = min(d0.shape[0], d1.shape[0])
    r = g.rng

    def one(size):
        k = r.random()
        if k < 0.3 and size:
            return str(r.randint(-size, size - 1))
        if k < 0.6:
            parts = [r.choice(("", "1", "-1", "0", "2", "-2")), r.choice(("", "3", "-1", "1", "None"))]
            step = r.choice(("", "", "2", "-1", "-2"))
            return ":".join(parts + ([step] if step else []))
        if k < 0.7 and size:
            return f"np.array({[r.randint(-size, size - 1) for _ in range(r.randint(1, 3))]})"
        return ":"
    k = r.random()
    if k < 0.55:
        idx = one(n)
    elif k < 0.65 and g.is_exact(a) and d0.dtype != "bool":
        idx = f"{a} > {r.choice(('0', '1', '-1', '0.5'))}" if d0.dtype.startswith("float") else f"{a} > {r.randint(-1, 2)}"
    elif k < 0.72:
        idx = r.choice((f"..., {one(min(d0.shape[-1], d1.shape[-1]))}", f"None, {one(n)}", "..."))
    elif d0.ndim >= 2:
        m = min(d0.shape[1], d1.shape[1])
        idx = f"{one(n)}, {one(m)}"
    else:
        idx = one(n)
    return idx


def e_index(g):
    names = g.names(("array",))
    if not names:
        return None
    a = g.rng.choice(names)
    idx = gen_index(g, a)
    return f"{a}[{idx}]", g.is_exact(a)


def e_create(g):
    names = g.names(("array",))
    if not names:
        return None
    a = g.rng.choice(names)
    d = g.desc(a)
    to = g.rng.choice(V.DTYPES)
    forms = [f"np.zeros_like({a})", f"np.ones({a}.shape, dtype=np.{to})", f"np.full_like({a}, 2)",
             f"np.zeros_like({a}, dtype=np.{to})", f"np.empty_like({a}) * 0" if False else f"np.ones_like({a})"]
    if d.ndim:
        forms += [f"np.arange({a}.shape[0])", f"np.arange({a}.shape[-1], dtype=np.{to})",
                  f"np.zeros(({a}.shape[0], 2))", f"np.linspace(0.0, 1.0, {a}.shape[0])",
                  # shape= replaces the template's shape (complex templates were wrong)
                  f"np.ones_like({a}, shape=({a}.shape[-1], 2))",
                  f"np.full_like({a}, 3, shape=({a}.shape[0],), dtype=np.{to})"]
    return g.rng.choice(forms), "linspace" not in forms


def e_select(g):
    a, ea = _operand(g)
    b, eb = _operand(g)
    r = g.rng.random()
    if r < 0.4:
        c, ec = e_compare(g) or (None, False)
        if c is None:
            return None
        return f"np.where({c}, {a}, {b})", ea and eb
    if r < 0.8:
        return f"np.{g.rng.choice(('maximum', 'minimum'))}({a}, {b})", ea and eb
    return f"np.clip({a}, -1, 2)", ea


def e_matmul(g):
    fl = _float_name(g, (1, 2))
    if not fl:
        return None
    a, b = g.rng.choice(fl), g.rng.choice(fl)
    return g.rng.choice((f"({a} @ {b})", f"np.dot({a}, {b})", f"({a} @ {b}.T)")), False


def e_poly_linalg(g):
    """np.poly1d objects and the LU family of np.linalg (issue 16): evaluation, derivative and
    arithmetic of polynomials from a float array's values; det/solve/inv/cholesky of a
    well-conditioned square matrix built from an array (A.T @ A plus a dominant diagonal),
    integer matrix powers (exact) and multi_dot."""
    fl = _float_name(g, (1, 2))
    if not fl:
        return None
    a = g.rng.choice(fl)
    b = g.rng.choice(fl)
    d = g.desc(a)
    p = f"np.poly1d({a}.ravel()[:4])"
    forms = [(f"{p}({b})", False), (f"{p}.deriv()({b})", False), (f"(2 * {p} - 1).coeffs", False),
             (f"({p} * {p} + {p}).coeffs", False), (f"{p}.integ().coeffs", False),
             (f"np.polyval({p}, {b})", False), (f"{p}.order", True)]
    if d.ndim == 2 and min(g.desc(a, 0).shape[1], g.desc(a, 1).shape[1]) <= 6:
        s = f"({a}.T @ {a} + np.eye({a}.shape[1]) * (np.abs({a}).sum() + 1.0))"
        forms += [(f"np.linalg.det({s})", False), (f"np.linalg.inv({s})", False),
                  (f"np.linalg.solve({s}, {a}[0])", False), (f"np.linalg.cholesky({s})", False),
                  (f"np.linalg.slogdet({s})[1]", False),
                  (f"np.linalg.matrix_power(({a}.T @ {a} > 0).astype(np.int64), 3)", True),
                  (f"np.linalg.multi_dot([{a}, {a}.T, {a}])", False)]
    return g.rng.choice(forms)


def e_scalar(g):
    names = g.names(("array",), lambda n, d: d.ndim > 0)
    if not names:
        return None
    a = g.rng.choice(names)
    return g.rng.choice((f"{a}.shape[0]", f"len({a})", f"{a}.size", f"{a}.ndim")), True


# -- complex values (issue 11) -------------------------------------------------------------
C_UNARY = ("np.abs", "np.conj", "np.real", "np.imag", "np.angle", "np.exp", "np.sqrt",
           "np.square", "np.negative", "np.isfinite", "np.tan", "np.tanh", "np.arcsin",
           "np.arccos", "np.arctan", "np.arcsinh", "np.arccosh", "np.arctanh", "np.log1p",
           "np.expm1", "np.sort", "np.argsort", "np.max", "np.argmin", "np.var", "np.nansum",
           "np.median", "np.unique", "np.mean", "np.nanmean", "np.prod", "np.add.reduce",
           "np.multiply.reduce", "np.add.accumulate", "np.multiply.accumulate",
           "np.maximum.reduce", "np.linalg.norm", "np.nanmax", "np.nanmin")
# order, products and n-d transforms of complex names
C_MORE = ("np.maximum({z}, {w})", "np.fmin({z}, {w})", "({z} ** {w})", "np.argmax({z}, axis=0)",
          "np.min({z}, axis=-1)", "np.std({z}, axis=0)", "np.einsum('...,...->...', {z}, {w})",
          "np.tensordot({z}, {w}, axes=0)", "np.array([{z}, {w}])", "np.fft.rfftn(np.real({z}))",
          "np.fft.hfft({z})", "np.sort_complex({z})", "np.clip({z}, {w}, None)",
          "np.clip({z}, -0.5 - 0.5j, 1 + 0.25j)", "{z}.clip(-1, {w})",
          "np.convolve(np.ravel({z}), np.ravel({w}))",
          "np.correlate(np.ravel({z}), np.ravel({w}), 'full')", "np.median({z}, axis=-1)",
          "np.linalg.norm({z}, 1, axis=-1)", "np.linalg.norm({z}, np.inf)",
          "np.unique({z}, return_counts=True)[1]", "np.mean({z}, axis=0)", "np.ediff1d({z})",
          "np.ediff1d({z}, to_begin=1j)", "np.trapezoid({z}, axis=0)", "np.trapezoid({z}, dx=0.5j)",
          "np.union1d(np.ravel({z}), np.ravel({w}))", "np.nanargmax({z})",
          "np.nanargmin({z}, axis=0)", "np.setdiff1d({z}, {w})",
          # extremes, truth, index tricks, gradient, unique rows (issues 11 and 13)
          "max(np.ravel({z}))", "min(np.ravel({z})[0], np.ravel({w})[-1])",
          "np.max({z}, initial=-1j)", "np.minimum.accumulate({z}, axis=0)",
          "np.logical_xor({z}, {w})", "np.r_[np.ravel({z}), 1j, np.ravel({w})]",
          "np.gradient(np.ravel({z}))", "np.unique({z}, axis=0)", "np.round({z}, 1)",
          "np.isclose({z}, {w})", "np.ptp({z})", "np.sum({z}, initial=1)", "np.append({z}, 1j)",
          "np.pad({z}, 1)", "np.diff({z}, axis=0)")


def _complex_name(g):
    return g.names(("array", "npscalar"), lambda n, d: d.dtype.startswith("complex"))


def e_complex(g):
    """A complex value or an operation on one: made from real operands with ``1j`` or
    ``np.complex128``, or arithmetic, parts, abs/angle, exp/sqrt, sums, fft of a complex name."""
    r = g.rng
    names = _complex_name(g)
    choice = r.random()
    if not names or choice < 0.3:
        a, _ = _operand(g, lambda n, d: d.dtype.startswith(("float", "int")))
        form = r.choice(("({a} + 1j)", "({a} * (0.5 - 2j))", "np.complex128({a})",
                         "({a} * 1j)", "np.complex64({a})"))
        return form.format(a=a), False
    z = r.choice(names)
    if choice < 0.55:
        b, _ = _operand(g)
        op = r.choice(("+", "-", "*", "/"))
        return f"({z} {op} {b})", False
    if choice < 0.7:
        return f"{r.choice(C_UNARY)}({z})", False
    if choice < 0.8:
        same = [n for n in names if g.desc(n).shape == g.desc(z).shape]
        return r.choice(C_MORE).format(z=z, w=r.choice(same)), False
    if choice < 0.9:
        return r.choice((f"{z}.sum()", f"np.cumsum({z})", f"({z} == {z})", f"{z}.real",
                         f"{z}.conjugate()", f"({z} ** 2)", f"{z}.T")), False
    return r.choice((f"np.fft.fft({z})", f"np.fft.ifft({z})", f"np.fft.fftshift({z})")), False


EXPRESSIONS = [
    (6, ("compile",), e_arith), (2, ("compile",), e_bitwise), (3, ("compile",), e_compare),
    (4, ("compile",), e_unary), (3, ("compile",), e_cast), (4, ("compile",), e_reduce),
    (4, ("compile",), e_shape), (5, ("compile",), e_index), (2, ("compile",), e_create),
    (3, ("compile",), e_select), (1, ("compile",), e_matmul), (1, ("compile",), e_scalar),
    (1, ("compile",), e_complex),
    (2, ("compile",), e_reduce_more), (1, ("compile",), e_poly_linalg),
]


def expr(g, table=None):
    """A valid expression ``(text, exact, values)`` or None."""
    table = [row for row in (table or getattr(g, "expressions", EXPRESSIONS)) if g.mode in row[1]]
    weights = [w for w, _, _ in table]
    for _ in range(6):
        _, _, fn = g.rng.choices(table, weights)[0]
        got = fn(g)
        if got is None:
            continue
        vals = g.eval(got[0])
        if vals is not None:
            return got[0], got[1], vals
    return None
