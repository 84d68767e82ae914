"""Which tests tools/mutants.py runs for a mutant: the tests that executed the mutated
statement (a coverage map with per-test contexts), or a fixed list per module path."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

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


# Differential tests written for the mutants earlier samples left alive: small and fast, run
# for every mutant without a map (they cover several modules each).
SURVIVOR_TESTS = ("tests/test_mutation_survivors.py", "tests/test_mutation_survivors_2.py")


def tests_for(rel: str, root: Path) -> list[str]:
    extra = [t for t in SURVIVOR_TESTS if (root / t).exists()]
    for prefix, tests in TESTS:
        if rel.startswith(prefix):
            return [t for t in tests if (root / t).exists()] + extra
    return ["tests/test_core.py"] + extra


class CoverageMap:
    """Which tests executed which statement: a coverage data file recorded with
    ``--cov-context=test`` (pytest-cov names a context ``tests/x.py::test_y[id]|run``)."""

    def __init__(self, path: str, max_tests: int):
        import glob

        from coverage import CoverageData

        # One combined file, or the per-process files of a run (``path*``: xdist workers).
        self.datas = []
        for name in sorted(glob.glob(path + "*")) or [path]:
            data = CoverageData(basename=name)
            data.read()
            self.datas.append(data)
        self.max_tests = max_tests
        self._by_file: dict[str, dict[int, set[str]]] = {}

    def _lines(self, rel: str) -> dict[int, set[str]]:
        if rel not in self._by_file:
            merged: dict[int, set[str]] = {}
            for data in self.datas:
                for f in data.measured_files():
                    if f.replace(os.sep, "/").endswith("/" + rel):
                        for line, cs in data.contexts_by_lineno(f).items():
                            merged.setdefault(line, set()).update(cs)
            self._by_file[rel] = merged
        return self._by_file[rel]

    def tests(self, m) -> list[str] | None:
        """The test ids that executed the mutant's statement; [] when none did; None when only
        the import did (a module-level or signature line: every test depends on it)."""
        if not m.stmt_line:
            return None
        contexts = self._lines(m.path).get(m.stmt_line, [])
        ids = sorted({c.rsplit("|", 1)[0] for c in contexts if c})
        if not ids:
            return None if contexts else []
        if len(ids) > self.max_tests:  # a line most tests run: any spread of them will do
            step = len(ids) / self.max_tests
            ids = [ids[int(k * step)] for k in range(self.max_tests)]
        return ids


def build_map(repo: Path, out: str) -> int:
    """Runs the whole suite once, recording which test executed which line into ``out``."""
    env = dict(os.environ, PYTHONPATH=str(repo), COVERAGE_FILE=str(Path(out).resolve()))
    cmd = [sys.executable, "-m", "pytest", "-q", "-p", "no:cacheprovider", "--cov=pyonnx",
           "--cov-branch", "--cov-report=", "--cov-context=test"]
    return subprocess.run(cmd, cwd=repo, env=env).returncode


