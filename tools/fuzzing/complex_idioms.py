"""Complex constructs the fuzzer generates beyond plain views (issue 11): memory chosen at run
time and written through (``t = z if c else z[::-1]``; a loop that may rebind ``t``; a dict
item ``d = {'u': z} if c else {'u': z[::-1]}``), run-time lists of complex values
(``acc.append(r.sum())`` in a loop over ``z``), ``out=`` on complex reductions, numpy's
writing functions (``np.copyto``, ``z.fill``, ``np.put``...) on complex arrays, 0-d complex
values that are numpy scalars or 0-d arrays written in place, and 0-d complex values whose
type (a Python complex, a 0-d array, a numpy scalar) depends on whether a loop ran.

Drawn by statements.s_complex_view_write (one table row: programs without complex values keep
their seeds). Each function takes the generator ``g`` and a complex array name ``z`` (rank >= 1)
and returns whether it kept a statement.
"""

from __future__ import annotations

from fuzzing import constructs as C


def _write_through(g, t: str, z: str) -> None:
    """``t[i] = v`` (or ``t.real[i]``/``t.imag[i]``) when ``t`` is a known array."""
    from fuzzing.statements import _mark_inexact, _value_for

    if t not in g.names(("array",), lambda n, d: d.ndim > 0):
        return
    part = g.rng.choice(("", "", ".real", ".imag"))
    idx = C.gen_index(g, t, write=True)
    cur = g.eval(f"{t}{part}[{idx}]")
    if cur is None:
        return
    val, exact = _value_for(g, cur, False)
    if g.try_stmt([f"{t}{part}[{idx}] = {val}"]) and not exact:
        _mark_inexact(g, t)
        _mark_inexact(g, z)


def _views(g, z: str) -> list[str]:
    forms = [f"{z}[::-1]", f"{z}[1:]", f"{z}[::2]", f"{z}[-1:]"]
    if g.desc(z).ndim >= 2:
        forms += [f"{z}.T", f"{z}[:, 1:]", f"{z}[1:, ::-1]"]  # (of z's rank: paths join)
    return forms


def s_choice_write(g, z: str) -> bool:
    """``t = z if c else z[::-1]`` (either way round), then a write through ``t``."""
    from fuzzing.statements import cond

    c = cond(g)
    if c is None:
        return False
    a, b = z, g.rng.choice(_views(g, z))
    if g.rng.random() < 0.5:
        a, b = b, a
    t = g.fresh("v")
    if not g.try_stmt([f"{t} = {a} if {c} else {b}"], assigned=[t]):
        return False
    g.exact[t] = g.is_exact(z)
    _write_through(g, t, z)
    return True


def s_loop_choice(g, z: str) -> bool:
    """``t = z``, a loop that may rebind ``t`` to a view (a choice on "the loop ran"), then a
    write through ``t``."""
    t, i = g.fresh("v"), g.fresh("i")
    view = g.rng.choice(_views(g, z))
    bound = g.rng.choice((f"min({z}.shape[0], 2)", f"{z}.shape[0] - 1", "1"))
    if not g.try_stmt([f"{t} = {z}", f"for {i} in range({bound}):", f"    {t} = {view}"],
                      assigned=[t, i]):
        return False
    g.scoped_out.add(i)  # (unbound after 0 trips)
    g.exact[t] = g.is_exact(z)
    _write_through(g, t, z)
    return True


def s_dict_choice(g, z: str) -> bool:
    """``d = {'u': z} if c else {'u': z[::-1]}``, then ``d['u'][i] = v``."""
    from fuzzing.statements import _mark_inexact, _value_for, cond

    c = cond(g)
    if c is None:
        return False
    d, t = g.fresh("d"), g.fresh("v")
    view = g.rng.choice(_views(g, z))
    if not g.try_stmt([f"{d} = {{'u': {z}}} if {c} else {{'u': {view}}}", f"{t} = {d}['u']"],
                      assigned=[d, t]):
        return False
    g.exact[t] = g.is_exact(z)
    if t not in g.names(("array",), lambda n, dd: dd.ndim > 0):
        return True
    idx = C.gen_index(g, t, write=True)
    cur = g.eval(f"{t}[{idx}]")
    if cur is None:
        return True
    val, exact = _value_for(g, cur, False)
    if g.try_stmt([f"{d}['u'][{idx}] = {val}"]) and not exact:
        _mark_inexact(g, t)
        _mark_inexact(g, z)
    return True


def s_complex_list(g, z: str) -> bool:
    """A run-time list of complex values: appended in a loop over ``z``, then read back
    (its last item, its length, or the list stacked when it cannot be empty)."""
    acc, r, v = g.fresh("acc"), g.fresh("r"), g.fresh("v")
    item = g.rng.choice((f"{r}.sum()", f"{r} * (1 - 0.5j)", f"{r}.conj()", f"np.abs({r}) * 1j",
                         f"{r}.prod()"))
    reads = [f"len({acc}) * (0.5 + 1j)"]
    if g.desc(z).ndim == 1 or item.endswith(("sum()", "prod()")):  # 0-d items
        # (the fallback of the same rank as an item: a join of two ranks is refused)
        reads += [f"{acc}[-1] if {acc} else {z}.sum() * 0",
                  f"np.array({acc}) if len({acc}) > 0 else np.zeros(0, {z}.dtype)"]
    read = g.rng.choice(reads)
    lines = [f"{acc} = []", f"for {r} in {z}:", f"    {acc}.append({item})", f"{v} = {read}"]
    if not g.try_stmt(lines, assigned=[acc, r, v]):
        return False
    g.scoped_out.update((acc, r))  # (the loop variable: unbound after 0 trips; acc: a list)
    g.exact[v] = False
    return True


def s_reduce_out(g, z: str) -> bool:
    """``np.sum(z, axis=0, out=o)`` (or prod/mean, the method form) into a fresh ``o``."""
    o = g.fresh("v")
    fn = g.rng.choice(("sum", "prod", "mean"))
    call = g.rng.choice((f"np.{fn}({z}, axis=0, out={o})", f"{z}.{fn}(axis=0, out={o})"))
    if not g.try_stmt([f"{o} = {z}.sum(axis=0) * 0", call], assigned=[o]):
        return False
    g.exact[o] = False
    return True


def s_complex_writer(g, z: str) -> bool:
    """numpy's writing functions on a complex array, and a list of complex values written
    into it: ``np.copyto(z, v, where=m)``, ``z.fill(v)``, ``np.put(z, [0], v)``,
    ``np.putmask``, ``z[:2] = [1j, 2]``."""
    from fuzzing.statements import _mark_inexact

    v = g.rng.choice(("1j", "(2 - 0.5j)", "-1.5", f"{z}.sum()"))
    line = g.rng.choice((f"np.copyto({z}, {v}, where={z}.real > 0.5)", f"{z}.fill({v})",
                         f"np.put({z}, [0, -1], [{v}, 0.5j])",
                         f"np.putmask({z}, {z}.imag < 0, {v})",
                         f"{z}[:2] = [{v}, 1 - 1j]"))
    if not g.try_stmt([line]):
        return False
    _mark_inexact(g, z)
    return True


def s_zero_d_kinds(g, z: str) -> bool:
    """A 0-d complex value numpy makes a numpy scalar (an operation's result, ``z.sum()``) or a
    0-d array (``np.zeros(())``, ``np.asarray(...)``, a copy of one), then an in-place operator
    with a float64 numpy scalar: numpy rebinds a complex64 scalar to complex128 and writes into
    a 0-d array, keeping complex64 (seed 27000571)."""
    m, w = g.fresh("m"), g.fresh("v")
    first = g.rng.choice((f"{z}.sum()", f"{z}.ravel()[0] + 0", f"np.asarray({z}.ravel()[-1])",
                          f"np.zeros((), {z}.dtype)", f"np.complex64({z}.ravel()[0])",
                          f"max(np.complex64(0), {z}.ravel()[-1])",
                          f"np.zeros((), {z}.dtype).copy()"))
    op = g.rng.choice(("/=", "*=", "+=", "-="))
    rhs = g.rng.choice(("np.float64(2)", "np.trunc(1.5)", "1.5", "np.float32(0.5)"))
    lines = [f"{m} = {first}", f"{w} = {m}", f"{m} {op} {rhs}"]
    if not g.try_stmt(lines, assigned=[m, w]):
        return False
    g.exact[m] = g.exact[w] = False
    return True


def s_path_kinds(g, z: str) -> bool:
    """A 0-d complex value whose numpy type depends on the run-time path: a Python complex
    (``0j``) or a 0-d array (``np.zeros(())``) before a loop that may run 0 times, a numpy
    scalar after an iteration; then used where NEP 50 tells them apart (a float32 or
    complex64 operand), or returned as it is (lower/control_flow/complex_paths.py)."""
    acc, i, v = g.fresh("acc"), g.fresh("i"), g.fresh("v")
    start = g.rng.choice(("0j", "(1 - 0.5j)", f"np.zeros((), {z}.dtype)",
                          "np.zeros((), np.complex128)", f"np.ones((), {z}.dtype) * 1j"))
    bound = g.rng.choice((f"{z}.shape[0] - 1", f"min({z}.shape[0] - 1, 2)",
                          f"int({z}.real.ravel()[0] > 0) * {z}.shape[0]"))
    step = g.rng.choice((f"{acc} = {acc} + {z}.ravel()[{i}]",
                         f"{acc} = {acc} * 0.5 + {z}.ravel()[{i}] * 1j",
                         f"{acc} = {acc} + np.complex64({z}.ravel()[{i}])"))
    use = g.rng.choice((f"{acc}", f"{acc} + np.float32(0.5)",
                        f"{acc} * np.ones(2, np.float32)",
                        f"{acc} - np.zeros(2, np.complex64)",
                        f"np.where({z}.real.ravel()[:2] > 0, {acc}, np.complex64(1j))"))
    lines = [f"{acc} = {start}", f"for {i} in range({bound}):", f"    {step}", f"{v} = {use}"]
    if g.rng.random() < 0.3:  # a conditional expression: a Python complex on one side only
        from fuzzing.statements import cond
        c = cond(g)
        if c is None:
            return False
        pick = g.rng.choice(("0.5j", "(0.1 + 1j)", f"np.zeros((), {z}.dtype)"))
        lines = [f"{acc} = {pick} if {c} else {z}.ravel()[0]", f"{i} = 0", f"{v} = {use}"]
    if not g.try_stmt(lines, assigned=[acc, i, v]):
        return False
    g.scoped_out.add(i)  # (unbound after 0 trips)
    g.exact[acc] = g.exact[v] = False
    return True


IDIOMS = (s_choice_write, s_loop_choice, s_dict_choice, s_complex_list, s_reduce_out,
          s_complex_writer, s_zero_d_kinds, s_path_kinds)


def complex_idiom(g, z: str) -> bool:
    """One of :data:`IDIOMS` on the complex array ``z``."""
    return g.rng.choice(IDIOMS)(g, z)
