"""Box-column code as pre/post-processing writes it (issue 20): column writes of a 2-d array
(``c[:, 0] -= s``, ``c[:, :m] /= d``, ``c[..., 0::2] = c[..., 0::2].clip(lo, hi)``, a box
converter reading one array and writing another), the first index of a row's extreme taken
apart with ``%`` and ``//``, and a loop reading columns of an outer array. Rows of
``statements.STATEMENTS``; they guard the passes these forms go through (scatter_rows,
columns_from_transpose, unit_row_slices, loop_column_reads, same_shape_expands, clip's NaN
bound, argmax by TopK, divmod of non-negative integers). Each keeps the program valid in
Python on both input sets (the generator runs every candidate) and binds plain names."""

from __future__ import annotations


def _matrices(g, floats: bool = True) -> list[str]:
    return g.names(("array",), lambda n, d: d.ndim == 2 and (
        d.dtype.startswith("float") or not floats))


def _matrix(g) -> tuple[str, int, str] | None:
    """A 2-d float array with columns in both input sets: (name, columns both have, dtype)."""
    names = _matrices(g)
    if not names:
        return None
    a = g.rng.choice(names)
    cols = min(g.desc(a, 0).shape[1], g.desc(a, 1).shape[1])
    return (a, cols, g.desc(a).dtype) if cols >= 1 else None


def _scalar(g, dtype: str) -> str:
    """A bound or an offset: a literal on the fuzzer's grid, a reduction of the data, or a
    scalar name the program has."""
    names = g.names(("npscalar", "pyscalar"), lambda n, d: d.dtype in (dtype, "float", "int"))
    forms = ["0.5", "-1.25", "3.0", f"np.{dtype}(2.5)", "0"]
    if names:
        forms.append(g.rng.choice(names))
    return g.rng.choice(forms)


def s_column_chain(g):
    """Two to four column writes of a copy (or of the array itself) of a 2-d float array."""
    picked = _matrix(g)
    if picked is None:
        return False
    a, cols, dtype = picked
    c = g.fresh("c")
    first = g.rng.choice((f"{c} = {a}.copy()", f"{c} = np.copy({a})", f"{c} = {a}"))
    lines = [first]
    for _ in range(g.rng.randint(2, 4)):
        j, k = g.rng.randrange(cols), g.rng.randrange(cols)
        lo, hi = _scalar(g, dtype), _scalar(g, dtype)
        m = g.rng.randint(1, cols + 1)
        step = g.rng.choice(("0::2", "1::2", "::-2", "::2", "::-1"))
        # (gradient mode: np.clip, whose kink the oracle measures; the method bypasses it)
        clip = (lambda v: f"np.clip({v}, {lo}, {hi})") if g.mode == "grad" else \
            (lambda v: f"{v}.clip({lo}, {hi})")
        lines.append(g.rng.choice((
            f"{c}[:, {j}] -= {_scalar(g, dtype)}",
            f"{c}[:, {j}] = {clip(f'{c}[:, {j}]')}",
            f"{c}[:, {j}] = np.clip({c}[:, {j}], {lo}, {hi})",
            f"{c}[:, :{m}] /= 2.0",
            f"{c}[..., {step}] = {clip(f'{c}[..., {step}]')}",
            f"{c}[:, {j}] = {a}[:, {j}] - {a}[:, {k}] / 2",
            f"{c}[:, {j}] = ({c}[:, {j}] + {c}[:, {k}]) / 2",
        )))
    if not g.try_stmt(lines, assigned=[c]):
        return False
    g.exact[c] = False
    return True


def s_argmax_parts(g):
    """``idx = np.argmax(a, axis=-1)`` (argmin, a 3-d array flattened per row), then its row
    and column by ``%`` and ``//`` of the width or a literal, or ``np.divmod``."""
    names = g.names(("array",), lambda n, d: d.ndim in (2, 3) and d.dtype != "bool")
    if not names:
        return False
    a = g.rng.choice(names)
    nd = g.desc(a).ndim
    idx, r, q = g.fresh("idx"), g.fresh(), g.fresh()
    fn = g.rng.choice(("argmax", "argmin"))
    src = a if nd == 2 else f"{a}.reshape({a}.shape[0], -1)"
    w = g.rng.choice((f"{a}.shape[-1]", "3", "1", f"{a}.shape[1]"))
    lines = [f"{idx} = np.{fn}({src}, axis=-1)"]
    lines += g.rng.choice(([f"{r} = {idx} % {w}", f"{q} = {idx} // {w}"],
                           [f"{r}, {q} = np.divmod({idx}, {w})"],
                           [f"{r} = np.nonzero({a} > {a}.mean())[-1] // 2" if nd == 2 else
                            f"{r} = {idx} // -2", f"{q} = {idx} % -3"]))
    if not g.try_stmt(lines, assigned=[idx, r, q]):
        return False
    for n in (idx, r, q):
        g.exact[n] = True
    return True


def s_loop_columns(g):
    """A ``while`` loop over the rows of a 2-d float array reading two or more of its columns
    (``a[i, 0] * a[i, k]``), stopped by a break that depends on what it computed (a real
    Loop, as NMS is)."""
    picked = _matrix(g)
    if picked is None:
        return False
    a, cols, dtype = picked
    acc, i = g.fresh("acc"), g.fresh("i")
    j, k = g.rng.randrange(cols), g.rng.randrange(cols)
    lines = [f"{acc} = np.{dtype}(0)", f"{i} = 0", f"while {i} < {a}.shape[0]:",
             f"    {acc} = {acc} + {a}[{i}, {j}] * {a}[{i}, {k}] - {a}[{i}, {cols - 1}]",
             f"    if {acc} > 100:", "        break", f"    {i} += 1"]
    if not g.try_stmt(lines, assigned=[acc, i]):
        return False
    g.scoped_out.add(i)
    g.exact[acc] = False
    return True
