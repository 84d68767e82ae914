"""Statements in the shapes everyday numpy code writes them (issue 15): a ``None`` sentinel
found in a loop, a dict bound differently in the branches of an ``if``, tuples appended to a
list in a loop. Rows of ``statements.STATEMENTS``; each keeps the program valid in Python on
both input sets (the generator runs every candidate statement) and binds plain names that
later statements may use."""

from __future__ import annotations


def _vectors(g) -> list[str]:
    """Exact 1-d arrays (their items are numpy scalars, comparable)."""
    return g.names(("array",), lambda n, d: d.ndim == 1 and g.is_exact(n))


def s_sentinel(g):
    """``best = None; for v in a: if best is None or v > best: best = v`` then a default."""
    names = _vectors(g)
    if not names:
        return False
    from fuzzing.statements import cond

    a = g.rng.choice(names)
    dtype = g.desc(a).dtype
    best, v, t = g.fresh("best"), g.fresh("v"), g.fresh()
    op = g.rng.choice((">", "<", ">="))
    test = g.rng.choice((f"{best} is None or {v} {op} {best}",
                         f"{best} is None or not ({best} {op} {v})"))
    head = g.rng.choice((f"for {v} in {a}:", None))
    i = g.fresh("i")
    if head is None:
        loop = [f"for {i} in range({a}.shape[0]):", f"    {v} = {a}[{i}]"]
    else:
        loop = [head]
    use = g.rng.choice((f"{t} = np.{dtype}(0) if {best} is None else {best}",
                        f"{t} = {best} if {best} is not None else np.{dtype}(0)"))
    c = cond(g) if g.rng.random() < 0.3 else None
    if c:  # a run-time branch around the search
        lines = [f"{best} = None", f"if {c}:"] + ["    " + ln for ln in loop] + [
            f"        if {test}:", f"            {best} = {v}", use]
    else:
        lines = [f"{best} = None"] + loop + [f"    if {test}:", f"        {best} = {v}", use]
    if not g.try_stmt(lines, assigned=[best, v, t, i]):
        return False
    g.scoped_out.update((best, v, i))  # (None or a number: other statements need one type)
    g.exact[t] = True
    return True


def s_running_extreme(g):
    """``m = start; for i in range(len(a)): m = max(m, a[i])`` (``min``, a descending range,
    ``for v in a``, ``np.maximum``): the vectorizer's running extreme (vectorize/extremes.py)
    from a literal, from ``a[0]`` or from another exact scalar of the data's dtype."""
    names = _vectors(g)
    if not names:
        return False
    a = g.rng.choice(names)
    dtype = g.desc(a).dtype
    m, v, i = g.fresh("m"), g.fresh("v"), g.fresh("i")
    fn = g.rng.choice(("max", "min", "np.maximum", "np.minimum"))
    big = "inf" if fn in ("min", "np.minimum") else "-inf"
    starts = [f"np.{dtype}(0)", f"np.{dtype}({'' if big == 'inf' else '-'}3)"]
    if dtype.startswith("float"):
        starts += [f"np.{dtype}(np.{big[-3:]})" if big == "inf" else f"np.{dtype}(-np.inf)",
                   f"np.{dtype}(-0.0)", f"np.{dtype}(np.nan)"]
    starts.append(f"{a}[0] if {a}.shape[0] else np.{dtype}(0)")
    start = g.rng.choice(starts)
    head = g.rng.choice((f"for {i} in range({a}.shape[0]):",
                         f"for {i} in range({a}.shape[0] - 1, -1, -1):", f"for {v} in {a}:"))
    item = v if head.startswith(f"for {v}") else f"{a}[{i}]"
    lines = [f"{m} = {start}", head, f"    {m} = {fn}({m}, {item})"]
    if not g.try_stmt(lines, assigned=[m, v, i]):
        return False
    g.scoped_out.update((v, i))
    g.exact[m] = True
    return True


def s_python_start(g):
    """``s = 0.1`` (a Python float a float32 or float16 state holds only rounded) before a loop
    over a float vector that may run 0 times or never rebind it (a sum, ``max``, an ``if``
    that keeps the larger): numpy keeps the Python float there
    (lower/control_flow/python_entry.py)."""
    names = g.names(("array",), lambda n, d: d.ndim == 1 and d.dtype.startswith("float"))
    if not names:
        return False
    a = g.rng.choice(names)
    s, i = g.fresh("s"), g.fresh("i")
    start = g.rng.choice(("0.1", "-2.7", "1e-3", "0.5", "3.0"))
    bound = g.rng.choice((f"{a}.shape[0]", f"{a}.shape[0] - 1", f"min({a}.shape[0], 2) - 1"))
    item = f"{a}[{i}]"
    step = g.rng.choice(([f"    {s} = {s} + {item}"], [f"    {s} = max({s}, {item})"],
                         [f"    if {item} > {s}:", f"        {s} = {item}"],
                         [f"    {s} = np.maximum({s}, {item}) * {item}"]))
    if not g.try_stmt([f"{s} = {start}", f"for {i} in range({bound}):", *step],
                      assigned=[s, i]):
        return False
    g.scoped_out.add(i)  # (unbound after 0 trips)
    g.exact[s] = False
    return True


def s_dict_branches(g):
    """``d = {...}`` with the same keys on both paths of a run-time ``if``, then its items."""
    from fuzzing.statements import cond

    names = g.names(("array",), lambda n, d: d.ndim >= 1)
    c = cond(g)
    if not names or c is None:
        return False
    a = g.rng.choice(names)
    d, t, u = g.fresh("d"), g.fresh(), g.fresh()
    n1, n2 = g.rng.sample((1, 2, 3), 2)
    lines = [f"if {c}:", f"    {d} = {{'u': {a}, 'n': {n1}}}", "else:",
             f"    {d} = {{'u': {a}[::-1], 'n': {n2}}}",
             f"{t} = {d}['u']", f"{u} = {d}['n']"]
    if not g.try_stmt(lines, assigned=[d, t, u]):
        return False
    g.scoped_out.add(d)
    g.exact[t] = g.is_exact(a)
    g.exact[u] = True
    return True


def s_records(g):
    """Tuples appended in a loop, then read back: ``len``, the last item, a loop over them."""
    names = _vectors(g)
    if not names:
        return False
    a = g.rng.choice(names)
    dtype = g.desc(a).dtype
    p, i, t, u = g.fresh("P"), g.fresh("i"), g.fresh(), g.fresh()
    keep = g.rng.choice((None, f"{i} % 2 == 0", f"{a}[{i}] != {a}[0]"))
    push = f"{p}.append(({i}, {a}[{i}]))"
    lines = [f"{p} = []", f"for {i} in range({a}.shape[0]):"] + (
        [f"    if {keep}:", f"        {push}"] if keep else [f"    {push}"])
    lines += [f"{t} = len({p})",
              g.rng.choice((f"{u} = {p}[-1][1] if {p} else np.{dtype}(0)",
                            f"{u} = np.{dtype}(0)\nfor _j, _w in {p}:\n    {u} = _w"))]
    lines = [ln for chunk in lines for ln in chunk.split("\n")]
    if not g.try_stmt(lines, assigned=[p, i, t, u]):
        return False
    g.scoped_out.update((p, i))
    g.exact[t] = True
    g.exact[u] = g.is_exact(a)
    return True


def s_list_sum(g):
    """Numbers appended to a list in a loop (some iterations only), then ``sum(L)`` or
    ``sum(L, start)``: Python's sum of a run-time list, its type and its empty case
    (lower/seq_sum.py)."""
    names = _vectors(g)
    if not names:
        return False
    a = g.rng.choice(names)
    lst, i, t = g.fresh("L"), g.fresh("i"), g.fresh()
    item = g.rng.choice((f"{a}[{i}]", f"float({a}[{i}])", f"{a}[{i}] * 2", f"int({i})"))
    keep = g.rng.choice((None, f"{a}[{i}] > {a}[0]", f"{i} % 2 == 1"))
    push = f"{lst}.append({item})"
    start = g.rng.choice(("", "", ", 0.5", ", 0", ", start=1.5"))
    lines = [f"{lst} = []", f"for {i} in range({a}.shape[0]):"] + (
        [f"    if {keep}:", f"        {push}"] if keep else [f"    {push}"])
    lines.append(f"{t} = sum({lst}{start})")
    if not g.try_stmt(lines, assigned=[lst, i, t]):
        return False
    g.scoped_out.update((lst, i))
    g.exact[t] = False
    return True


def s_mixed_kind(g):
    """A Python number of one kind on one path and another on the other (``m = 1 if c else
    0.5``, an ``if``/``else``, or ``if v > thr: m = 0.5`` in a loop), then used with an array:
    numpy's result dtype depends on the path (``x_int * m``). Kept only where both input sets
    take paths that give the same types (the generator's rule); pyonnx must then give numpy's
    dtype or fail at the line, never the other path's."""
    from fuzzing.statements import cond

    if g.rng.random() < 0.85:
        # (rare: where numpy's dtype on the int path differs, pyonnx refuses the call when that
        # path runs, even when nothing reads the value: a check output, graph/path_weak.py)
        return False
    names = g.names(("array",), lambda n, d: d.ndim >= 1)
    c = cond(g)
    if not names or c is None:
        return False
    a = g.rng.choice(names)
    m, t = g.fresh("m"), g.fresh()
    lo, hi = g.rng.choice(((1, 0.5), (2, 1.5), (True, 2.5), (0.25, 3), (False, 1)))
    form = g.rng.randrange(3)
    if form == 0:
        lines = [f"{m} = {lo!r} if {c} else {hi!r}"]
    elif form == 1:
        lines = [f"if {c}:", f"    {m} = {lo!r}", "else:", f"    {m} = {hi!r}"]
    else:
        vecs = [n for n in names if g.desc(n).ndim == 1]
        if not vecs:
            return False
        v, r = g.fresh("v"), g.rng.choice(vecs)
        lines = [f"{m} = {lo!r}", f"for {v} in {r}:", f"    if {v} > 2:", f"        {m} = {hi!r}"]
        g.scoped_out.add(v)
    use = g.rng.choice((f"{t} = {a} * {m}", f"{t} = {a} + {m}", f"{t} = np.maximum({a}, {m})"))
    if not g.try_stmt(lines + [use], assigned=[m, t]):
        return False
    g.scoped_out.add(m)
    g.exact[t] = g.is_exact(a) and all(float(x) * 4 == int(float(x) * 4) for x in (lo, hi))
    return True


def s_long_recurrence(g):
    """A scalar recurrence over 16+ iterations (``s = s * c + a.sum()``, ``+ i``, two states
    ``p, q = q, p * c + q``, each value written to ``y[i]``, ``abs(s) * c - t`` and other
    recurrences the vectorizer leaves loops): the Scans that
    passes/unroll_scans.py runs 8 iterations at a time (16+ trips, remainders 1-8), on the
    data's dtype (integers wrap as numpy's do)."""
    names = g.names(("array",), lambda n, d: d.ndim >= 1 and d.dtype in (
        ("float64", "float32") if g.mode == "grad" else ("float64", "float32", "int64", "int32")))
    if not names:
        return False
    a = g.rng.choice(names)
    dtype = g.desc(a).dtype
    integer = dtype.startswith("int")
    # a run-time trip count (a constant one is unrolled when the function is read)
    n = f"{g.rng.choice((12, 14, 16, 17, 23, 24, 25, 40))} + {a}.shape[0]"
    s, q, i, y = g.fresh("s"), g.fresh("q"), g.fresh("i"), g.fresh("y")
    # |c| < 1 for floats: values stay in the generator's range over 40+ trips
    c = g.rng.choice(("3", "-1", "2") if integer else ("0.5", "-0.75", "0.9", "-0.5"))
    term = g.rng.choice((f"{a}.sum()", f"{a}.max()", f"{i}", f"{a}.min() * {i}"))
    start = g.rng.choice((f"np.{dtype}(1)", f"{a}.sum() * 0", f"{a}.mean()" if not integer
                          else f"{a}.max()"))
    # (grad mode: no long array of values, whose np.prod later statements may take)
    form = g.rng.choice(("linear", "two", "nonlinear") + (("write",) if g.mode != "grad" else ()))
    if form == "two" and not integer:
        c = g.rng.choice(("-0.75", "-0.5"))  # (q' = q + c p decays for these)
    if form == "nonlinear":  # (not a linear recurrence: vectorize/linear.py leaves it a loop)
        step = g.rng.choice((f"abs({s}) * {c} - {term}", f"max({s} * {c}, {term})",
                             f"np.tanh({s}) * {c} + {term}" if not integer else f"{s} * {s} - {i}"))
        lines = [f"{s} = {start}", f"for {i} in range({n}):", f"    {s} = {step}"]
        assigned = [s, i]
    elif form == "two":
        step = [f"    {s}, {q} = {q}, {s} * {c} + {q}"]
        lines = [f"{s} = {start}", f"{q} = {s} + 1", f"for {i} in range({n}):", *step]
        assigned = [s, q, i]
    else:
        lines = [f"{s} = {start}", f"for {i} in range({n}):", f"    {s} = {s} * {c} + {term}"]
        assigned = [s, i]
        if form == "write":
            lines[1:1] = [f"{y} = np.zeros({n}, dtype=np.{dtype})"]
            lines.append(f"    {y}[{i}] = {s}")
            assigned.append(y)
    if not g.try_stmt(lines, assigned=assigned):
        return False
    g.scoped_out.add(i)
    g.exact[s] = integer
    if form == "two":
        g.exact[q] = integer
    if form == "write":
        g.exact[y] = integer
    return True
