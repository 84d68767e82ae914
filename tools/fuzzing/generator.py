"""The seeded generator of valid numpy programs (compile mode).

Model: after every kept statement the program so far is run under numpy on both input sets
with a probe at the insertion point, so the generator knows every live value exactly (kind,
dtype, shape including data-dependent sizes, values, which arrays share memory). A candidate
statement that raises, warns (overflow, division by zero, invalid cast), leaves the safe value
range, or changes a name's type inside a block is dropped and another one drawn: programs are
valid by construction. Which statements and expressions are drawn is a table
(``constructs.STATEMENTS``/``constructs.EXPRESSIONS``): a new feature adds rows.
"""

from __future__ import annotations

import random
import signal
import warnings

import numpy as np

from fuzzing import values as V
from fuzzing.program import Program


class _Slow(BaseException):
    pass


def _alarm(signum, frame):
    raise _Slow()


signal.signal(signal.SIGALRM, _alarm)


class _Done(Exception):
    def __init__(self, env):
        self.env = env


class Generator:
    """Builds one program from one seed: ``Generator(seed).program()``."""

    max_depth = 2

    def __init__(self, seed: int, mode: str = "compile"):
        self.seed = seed
        self.mode = mode
        self.rng = random.Random(seed * 7919 + (1 if mode == "grad" else 0))
        self.lines: list[str] = []
        self.helpers: list[str] = []
        self.depth = 1
        self.blocks: list[dict] = []
        self.exact: dict[str, bool] = {}
        self.scoped_out: set[str] = set()
        self.counter = 0
        self.returns: list[list] = []   # descriptions of early returns (to match the final one)
        self.stats = {"tried": 0, "kept": 0}

    # -- inputs -----------------------------------------------------------------------------
    def make_inputs(self):
        rng = self.rng
        n = rng.choice((1, 2, 2, 3))
        self.params = [f"a{i}" for i in range(n)]
        sets = [[], []]
        for p in self.params:
            dtype = rng.choice(V.DTYPES + V.FLOATS + ("int64", "float32"))
            if rng.random() < 0.06:  # complex inputs: a small fraction of programs
                dtype = rng.choice(V.COMPLEX)
            if rng.random() < 0.12:
                kind = rng.choice(("int", "float"))
                for k in range(2):
                    sets[k].append(rng.randint(-3, 4) if kind == "int" else rng.randint(-8, 8) / 4)
                continue
            rank = rng.choice((0, 1, 1, 2, 2, 2, 3))
            shape_a = tuple(V.random_dim(rng) for _ in range(rank))
            shape_b = tuple(V.random_dim(rng) if rng.random() < 0.6 else d for d in shape_a)
            if rank and shape_b == shape_a:
                shape_b = (shape_a[0] + 1,) + shape_a[1:]
            a, b = V.random_array(rng, dtype, shape_a), V.random_array(rng, dtype, shape_b)
            if not rank and rng.random() < 0.3:  # a numpy scalar argument (np.float32(2))
                a, b = a[()], b[()]
            sets[0].append(a)
            sets[1].append(b)
        self.alias = {}
        arrays = [i for i, v in enumerate(sets[0]) if isinstance(v, np.ndarray) and v.ndim]
        if len(arrays) >= 2 and rng.random() < 0.05:
            i, j = arrays[0], arrays[1]
            if sets[0][i].dtype == sets[0][j].dtype:
                self.alias = {j: i}
        self.inputs = sets
        for p in self.params:
            self.exact[p] = True

    # -- running the program so far -----------------------------------------------------------
    def source(self, extra=(), probe=0) -> str:
        body = list(self.lines) + list(extra)
        if probe:
            body.append("    " * probe + "__probe(locals())")
            body.append("    raise __Done(locals())")
        if not body:
            body = ["    return None"]
        return "\n".join(["import numpy as np", "", *self.helpers,
                          f"def f({', '.join(self.params)}):", *body, ""])

    def run(self, extra=(), depth=None):
        """Runs program+extra on both sets; returns per-set (probe snapshot, end env, returned) or None."""
        src = self.source(extra, probe=depth or self.depth)
        try:
            code = compile(src, "<fuzz>", "exec")
        except SyntaxError:
            return None
        results = []
        for k in range(2):
            seen: list = []

            def probe(env, seen=seen):
                if not seen:
                    snap = {n: _snapshot(v) for n, v in env.items()}
                    arrs = [(n, v) for n, v in env.items() if isinstance(v, np.ndarray)]
                    snap["__shares__"] = {n: {m for m, w in arrs if np.may_share_memory(v, w)}
                                          for n, v in arrs}
                    seen.append(snap)
            ns = {"__probe": probe, "__Done": _Done}
            exec(code, ns)
            args = Program(0, "", self.inputs, self.alias).args(k)
            end, ret = None, None
            # every loop is bounded by construction; this only stops a pathological blow-up
            # (generous, so that a loaded machine never changes which program a seed gives)
            signal.setitimer(signal.ITIMER_REAL, 5.0)
            try:
                with warnings.catch_warnings():
                    warnings.simplefilter("error")
                    with np.errstate(all="raise"):
                        ret = ns["f"](*args)
            except _Done as d:
                end = d.env
            except (RecursionError, _Slow):
                return None
            except Exception:  # noqa: BLE001 - any numpy error makes the candidate invalid
                return None
            finally:
                signal.setitimer(signal.ITIMER_REAL, 0)
            for v in list((end or {}).values()) + [ret] + list(args):
                if not _safe(v):
                    return None
            results.append((seen[0] if seen else None, end, ret))
        return results

    # -- the model --------------------------------------------------------------------------
    def try_stmt(self, lines: list[str], assigned=(), opens=None) -> bool:
        """Keeps ``lines`` (at the current depth) when the program stays valid."""
        self.stats["tried"] += 1
        ind = "    " * self.depth
        extra = [ind + ln for ln in lines]
        res = self.run(extra, self.depth + 1 if opens else self.depth)
        if res is None:
            return False
        if not self._types_stable(res, assigned):
            return False
        if not opens and all(r[0] is None for r in res) and not self._dry_run(lines, assigned):
            return False
        self.lines += extra
        self.stats["kept"] += 1
        for k, (snap, end, _) in enumerate(res):
            if snap is not None:
                self.snap[k] = snap
            self.end[k] = end
        for n in assigned:
            self.scoped_out.discard(n)
            if self.blocks and n not in self.blocks[-1]["outer"]:
                self.blocks[-1]["new"].add(n)
        return True

    def _dry_run(self, lines, assigned=()) -> bool:
        """A statement no input set reaches still runs on the values at its block's entry (an
        unreached but invalid statement would make pyonnx refuse a valid program), and must
        not change the type of a name it assigns: the model (the probes' snapshots) does not
        see the statement, so later statements would be generated for the old type (seed
        200154: ``t1 = np.max(x)`` unreached, then ``t1.shape[-1]``)."""
        if any(ln.split()[0] in ("return", "break", "continue") for ln in lines):
            return True
        for k in range(2):
            env = {n: _copy(v[1]) for n, v in self.snap[k].items() if not n.startswith("__")}
            try:
                with warnings.catch_warnings():
                    warnings.simplefilter("error")
                    with np.errstate(all="raise"):
                        exec("\n".join(lines), {"np": np, **self.helper_ns}, env)
            except Exception:  # noqa: BLE001 - invalid at the block's entry
                return False
            for n in assigned:
                if n in env and n in self.snap[k]:
                    a, b = self.snap[k][n][0], V.describe(env[n])
                    if (a.kind, a.dtype, a.ndim) != (b.kind, b.dtype, b.ndim):
                        return False
        return True

    def _types_stable(self, res, assigned) -> bool:
        # the same name must have the same kind/dtype in both sets, and inside a block a name
        # from outside keeps its type (pyonnx refuses a data-dependent type; so would a reader)
        snaps = [r[0] or self.snap[k] for k, r in enumerate(res)]
        for n in (set(snaps[0]) & set(snaps[1])) - {"__shares__"}:
            a, b = snaps[0][n][0], snaps[1][n][0]
            if (a.kind, a.dtype, a.ndim) != (b.kind, b.dtype, b.ndim) and n in self.visible():
                return False
        if self.depth > 1 or any(r[1] is None for r in res):
            for k, r in enumerate(res):
                old, new = self.end[k] or {}, r[1] or {}
                for n in set(old) & set(new):
                    if n.startswith("__"):
                        continue
                    a, b = V.describe(old[n]), V.describe(new[n])
                    if (a.kind, a.dtype, a.ndim) != (b.kind, b.dtype, b.ndim):
                        return False
        return True

    def visible(self) -> list[str]:
        """Names usable at the insertion point: defined (same type) in both sets' probes."""
        out = []
        for n in self.snap[0]:
            if n.startswith("__") or n in self.scoped_out or n not in self.snap[1]:
                continue
            a, b = self.snap[0][n][0], self.snap[1][n][0]
            if a.kind == "other" or (a.kind, a.dtype, a.ndim) != (b.kind, b.dtype, b.ndim):
                continue
            out.append(n)
        return sorted(out)

    def desc(self, name: str, k: int = 0) -> V.Desc:
        return self.snap[k][name][0]

    def value(self, name: str, k: int = 0):
        return self.snap[k][name][1]

    def is_exact(self, name: str) -> bool:
        return self.exact.get(name, False) and self.desc(name, 0).exact and self.desc(name, 1).exact

    def names(self, kinds=("array",), pred=None) -> list[str]:
        out = []
        for n in self.visible():
            d = self.desc(n)
            if d.kind in kinds and (pred is None or pred(n, d)):
                out.append(n)
        return out

    def eval(self, expr: str):
        """Evaluates ``expr`` on both sets' snapshots; None when it raises or warns."""
        out = []
        for k in range(2):
            env = {n: _copy(v[1]) for n, v in self.snap[k].items() if not n.startswith("__")}
            env["np"] = np
            try:
                with warnings.catch_warnings():
                    warnings.simplefilter("error")
                    with np.errstate(all="raise"):
                        out.append(eval(expr, {"np": np, **self.helper_ns}, env))
            except Exception:  # noqa: BLE001 - the expression is invalid here
                return None
            if not _safe(out[-1]):
                return None
        return out

    def fresh(self, prefix="t") -> str:
        self.counter += 1
        return f"{prefix}{self.counter}"

    # -- blocks -----------------------------------------------------------------------------
    def open_block(self, header: str, kind: str, first: str = "") -> bool:
        """Opens ``header``'s block (``first``: its first body line, e.g. a loop counter's step)."""
        outer = set(self.visible())
        if not self.try_stmt([header] + (["    " + first] if first else []), opens=True):
            return False
        self.blocks.append({"kind": kind, "outer": outer, "new": set(), "start": len(self.lines)})
        self.depth += 1
        return True

    def close_block(self):
        blk = self.blocks.pop()
        if len(self.lines) == blk["start"]:
            self.lines.append("    " * self.depth + "pass")
        self.depth -= 1
        self.scoped_out |= blk["new"]
        res = self.run()
        if res is not None:
            for k, (snap, end, _) in enumerate(res):
                if snap is not None:
                    self.snap[k] = snap
                self.end[k] = end

    def in_loop(self) -> bool:
        return any(b["kind"] in ("for", "while") for b in self.blocks)

    # -- the program ------------------------------------------------------------------------
    def program(self, n_stmts: int | None = None) -> Program:
        from fuzzing import statements as C
        self.statements = C.STATEMENTS
        self.make_inputs()
        self.helper_ns = {}
        self.snap = [{}, {}]
        self.end = [None, None]
        res = self.run()
        for k, (snap, end, _) in enumerate(res):
            self.snap[k], self.end[k] = snap, end
        n_stmts = n_stmts or self.rng.randint(4, 14)
        C.generate_body(self, n_stmts)
        while self.blocks:
            self.close_block()
        C.final_return(self)
        return Program(self.seed, self.source(), self.inputs, self.alias, mode=self.mode)


def _copy(v):
    if isinstance(v, np.ndarray):
        return v.copy()
    if isinstance(v, list):
        return [_copy(x) for x in v]
    return v


def _snapshot(v):
    return (V.describe(v), _copy(v) if isinstance(v, (np.ndarray, np.generic, list, int, float)) else v)


def _safe(v) -> bool:
    if isinstance(v, (tuple, list)):
        return all(_safe(x) for x in v)
    if isinstance(v, (np.ndarray, np.generic)):
        return np.size(v) <= 4096 and V.in_range(v)
    if isinstance(v, float):
        return abs(v) < 1e4
    if isinstance(v, int) and not isinstance(v, bool):
        return abs(v) < 2 ** 20
    return True
