"""Statement constructs: assignments, writes through views/aliases/arguments, control flow,
early returns, helpers, lists (``STATEMENTS``: ``(weight, modes, builder)``)."""

from __future__ import annotations

import numpy as np

from fuzzing import constructs as C
from fuzzing import values as V


def _assign_new(g, table=None):
    got = C.expr(g, table)
    if got is None:
        return False
    text, exact, _ = got
    name = g.fresh()
    if g.try_stmt([f"{name} = {text}"], assigned=[name]):
        g.exact[name] = exact
        return True
    return False


def s_assign(g):
    return _assign_new(g)


def s_rebind(g):
    names = [n for n in g.names(("array", "npscalar", "pyscalar")) if n not in g.params or g.rng.random() < 0.3]
    got = C.expr(g)
    if not names or got is None:
        return False
    n = g.rng.choice(names)
    new = V.describe(got[2][0])
    if g.depth > 1 and (new.kind, new.dtype, new.ndim) != (g.desc(n).kind, g.desc(n).dtype, g.desc(n).ndim):
        return False  # a branch or loop that may not run must keep the name's type
    if g.try_stmt([f"{n} = {got[0]}"], assigned=[n]):
        g.exact[n] = got[1] and (g.depth == 1 or g.exact.get(n, False))
        return True
    return False


def _value_for(g, target_vals, int_target):
    """A value for a write whose indexed part is ``target_vals`` (both sets)."""
    r = g.rng.random()
    if r < 0.45:
        return C._lit(g, "int" if int_target else "any")
    shapes = [np.shape(v) for v in target_vals]
    for _ in range(4):
        got = C.expr(g)
        if got is None:
            continue
        text, exact, vals = got
        try:
            for v, s in zip(vals, shapes):
                np.broadcast_to(v, s)
        except ValueError:
            continue
        return text, exact
    return C._lit(g, "int" if int_target else "any")


def _mark_inexact(g, target):
    for k in range(2):
        for n in g.snap[k].get("__shares__", {}).get(target, ()):
            g.exact[n] = False
    g.exact[target] = False


def _argument_memory(g, n):
    return any(p in g.snap[k].get("__shares__", {}).get(n, ()) for k in range(2) for p in g.params)


def s_setitem(g, aug=False):
    names = g.names(("array",), lambda n, d: d.ndim > 0 or g.rng.random() < 0.3)
    if g.mode == "grad":  # item assignment into copies, never into the arguments
        names = [n for n in names if not _argument_memory(g, n)]
    if not names:
        return False
    t = g.rng.choice(names)
    idx = C.gen_index(g, t, write=True)
    cur = g.eval(f"{t}[{idx}]")
    if cur is None:
        return False
    d = g.desc(t)
    int_target = not d.dtype.startswith("float")
    val, exact = _value_for(g, cur, int_target)
    if int_target and not exact:
        return False
    if aug:
        ops = ("+", "-", "*") + (("//", "%") if exact and g.is_exact(t) else ()) + \
              (("|", "&", "^") if int_target else ("/",))
        op = g.rng.choice(ops)
        line = f"{t}[{idx}] {op}= {val}"
        exact = exact and op != "/"
    else:
        line = f"{t}[{idx}] = {val}"
    if g.try_stmt([line]):
        if not exact:
            _mark_inexact(g, t)
        return True
    return False


def s_augset(g):
    return s_setitem(g, aug=True)


def s_part_write(g):
    """``z.real[i] = v`` / ``z.imag[i] = v`` into a complex array (issue 11)."""
    names = g.names(("array",), lambda n, d: d.dtype.startswith("complex") and d.ndim > 0)
    if not names:
        return False
    t = g.rng.choice(names)
    part = g.rng.choice(("real", "imag"))
    idx = C.gen_index(g, t, write=True)
    cur = g.eval(f"{t}.{part}[{idx}]")
    if cur is None:
        return False
    val, exact = _value_for(g, cur, False)
    if g.try_stmt([f"{t}.{part}[{idx}] = {val}"]):
        if not exact:
            _mark_inexact(g, t)
        return True
    return False


def s_complex_view_write(g):
    """A view of a complex array, written through (issue 11): ``v = z[1:]`` then ``v[i] = x``
    (or ``v.real[i] = x``); numpy's write reaches ``z`` and every other view of it. Half the
    time one of fuzzing.complex_idioms instead (memory chosen at run time, run-time lists,
    out=)."""
    names = g.names(("array",), lambda n, d: d.dtype.startswith("complex") and d.ndim > 0)
    if not names:
        return False
    z = g.rng.choice(names)
    if g.rng.random() < 0.5:  # memory chosen at run time, run-time lists, out= (issue 11)
        from fuzzing.complex_idioms import complex_idiom
        return complex_idiom(g, z)
    forms = [z, f"{z}[1:]", f"{z}[::-1]", f"{z}[::2]", f"{z}[...]", f"{z}[-1:]"]
    if g.desc(z).ndim >= 2:
        forms += [f"{z}[1]", f"{z}[:, 0]", f"{z}[:, 1:]", f"{z}[0]"]
    v = g.fresh("v")
    if not g.try_stmt([f"{v} = {g.rng.choice(forms)}"], assigned=[v]):
        return False
    g.exact[v] = g.is_exact(z)
    if v not in g.names(("array",), lambda n, d: d.ndim > 0):
        return True  # (a 0-d view, or a statement no input set reaches: no values known)
    part = g.rng.choice(("", "", ".real", ".imag"))
    idx = C.gen_index(g, v, write=True)
    cur = g.eval(f"{v}{part}[{idx}]")
    if cur is None:
        return True
    val, exact = _value_for(g, cur, False)
    if g.try_stmt([f"{v}{part}[{idx}] = {val}"]) and not exact:
        _mark_inexact(g, v)
        _mark_inexact(g, z)
    return True


def s_augname(g):
    names = g.names(("array", "npscalar", "pyscalar"))
    if not names:
        return False
    t = g.rng.choice(names)
    d = g.desc(t)
    val, exact = _value_for(g, [g.value(t, 0), g.value(t, 1)], not d.dtype.startswith("float"))
    op = g.rng.choice(("+", "-", "*", "/", "//", "|", "<<"))
    if op in ("//",) and not (exact and g.is_exact(t)):
        return False
    if op == "<<":
        val = "1"
    if g.try_stmt([f"{t} {op}= {val}"], assigned=[t]):
        if not exact or op == "/":
            _mark_inexact(g, t)
        return True
    return False


def s_view(g):
    names = g.names(("array",))
    if not names:
        return False
    a = g.rng.choice(names)
    d = g.desc(a)
    forms = [a, f"{a}[None]", f"{a}.reshape(-1)", f"{a}.T", f"{a}[...]"]
    if d.ndim:
        forms += [f"{a}[1:]", f"{a}[::-1]", f"{a}[::2]", f"{a}[-1]", f"{a}[0]", f"{a}[..., 0]"]
    if d.ndim >= 2:
        forms += [f"{a}[:, 1:]", f"{a}[1]", f"{a}[:, 0]"]
    v = g.fresh("v")
    if g.try_stmt([f"{v} = {g.rng.choice(forms)}"], assigned=[v]):
        g.exact[v] = g.is_exact(a)
        return True
    return False


def cond(g) -> str | None:
    """A run-time condition on exact values; thresholds between the two sets' values when they
    differ, so the two input sets take different paths."""
    for _ in range(6):
        names = [n for n in g.names(("array", "npscalar", "pyscalar"))
                 if g.is_exact(n) or (g.mode == "grad" and g.desc(n).dtype.startswith("float"))]
        if not names:
            return None
        a = g.rng.choice(names)
        d = g.desc(a)
        if d.kind == "array":
            form = g.rng.choice((f"{a}.sum()", f"{a}.max()" if 0 not in d.shape else f"{a}.size",
                                 f"{a}.shape[0]" if d.ndim else f"{a}[()]", f"{a}.any()"))
        else:
            form = a
        vals = g.eval(form)
        if vals is None or any(np.ndim(v) for v in vals):
            continue
        if g.mode == "grad" and "any" in form:
            continue
        if isinstance(vals[0], (bool, np.bool_)):
            return form if g.rng.random() < 0.6 else f"not {form}"
        lo, hi = sorted(float(np.real(v)) for v in vals)  # (complex: ordered by the real part first)
        thr = (lo + hi) / 2 if hi > lo else lo + g.rng.choice((-0.5, 0.5))
        thr = round(thr * 4) / 4 + 0.125 if g.mode != "grad" else thr + 0.37
        c = f"{form} {g.rng.choice(('>', '<'))} {thr}"
        if g.rng.random() < 0.15:
            other = cond(g) if g.rng.random() < 0.5 else None
            if other:
                c = f"{c} {g.rng.choice(('and', 'or'))} {other}"
            else:
                c = f"not ({c})"
        return c
    return None


def body(g, n):
    for _ in range(n):
        stmt(g, nested=True)


def s_if(g):
    c = cond(g)
    if c is None or g.depth > g.max_depth or not g.open_block(f"if {c}:", "if"):
        return False
    body(g, g.rng.randint(1, 3))
    g.close_block()
    r = g.rng.random()
    if r < 0.25:
        c2 = cond(g)
        if c2 and g.open_block(f"elif {c2}:", "if"):
            body(g, g.rng.randint(1, 2))
            g.close_block()
            r = 0.3
    if 0.25 <= r < 0.6 and g.open_block("else:", "if"):
        body(g, g.rng.randint(1, 2))
        g.close_block()
    return True


def _loop_exit(g):
    if g.rng.random() < 0.35:
        c = cond(g)
        if c and g.open_block(f"if {c}:", "if"):
            g.try_stmt([g.rng.choice(("break", "continue"))])
            g.close_block()


def s_for(g):
    if g.depth > g.max_depth:
        return False
    names = g.names(("array",), lambda n, d: d.ndim > 0)
    i = g.fresh("i")
    forms = [f"for {i} in range(3):"]
    if names:
        a = g.rng.choice(names)
        forms += [f"for {i} in range({a}.shape[0]):", f"for {i} in range(min({a}.shape[0], 3)):",
                  f"for {i} in range({a}.shape[-1] - 1, -1, -1):"]
        if g.mode == "compile":
            forms.append(f"for {i} in {a}:")
    if not g.open_block(g.rng.choice(forms), "for"):
        return False
    g.exact[i] = True
    g.blocks[-1]["new"].add(i)
    n = g.rng.randint(1, 3)
    body(g, n // 2)
    _loop_exit(g)
    body(g, n - n // 2)
    g.close_block()
    return True


def s_while(g):
    if g.depth > g.max_depth:
        return False
    k = g.fresh("k")
    names = g.names(("array",), lambda n, d: d.ndim > 0)
    # at most 4 trips whatever the body does to the array (programs are deterministic per seed)
    bound = f"min({g.rng.choice(names)}.shape[0], 4)" if names and g.rng.random() < 0.6 else "3"
    if not g.try_stmt([f"{k} = 0"], assigned=[k]):
        return False
    g.exact[k] = True
    c = cond(g) if g.rng.random() < 0.5 else None
    header = f"while {k} < {bound}" + (f" and {c}" if c else "") + ":"
    if not g.open_block(header, "while", first=f"{k} += 1"):
        return False
    body(g, g.rng.randint(1, 2))
    _loop_exit(g)
    g.close_block()
    return True


def ret_expr(g):
    """Up to three returned values; the first early return fixes the kinds of later ones."""
    want = g.returns[0] if g.returns else None
    if want == "none":  # an early 'return None': one value of one kind on the other paths
        if len(g.returns) > 1:
            want = g.returns[1]
        else:
            names = g.names(("array", "npscalar", "pyscalar"))
            if not names:
                return None
            n = g.rng.choice(names)
            g.returns.append([(g.desc(n).kind, g.desc(n).dtype, g.desc(n).ndim)])
            return [n]
    if g.mode == "grad":
        names = g.names(("array", "npscalar"), lambda n, d: d.dtype.startswith("float"))
        names.sort(key=lambda n: int("".join(c for c in n if c.isdigit()) or 0))
        return [" + ".join(f"np.sum({n})" for n in names[-2:])] if names else None  # the latest values: the result depends on them
    if want is None:
        names = g.names(("array", "npscalar", "pyscalar"))
        if not names:
            return None
        picked = g.rng.sample(names, min(len(names), g.rng.choice((1, 1, 2, 3))))
        g.returns.append([(g.desc(n).kind, g.desc(n).dtype, g.desc(n).ndim) for n in picked])
        return picked
    out = []
    for kind, dtype, nd in want:
        fits = [n for n in g.visible() if (g.desc(n).kind, g.desc(n).dtype, g.desc(n).ndim) == (kind, dtype, nd)]
        if fits:
            out.append(g.rng.choice(fits))
        elif kind == "array":
            out.append(f"np.zeros({(0,) * nd}, dtype=np.{dtype})")
        elif kind == "npscalar":
            out.append(f"np.{dtype}(0)")
        else:
            out.append({"int": "0", "float": "0.0", "bool": "False", "complex": "0j"}[dtype])
    return out


def _ret_line(g, vals):
    if g.mode == "grad" or g.returns and g.returns[0] == "none":
        return f"return {vals[0]}"
    if len(vals) == 1 and g.rng.random() < 0.6:
        return f"return {vals[0]}"
    if g.rng.random() < 0.15:
        return f"return [{', '.join(vals)}]" if not g.returns[0] or len(g.returns) > 1 else f"return {', '.join(vals)}"
    return f"return {', '.join(vals)}"


def s_early_return(g):
    c = cond(g)
    if c is None or g.depth > g.max_depth:
        return False
    if not g.open_block(f"if {c}:", "if"):
        return False
    if g.mode == "compile" and not g.returns and g.rng.random() < 0.15:
        # 'return None' on a run-time path (None for an empty request): later returns give
        # one value (structure.optional_array_join)
        ok = g.try_stmt(["return None"])
        if ok:
            g.returns.append("none")
        g.close_block()
        return ok
    vals = ret_expr(g)
    ok = vals is not None and g.try_stmt([_ret_line(g, vals)])
    g.close_block()
    return ok


HELPERS = [
    ("def {h}(p, q):\n    r = p {op} q\n    return r\n", 2),
    ("def {h}(p):\n    if p.sum() > 1.5:\n        return p * 2\n    return p - 1\n", 1),
    ("def {h}(p):\n    p[...] += 1\n    return None\n", 1),
    ("def {h}(p, q):\n    s = p.sum()\n    for j in range(2):\n        s = s + q.max()\n    return s\n", 2),
]


def s_helper(g):
    tmpl, nargs = g.rng.choice(HELPERS)
    h = g.fresh("h")
    src = tmpl.format(h=h, op=g.rng.choice(("+", "-", "*")))
    names = g.names(("array",))
    if not names:
        return False
    args = [g.rng.choice(names) for _ in range(nargs)]
    g.helpers.append(src)
    ns: dict = {"np": np}
    exec(src, ns)
    g.helper_ns[h] = ns[h]
    t = g.fresh()
    if g.try_stmt([f"{t} = {h}({', '.join(args)})"], assigned=[t]):
        g.exact[t] = all(g.is_exact(a) for a in args)
        if "+= 1" in src:
            g.scoped_out.add(t)
        return True
    g.helpers.pop()
    return False


def s_list(g):
    names = g.names(("array",))
    if not names:
        return False
    lst = g.fresh("L")
    a, b = g.rng.choice(names), g.rng.choice(names)
    if not g.try_stmt([f"{lst} = [{a}, {b}]"], assigned=[lst]):
        return False
    t = g.fresh()
    use = g.rng.choice((f"np.stack({lst})", f"np.concatenate({lst})", f"{lst}[-1]", f"len({lst})",
                        f"np.array({lst})"))
    if g.try_stmt([f"{t} = {use}"], assigned=[t]):
        g.exact[t] = g.is_exact(a) and g.is_exact(b)
    return True


def s_assert(g):
    """A run-time check that holds on both input sets (``assert``, or ``raise`` under the
    negated condition), with a message formatting a scalar: the check state flows through the
    branches and loops around it (pyonnx/frontend/lower/checks.py) and must never fire."""
    names = [n for n in g.names(("array", "npscalar", "pyscalar"))
             if g.is_exact(n) and (g.desc(n).kind != "array" or 0 not in g.desc(n).shape)]
    if not names:
        return False
    a = g.rng.choice(names)
    form = f"{a}.max()" if g.desc(a).kind == "array" else a
    vals = g.eval(form)
    if vals is None or any(np.ndim(v) for v in vals) or \
            any(isinstance(v, (bool, np.bool_)) for v in vals):
        return False
    lo = min(float(np.real(v)) for v in vals)
    c = f"{form} >= {np.floor(lo) - 1.0}"
    msg = g.rng.choice((f'f"{a} is {{{form}}}"', '"out of range"', None))
    if g.rng.random() < 0.5:
        return g.try_stmt([f"assert {c}" + (f", {msg}" if msg else "")])
    return g.try_stmt([f"if not ({c}):", f"    raise ValueError({msg or ''})"])


from fuzzing import box_idioms, idioms  # noqa: E402  (its rows use cond() above)

STATEMENTS = [
    (8, ("compile", "grad"), s_assign), (2, ("compile", "grad"), s_rebind),
    (4, ("compile", "grad"), s_setitem), (3, ("compile",), s_augset), (2, ("compile",), s_augname),
    (3, ("compile",), s_view), (3, ("compile", "grad"), s_if), (2, ("compile", "grad"), s_for),
    (1, ("compile", "grad"), s_while), (1, ("compile", "grad"), s_early_return),
    (1, ("compile",), s_helper), (1, ("compile",), s_list), (1, ("compile", "grad"), s_assert),
    (1, ("compile",), idioms.s_sentinel), (1, ("compile",), idioms.s_dict_branches),
    (1, ("compile",), idioms.s_records), (1, ("compile",), idioms.s_mixed_kind),
    (1, ("compile",), idioms.s_running_extreme), (1, ("compile",), idioms.s_python_start),
    (1, ("compile",), idioms.s_list_sum), (1, ("compile", "grad"), idioms.s_long_recurrence),
    (1, ("compile", "grad"), box_idioms.s_column_chain), (1, ("compile",), box_idioms.s_argmax_parts),
    (1, ("compile", "grad"), box_idioms.s_loop_columns),
    (1, ("compile",), s_part_write), (1, ("compile",), s_complex_view_write),
]


def stmt(g, nested=False, table=None):
    table = [row for row in (table or g.statements) if g.mode in row[1]]
    if nested:
        table = [row for row in table if row[2] is not s_helper]
    weights = [w for w, _, _ in table]
    for _ in range(5):
        _, _, fn = g.rng.choices(table, weights)[0]
        if fn(g):
            return True
    return False


def generate_body(g, n):
    for _ in range(n):
        stmt(g)


def final_return(g):
    vals = ret_expr(g)
    if vals is None:
        g.lines.append("    return None")
        return
    g.depth = 1
    if not g.try_stmt([_ret_line(g, vals)]):
        g.lines.append("    return None")
