"""Mutation check: does the test suite catch classic bugs planted in the compiler?

Plants one mutant at a time in a COPY of the repository (the working tree is never touched):
- off-by-one in integer constants (n -> n + 1, n -> n - 1),
- comparison boundaries and negations (< <-> <=, > <-> >=, == <-> !=),
- sign flips (a + b <-> a - b, -x -> x),
- swapped operands (a - b -> b - a, a // b -> b // a, a < b -> b < a),
- boolean operators (and <-> or, not x -> x),
- dropped statements (a one-line statement in a function body -> pass),
in ``pyonnx/frontend/lower`` and ``pyonnx/passes``. A sample (fixed seed) is run; for each
mutant some tests run with ``-x`` and a timeout. A mutant is killed when a test fails or the
run times out, survives when the tests pass.

Which tests: with ``--map`` (a coverage data file recorded with per-test contexts, see
``--build-map``), exactly the tests that executed the mutated statement in that run (at most
``--max-tests`` of them, spread over the list), in one process (``-n 0``): a mutant costs a
few seconds, and one that no test executes is reported ``uncovered`` (it survives: counted
as such in the score). Without a map, the tests listed for the module's path in ``TESTS``.

Usage:
    python tools/mutants.py --build-map .mutants-map     # the whole suite once, ~1.5x its time
    python tools/mutants.py --map .mutants-map --only pyonnx/passes --n 100 --seed 5
    python tools/mutants.py [--n 80] [--seed 17] [--timeout 120] [--repo .] [--json out.json]
                            [--only pyonnx/passes] [--no-baseline] [--max-tests 150]

Output: one line per mutant (killed/survived, file:line, the change), then the kill score
and the survivors. Exit status 0 (the score is a measurement, not a gate).
"""

from __future__ import annotations

import argparse
import ast
import json
import os
import random
import shutil
import subprocess
import sys
import tempfile
import time
from dataclasses import asdict, dataclass
from pathlib import Path

# tools/ is the script's directory, first on sys.path.
from mutants_select import SURVIVOR_TESTS, CoverageMap, build_map, tests_for

TARGETS = ("pyonnx/frontend/lower", "pyonnx/passes")


@dataclass
class Mutant:
    path: str      # relative to the repository
    line: int
    col: int
    end_line: int
    end_col: int
    old: str       # the source text replaced
    new: str       # its replacement
    kind: str
    stmt_line: int = 0  # first line of the enclosing statement (what coverage records;
                        # 0: runs at import)

    def describe(self) -> str:
        return f"{self.path}:{self.line}: [{self.kind}] {self.old.strip()} -> {self.new.strip()}"


_CMP_SWAP = {ast.Lt: ast.LtE, ast.LtE: ast.Lt, ast.Gt: ast.GtE, ast.GtE: ast.Gt,
             ast.Eq: ast.NotEq, ast.NotEq: ast.Eq}
_CMP_MIRROR = (ast.Lt, ast.Gt, ast.LtE, ast.GtE)


def _segment(lines: list[str], node: ast.AST) -> str:
    if node.lineno == node.end_lineno:
        return lines[node.lineno - 1][node.col_offset:node.end_col_offset]
    parts = [lines[node.lineno - 1][node.col_offset:]]
    parts += lines[node.lineno:node.end_lineno - 1]
    parts.append(lines[node.end_lineno - 1][:node.end_col_offset])
    return "\n".join(parts)


def _in_docstring_or_fstring(parents: dict, node: ast.AST) -> bool:
    p = parents.get(node)
    while p is not None:
        if isinstance(p, ast.JoinedStr):
            return True
        p = parents.get(p)
    return False


def _is_log_or_error(parents: dict, node: ast.AST) -> bool:
    """Inside a call that only builds a message (ctx.error(...), logger.x(...), raise ...)."""
    p = parents.get(node)
    while p is not None:
        if isinstance(p, ast.Raise):
            return True
        if isinstance(p, ast.Call) and isinstance(p.func, ast.Attribute) and \
                p.func.attr in ("error", "debug", "info", "warning", "_warn_once"):
            return True
        if isinstance(p, ast.stmt):
            return False
        p = parents.get(p)
    return False


def mutants_of(path: Path, rel: str) -> list[Mutant]:
    """Every mutant the rules above make in one file."""
    src = path.read_text()
    lines = src.splitlines()
    tree = ast.parse(src)
    parents: dict[ast.AST, ast.AST] = {}
    for node in ast.walk(tree):
        for child in ast.iter_child_nodes(node):
            parents[child] = node
    out: list[Mutant] = []

    def stmt_line(node: ast.AST) -> int:
        """The line coverage records for the statement holding ``node``; 0 for a statement
        that runs at import (module or class level, a signature): the test that happened to
        import the module is no evidence of which tests depend on it."""
        while node is not None and not isinstance(node, ast.stmt):
            node = parents.get(node)
        if node is None or isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef,
                                             ast.ClassDef)):
            return 0
        up = parents.get(node)
        while up is not None and not isinstance(up, (ast.FunctionDef, ast.AsyncFunctionDef)):
            up = parents.get(up)
        return node.lineno if up is not None else 0

    def add(node: ast.AST, new_node: ast.AST | str, kind: str) -> None:
        old = _segment(lines, node)
        new = new_node if isinstance(new_node, str) else ast.unparse(new_node)
        if node.lineno != node.end_lineno:
            new = f"({new})"
        out.append(Mutant(rel, node.lineno, node.col_offset, node.end_lineno,
                          node.end_col_offset, old, new, kind, stmt_line(node)))

    for node in ast.walk(tree):
        if not hasattr(node, "lineno") or _in_docstring_or_fstring(parents, node):
            continue
        if _is_log_or_error(parents, node):
            continue
        if isinstance(node, ast.Constant) and type(node.value) is int:
            if isinstance(parents.get(node), ast.UnaryOp):
                continue  # -1: mutated through its UnaryOp below
            add(node, str(node.value + 1), "off-by-one")
            add(node, str(node.value - 1), "off-by-one")
        elif isinstance(node, ast.UnaryOp) and isinstance(node.op, ast.USub):
            add(node, ast.unparse(node.operand), "sign")
        elif isinstance(node, ast.UnaryOp) and isinstance(node.op, ast.Not):
            add(node, ast.unparse(node.operand), "negation")
        elif isinstance(node, ast.BinOp) and isinstance(node.op, (ast.Add, ast.Sub)):
            flipped = ast.BinOp(node.left, ast.Sub() if isinstance(node.op, ast.Add)
                                else ast.Add(), node.right)
            add(node, flipped, "sign")
            if isinstance(node.op, ast.Sub):
                add(node, ast.BinOp(node.right, ast.Sub(), node.left), "swap")
        elif isinstance(node, ast.BinOp) and isinstance(node.op, (ast.FloorDiv, ast.Mod,
                                                                   ast.Div)):
            add(node, ast.BinOp(node.right, node.op, node.left), "swap")
        elif isinstance(node, ast.Compare) and len(node.ops) == 1:
            op = type(node.ops[0])
            if op in _CMP_SWAP:
                add(node, ast.Compare(node.left, [_CMP_SWAP[op]()], node.comparators),
                    "boundary")
            if op in _CMP_MIRROR:  # a < b -> b < a
                add(node, ast.Compare(node.comparators[0], [op()], [node.left]), "swap")
        elif isinstance(node, ast.BoolOp):
            other = ast.Or() if isinstance(node.op, ast.And) else ast.And()
            add(node, ast.BoolOp(other, node.values), "boolean")
        elif isinstance(node, (ast.Assign, ast.AugAssign, ast.Expr)) and \
                node.lineno == node.end_lineno:
            parent = parents.get(node)
            if not isinstance(parent, (ast.FunctionDef, ast.For, ast.While, ast.If)):
                continue
            if isinstance(node, ast.Expr) and isinstance(node.value, ast.Constant):
                continue  # a docstring
            out.append(Mutant(rel, node.lineno, node.col_offset, node.end_lineno,
                              node.end_col_offset, _segment(lines, node), "pass", "drop",
                              stmt_line(node)))
    return out


def apply(root: Path, m: Mutant) -> str:
    """Writes the mutant into the copy at ``root``; returns the original text to restore."""
    path = root / m.path
    original = path.read_text()
    lines = original.splitlines(keepends=True)
    offsets = [0]
    for line in lines:
        offsets.append(offsets[-1] + len(line))
    start = offsets[m.line - 1] + _byte_col(lines[m.line - 1], m.col)
    end = offsets[m.end_line - 1] + _byte_col(lines[m.end_line - 1], m.end_col)
    path.write_text(original[:start] + m.new + original[end:])
    return original


def _byte_col(line: str, col: int) -> int:
    """ast columns count UTF-8 bytes; the text is indexed by characters."""
    return len(line.encode()[:col].decode(errors="ignore"))


def run_tests(root: Path, tests: list[str], timeout: float,
              one_process: bool = False) -> tuple[str, float]:
    """'killed' / 'survived' / 'timeout' / 'error' (pytest could not select the tests) and
    the seconds it took."""
    env = dict(os.environ, PYTHONPATH=str(root), HYPOTHESIS_PROFILE="mutants",
               PYTHONDONTWRITEBYTECODE="1")
    cmd = [sys.executable, "-m", "pytest", "-x", "-q", "-p", "no:cacheprovider", "--no-cov",
           *(["-n", "0"] if one_process else []), *tests]
    start = time.perf_counter()
    try:
        r = subprocess.run(cmd, cwd=root, env=env, capture_output=True, timeout=timeout)
    except subprocess.TimeoutExpired:
        return "timeout", time.perf_counter() - start
    took = time.perf_counter() - start
    if r.returncode == 0:
        return "survived", took
    if r.returncode in (4, 5):  # a test id not found / nothing collected: the selection's
        return "error", took    # fault, not a kill
    # 1: a test failed; 2/3: interrupted (a collection error: the mutant broke an import).
    return "killed", took


def run_mutant(work: Path, m: Mutant, cmap: CoverageMap | None, timeout: float,
               extra: list[str]) -> tuple[str, float, int]:
    """Status, seconds and the number of tests selected (0: the prefix list) for one mutant
    already written into ``work``; ``extra`` tests run with the map's (tests newer than the
    map: a rerun of the survivors after writing tests for them)."""
    ids = cmap.tests(m) if cmap is not None else None
    if ids == [] and not extra:
        return "uncovered", 0.0, 0
    if ids is None:
        return (*run_tests(work, tests_for(m.path, work), timeout), 0)
    status, took = run_tests(work, ids + extra, timeout, one_process=True)
    if status == "error":  # an id pytest cannot select (odd characters): whole functions
        funcs = sorted({i.split("[", 1)[0] for i in ids})
        status, more = run_tests(work, funcs + extra, timeout, one_process=True)
        took += more
    return status, took, len(ids)


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--n", type=int, default=80, help="mutants to sample (default 80)")
    ap.add_argument("--seed", type=int, default=17)
    ap.add_argument("--timeout", type=float, default=300.0,
                    help="seconds per mutant (default 300: a loaded shared machine is slow; "
                    "a mutant that loops forever is rare and still caught)")
    ap.add_argument("--repo", default=str(Path(__file__).resolve().parents[1]))
    ap.add_argument("--json", help="write the results here")
    ap.add_argument("--only", help="mutate only files under this path prefix")
    ap.add_argument("--no-baseline", action="store_true",
                    help="skip running the unmutated tests first (when known to pass)")
    ap.add_argument("--map", help="coverage data with per-test contexts: run, per mutant, the "
                    "tests that executed its statement")
    ap.add_argument("--max-tests", type=int, default=150,
                    help="with --map: at most this many tests per mutant (default 150)")
    ap.add_argument("--min-per-kind", type=int, default=8,
                    help="top the sample up so each kind of mutant has at least this many")
    ap.add_argument("--rerun", metavar="JSON",
                    help="run again only the survivors of an earlier --json result")
    ap.add_argument("--build-map", metavar="FILE",
                    help="run the whole suite once recording the map into FILE, then stop")
    args = ap.parse_args()

    repo = Path(args.repo).resolve()
    if args.build_map:
        return build_map(repo, args.build_map)
    cmap = CoverageMap(args.map, args.max_tests) if args.map else None
    work = Path(tempfile.mkdtemp(prefix="pyonnx-mutants-"))
    try:
        for part in ("pyonnx", "tests", "pyproject.toml", "examples", "README.md"):
            src = repo / part
            if src.is_dir():
                shutil.copytree(src, work / part, ignore=shutil.ignore_patterns(
                    "__pycache__", ".hypothesis"))
            elif src.exists():
                shutil.copy2(src, work / part)
        _add_profile(work)
        candidates: list[Mutant] = []
        for target in TARGETS:
            for path in sorted((work / target).rglob("*.py")):
                rel = str(path.relative_to(work))
                if args.only and not rel.startswith(args.only):
                    continue
                candidates += mutants_of(path, rel)
        if args.rerun:
            earlier = json.loads(Path(args.rerun).read_text())["results"]
            sample = [Mutant(**{k: r[k] for k in Mutant.__dataclass_fields__})
                      for r in earlier if r["status"] in ("survived", "uncovered")]
        else:
            sample = _sample(candidates, args.n, args.min_per_kind, args.seed)
        # A rerun adds the tests written for survivors (newer than the map).
        extra = [t for t in SURVIVOR_TESTS if (work / t).exists()] if args.rerun and cmap \
            else []
        # The unmutated code must pass every test set used, or every mutant would look killed
        # (with a map: the run that recorded it passed; a map from a failing run is refused).
        for tests in [] if args.no_baseline or cmap else sorted({tuple(tests_for(m.path, work))
                                                                for m in sample}):
            status, took = run_tests(work, list(tests), args.timeout * 3)
            if status != "survived":
                raise SystemExit(f"the unmutated tests fail ({status}): {' '.join(tests)}")
            print(f"baseline ok {took:6.1f}s  {' '.join(tests)}", flush=True)
        print(f"{len(candidates)} mutants in {', '.join(TARGETS)}; running {len(sample)} "
              f"(seed {args.seed})", flush=True)
        results = []
        for i, m in enumerate(sample, 1):
            original = apply(work, m)
            try:
                try:
                    compile((work / m.path).read_text(), m.path, "exec")
                except SyntaxError:
                    status, took, n_tests = "invalid", 0.0, 0
                else:
                    status, took, n_tests = run_mutant(work, m, cmap, args.timeout, extra)
            finally:
                (work / m.path).write_text(original)
            results.append({**asdict(m), "status": status, "seconds": round(took, 1),
                            "tests": n_tests})
            print(f"[{i:3d}/{len(sample)}] {status:9s} {took:6.1f}s {n_tests:4d}t  "
                  f"{m.describe()}", flush=True)
        valid = [r for r in results if r["status"] not in ("invalid", "error")]
        killed = [r for r in valid if r["status"] in ("killed", "timeout")]
        survivors = [r for r in valid if r["status"] in ("survived", "uncovered")]
        score = len(killed) / len(valid) if valid else 0.0
        print(f"\nkill score: {len(killed)}/{len(valid)} = {score:.0%} "
              f"({sum(r['status'] == 'timeout' for r in valid)} by timeout, "
              f"{sum(r['status'] == 'uncovered' for r in valid)} survivors no test executes, "
              f"{sum(r['status'] == 'error' for r in results)} not run: selection error)")
        for kind in sorted({r["kind"] for r in valid}):
            of_kind = [r for r in valid if r["kind"] == kind]
            dead = sum(r in killed for r in of_kind)
            print(f"  {kind:10s} {dead:3d}/{len(of_kind):3d} killed")
        if survivors:
            print("survivors:")
            for r in survivors:
                m = Mutant(**{k: r[k] for k in Mutant.__dataclass_fields__})
                print(f"  {m.describe()}{'  (uncovered)' if r['status'] == 'uncovered' else ''}")
        if args.json:
            Path(args.json).write_text(json.dumps({"score": score, "results": results},
                                                  indent=1))
    finally:
        shutil.rmtree(work, ignore_errors=True)
    return 0


def _sample(candidates: list[Mutant], n: int, min_per_kind: int, seed: int) -> list[Mutant]:
    """``n`` mutants drawn at random, topped up so that every kind (off-by-one, sign, swap,
    drop, ...: the rare ones would otherwise get two or three) has ``min_per_kind``."""
    rng = random.Random(seed)
    sample = rng.sample(candidates, min(n, len(candidates)))
    chosen = {id(m) for m in sample}
    for kind in sorted({m.kind for m in candidates}):
        have = sum(m.kind == kind for m in sample)
        rest = [m for m in candidates if m.kind == kind and id(m) not in chosen]
        more = rng.sample(rest, max(0, min(min_per_kind - have, len(rest))))
        sample += more
        chosen.update(id(m) for m in more)
    return sorted(sample, key=lambda m: (m.path, m.line, m.col))


def _add_profile(root: Path) -> None:
    """Registers the ``mutants`` hypothesis profile in a copy whose conftest lacks it (an older
    checkout measured for comparison); tests/conftest.py registers it itself."""
    conftest = root / "tests" / "conftest.py"
    text = conftest.read_text() if conftest.exists() else "import os\n"
    if '"mutants"' in text:
        return
    if "load_profile" in text:
        raise SystemExit(f"{conftest}: loads a hypothesis profile but has no 'mutants' profile")
    text += ("\nfrom hypothesis import settings as _s\n"
             "_s.register_profile('mutants', max_examples=25, derandomize=True, "
             "deadline=None, database=None)\n"
             "_s.load_profile(os.environ.get('HYPOTHESIS_PROFILE', 'default'))\n")
    conftest.write_text(text)


if __name__ == "__main__":
    raise SystemExit(main())
