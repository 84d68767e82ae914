"""Mutation check: does the test suite catch classic bugs planted in the compiler?

Plants one mutant at a time in a COPY of the repository (the working tree is never touched):
- off-by-one in integer constants (n -> n + 1, n -> n - 1),
- comparison boundaries and negations (< <-> <=, > <-> >=, == <-> !=),
- sign flips (a + b <-> a - b, -x -> x),
- swapped operands (a - b -> b - a, a // b -> b // a, a < b -> b < a),
- boolean operators (and <-> or, not x -> x),
- dropped statements (a one-line statement in a function body -> pass),
in ``pyonnx/frontend/lower`` and ``pyonnx/passes``. A sample (fixed seed) is run; for each
mutant the tests relevant to the mutated module run with ``-x`` and a timeout. A mutant is
killed when a test fails or the run times out, survives when the tests pass.

Usage:
    python tools/mutants.py [--n 80] [--seed 17] [--timeout 120] [--repo .] [--json out.json]
                            [--only pyonnx/passes] [--no-baseline]

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

TARGETS = ("pyonnx/frontend/lower", "pyonnx/passes")

# The tests that exercise a module, by path prefix (first match wins). A mutant runs only
# these, so the check stays fast; everything else in the suite would only repeat them.
TESTS = [
    ("pyonnx/frontend/lower/iteration.py", ["tests/test_properties.py",
                                            "tests/test_control_flow.py"]),
    ("pyonnx/frontend/lower/control_flow", ["tests/test_control_flow.py",
                                            "tests/test_control_flow_hypothesis.py",
                                            "tests/test_properties.py"]),
    ("pyonnx/frontend/lower/indexing", ["tests/test_indexing.py", "tests/test_setitem.py"]),
    ("pyonnx/frontend/lower/setitem.py", ["tests/test_setitem.py", "tests/test_properties.py"]),
    ("pyonnx/frontend/lower/aliases.py", ["tests/test_setitem.py", "tests/test_mixed.py"]),
    ("pyonnx/frontend/lower/view_calls.py", ["tests/test_setitem.py", "tests/test_mixed.py"]),
    ("pyonnx/frontend/lower/writers.py", ["tests/test_setitem.py", "tests/test_mixed.py"]),
    ("pyonnx/frontend/lower/sequences.py", ["tests/test_control_flow.py",
                                            "tests/test_builtins.py"]),
    ("pyonnx/frontend/lower/dtypes.py", ["tests/test_elementwise.py", "tests/test_core.py"]),
    ("pyonnx/frontend/lower/kernels.py", ["tests/test_elementwise.py"]),
    ("pyonnx/frontend/lower/ort_kernels.py", ["tests/test_elementwise.py"]),
    ("pyonnx/frontend/lower", ["tests/test_core.py", "tests/test_control_flow.py",
                               "tests/test_indexing.py"]),
    ("pyonnx/passes/fold", ["tests/passes/test_fold_constants.py", "tests/test_core.py",
                            "tests/test_shape.py"]),
    ("pyonnx/passes/common_subexpressions.py", ["tests/passes/test_common_subexpressions.py",
                                                "tests/test_core.py"]),
    ("pyonnx/passes/hoist_loop_invariants.py", ["tests/passes/test_hoist_loop_invariants.py",
                                                "tests/test_control_flow.py"]),
    ("pyonnx/passes/remove_unused.py", ["tests/passes/test_remove_unused.py",
                                        "tests/test_core.py"]),
    ("pyonnx/passes/unique_names.py", ["tests/passes/test_unique_names.py",
                                       "tests/test_control_flow.py"]),
    ("pyonnx/passes/serialize.py", ["tests/passes/test_serialize.py", "tests/test_core.py"]),
    ("pyonnx/passes/pipeline.py", ["tests/passes/test_pipeline.py", "tests/test_core.py"]),
    ("pyonnx/passes/setitem", ["tests/passes/test_lower_setitem.py", "tests/test_setitem.py",
                               "tests/test_npbench.py"]),
    ("pyonnx/passes/lower_setitem.py", ["tests/passes/test_lower_setitem.py",
                                        "tests/test_setitem.py", "tests/test_npbench.py"]),
    ("pyonnx/passes/gradient", ["tests/test_grad.py", "tests/test_grad_control_flow.py",
                                "tests/test_grad_regressions.py"]),
    ("pyonnx/passes/rewrite_idioms.py", ["tests/passes/test_rewrite_idioms.py",
                                         "tests/test_npbench.py"]),
    ("pyonnx/passes", ["tests/passes", "tests/test_core.py"]),
]


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

    def add(node: ast.AST, new_node: ast.AST | str, kind: str) -> None:
        old = _segment(lines, node)
        new = new_node if isinstance(new_node, str) else ast.unparse(new_node)
        if node.lineno != node.end_lineno:
            new = f"({new})"
        out.append(Mutant(rel, node.lineno, node.col_offset, node.end_lineno,
                          node.end_col_offset, old, new, kind))

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
                              node.end_col_offset, _segment(lines, node), "pass", "drop"))
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


# Differential tests written for the mutants earlier samples left alive: small and fast, run
# for every mutant (they cover several modules each).
SURVIVOR_TESTS = "tests/test_mutation_survivors.py"


def tests_for(rel: str, root: Path) -> list[str]:
    extra = [SURVIVOR_TESTS] if (root / SURVIVOR_TESTS).exists() else []
    for prefix, tests in TESTS:
        if rel.startswith(prefix):
            return [t for t in tests if (root / t).exists()] + extra
    return ["tests/test_core.py"] + extra


def run_tests(root: Path, tests: list[str], timeout: float) -> tuple[str, float]:
    """'killed' / 'survived' / 'timeout' and the seconds it took."""
    env = dict(os.environ, PYTHONPATH=str(root), HYPOTHESIS_PROFILE="mutants",
               PYTHONDONTWRITEBYTECODE="1")
    cmd = [sys.executable, "-m", "pytest", "-x", "-q", "-p", "no:cacheprovider", "--no-cov",
           *tests]
    start = time.perf_counter()
    try:
        r = subprocess.run(cmd, cwd=root, env=env, capture_output=True, timeout=timeout)
    except subprocess.TimeoutExpired:
        return "timeout", time.perf_counter() - start
    took = time.perf_counter() - start
    if r.returncode == 0:
        return "survived", took
    if r.returncode in (2, 3, 4):  # interrupted / internal / usage error: the mutant broke
        return "killed", took      # the import or collection: the suite notices
    return "killed", took


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--n", type=int, default=80, help="mutants to sample (default 80)")
    ap.add_argument("--seed", type=int, default=17)
    ap.add_argument("--timeout", type=float, default=120.0, help="seconds per mutant")
    ap.add_argument("--repo", default=str(Path(__file__).resolve().parents[1]))
    ap.add_argument("--json", help="write the results here")
    ap.add_argument("--only", help="mutate only files under this path prefix")
    ap.add_argument("--no-baseline", action="store_true",
                    help="skip running the unmutated tests first (when known to pass)")
    args = ap.parse_args()

    repo = Path(args.repo).resolve()
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
        rng = random.Random(args.seed)
        sample = rng.sample(candidates, min(args.n, len(candidates)))
        sample.sort(key=lambda m: (m.path, m.line, m.col))
        # The unmutated code must pass every test set used, or every mutant would look killed.
        for tests in [] if args.no_baseline else sorted({tuple(tests_for(m.path, work))
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
                    status, took = "invalid", 0.0
                else:
                    status, took = run_tests(work, tests_for(m.path, work), args.timeout)
            finally:
                (work / m.path).write_text(original)
            results.append({**asdict(m), "status": status, "seconds": round(took, 1)})
            print(f"[{i:3d}/{len(sample)}] {status:8s} {took:6.1f}s  {m.describe()}", flush=True)
        valid = [r for r in results if r["status"] != "invalid"]
        killed = [r for r in valid if r["status"] in ("killed", "timeout")]
        survivors = [r for r in valid if r["status"] == "survived"]
        score = len(killed) / len(valid) if valid else 0.0
        print(f"\nkill score: {len(killed)}/{len(valid)} = {score:.0%} "
              f"({sum(r['status'] == 'timeout' for r in valid)} by timeout)")
        if survivors:
            print("survivors:")
            for r in survivors:
                print(f"  {Mutant(**{k: r[k] for k in Mutant.__dataclass_fields__}).describe()}")
        if args.json:
            Path(args.json).write_text(json.dumps({"score": score, "results": results},
                                                  indent=1))
    finally:
        shutil.rmtree(work, ignore_errors=True)
    return 0


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
