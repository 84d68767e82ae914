"""Layering and import-cycle checks for ``pyonnx/`` (docs/architecture.md).

The module import graph is built from the AST of every file under ``pyonnx/``, function-level
imports included (a lazy import still couples two modules). An import of a package counts as
an import of its ``__init__``; ``from pkg import name`` counts as an import of ``pkg.name`` when
that is a module, else of ``pkg``. Importing ``a.b.c`` also runs ``a/__init__`` and
``a/b/__init__``, but those edges are left out: a package's ``__init__`` importing its own
children is how packages are built, and counting the parents would make every such package a
cycle.

A module that loads modules by name (``importlib.import_module(f"{__name__}.{m}")`` over a
module-level ``_MODULES`` tuple, as the numpy registry loads its families) gets an edge to each
of them: an import the AST does not spell out is still an import.
"""

from __future__ import annotations

import ast
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
PACKAGE = ROOT / "pyonnx"

# (importer prefix, forbidden imported prefix, why)
FORBIDDEN = [
    ("pyonnx.passes", "pyonnx.frontend", "passes see only onnx_ir models"),
    ("pyonnx.runtime", "pyonnx.frontend", "runtime sees only ModelProto bytes"),
    ("pyonnx.runtime", "pyonnx.passes", "runtime sees only ModelProto bytes"),
    ("pyonnx.frontend.graph", "pyonnx.frontend.numpy_calls",
     "the builder layer is under the registry"),
    ("pyonnx.frontend.graph", "pyonnx.frontend.lower",
     "the builder layer is under statement lowering"),
    ("pyonnx.frontend.numpy_calls", "pyonnx.frontend.lower",
     "the registry is under statement lowering"),
    ("pyonnx.frontend.vectorize", "pyonnx.frontend.lower",
     "the vectorizer rewrites loops into code statement lowering lowers; it is under it"),
    ("pyonnx.frontend.vectorize", "pyonnx.frontend.numpy_calls",
     "the vectorizer emits numpy source, never a lowering"),
    ("pyonnx.passes.gradient.registry", "pyonnx.passes",
     "the VJP registry imports no rule and no pass"),
    ("pyonnx.passes.fold_rules.registry", "pyonnx.passes",
     "the fold registry imports no rule and no pass"),
    ("pyonnx.frontend.numpy_calls.registry", "pyonnx.frontend.numpy_calls",
     "the numpy registry imports no family"),
]


def module_name(path: Path) -> str:
    parts = list(path.relative_to(ROOT).with_suffix("").parts)
    if parts[-1] == "__init__":
        parts.pop()
    return ".".join(parts)


def all_modules(package: Path = PACKAGE) -> dict[str, Path]:
    return {module_name(p): p for p in sorted(package.rglob("*.py"))}


def _resolve(module: str, path: Path, node: ast.ImportFrom) -> str:
    if node.level == 0:
        return node.module or ""
    base = module.split(".") if path.name == "__init__.py" else module.split(".")[:-1]
    base = base[: len(base) - (node.level - 1)]
    return ".".join(base + ([node.module] if node.module else []))


def _loaded_by_name(name: str, tree: ast.Module) -> list[str]:
    """The ``{name}.{m}`` for each ``m`` in a module-level ``_MODULES`` tuple of string literals,
    when the module calls ``importlib.import_module``; else nothing."""
    calls = any(isinstance(n, ast.Attribute) and n.attr == "import_module" for n in ast.walk(tree))
    for node in tree.body:
        if (calls and isinstance(node, ast.Assign) and len(node.targets) == 1
                and isinstance(node.targets[0], ast.Name) and node.targets[0].id == "_MODULES"):
            return [f"{name}.{m}" for m in ast.literal_eval(node.value)]
    return []


def import_graph(package: Path = PACKAGE) -> dict[str, set[str]]:
    """Module → the ``pyonnx`` modules it imports anywhere in its file."""
    modules = all_modules(package)
    graph: dict[str, set[str]] = {name: set() for name in modules}
    for name, path in modules.items():
        tree = ast.parse(path.read_text(), filename=str(path))
        graph[name].update(m for m in _loaded_by_name(name, tree) if m in modules)
        for node in ast.walk(tree):
            targets: list[str] = []
            if isinstance(node, ast.Import):
                targets = [alias.name for alias in node.names]
            elif isinstance(node, ast.ImportFrom):
                base = _resolve(name, path, node)
                for alias in node.names:
                    full = f"{base}.{alias.name}"
                    targets.append(full if full in modules else base)
            for target in targets:
                while target and target not in modules:  # `import a.b.c` of a non-module
                    target = target.rpartition(".")[0]
                if target and target != name:
                    graph[name].add(target)
    return graph


def find_cycles(graph: dict[str, set[str]]) -> list[list[str]]:
    """Strongly connected components with more than one module (Tarjan), each sorted."""
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    on_stack: set[str] = set()
    cycles: list[list[str]] = []
    counter = [0]

    def visit(v: str) -> None:
        index[v] = low[v] = counter[0]
        counter[0] += 1
        stack.append(v)
        on_stack.add(v)
        for w in sorted(graph.get(v, ())):
            if w not in index:
                visit(w)
                low[v] = min(low[v], low[w])
            elif w in on_stack:
                low[v] = min(low[v], index[w])
        if low[v] == index[v]:
            component = []
            while True:
                w = stack.pop()
                on_stack.discard(w)
                component.append(w)
                if w == v:
                    break
            if len(component) > 1:
                cycles.append(sorted(component))

    for v in sorted(graph):
        if v not in index:
            visit(v)
    return cycles


def _within(module: str, prefix: str) -> bool:
    return module == prefix or module.startswith(prefix + ".")


def forbidden_imports(graph: dict[str, set[str]]) -> list[str]:
    found = []
    for importer, imported in sorted(graph.items()):
        for target in sorted(imported):
            for src, dst, why in FORBIDDEN:
                if _within(importer, src) and _within(target, dst) and not _within(target, src):
                    found.append(f"{importer} imports {target} ({why})")
    return found


def test_no_forbidden_import():
    assert forbidden_imports(import_graph()) == []


def test_statement_lowering_finds_calls_only_through_the_registry():
    # lower/ may import the registry package (its look-ups), not a family or the table.
    graph = import_graph()
    direct = sorted(f"{m} imports {t}" for m, ts in graph.items()
                    if _within(m, "pyonnx.frontend.lower")
                    for t in ts if t.startswith("pyonnx.frontend.numpy_calls."))
    assert direct == []


def test_no_import_cycle():
    cycles = find_cycles(import_graph())
    assert cycles == [], "import cycles:\n" + "\n".join(" ↔ ".join(c) for c in cycles)


def test_the_checks_see_a_planted_cycle_and_a_forbidden_import(tmp_path):
    # The checker itself: a two-module cycle through a function-level import, and a layering
    # violation, in a throwaway package laid out like pyonnx.
    pkg = tmp_path / "pyonnx"
    (pkg / "passes").mkdir(parents=True)
    (pkg / "frontend").mkdir()
    for init in (pkg, pkg / "passes", pkg / "frontend"):
        (init / "__init__.py").write_text("")
    (pkg / "passes" / "a.py").write_text("from . import b\n")
    (pkg / "passes" / "b.py").write_text("def f():\n    from pyonnx.passes.a import x\n")
    (pkg / "passes" / "c.py").write_text("from ..frontend import d\n")
    (pkg / "frontend" / "d.py").write_text("")
    # A registry that loads its families by name, one of which imports it back.
    (pkg / "frontend" / "reg").mkdir()
    (pkg / "frontend" / "reg" / "__init__.py").write_text(
        "import importlib\n_MODULES = ('fam',)\n"
        "def load():\n    for m in _MODULES:\n        importlib.import_module(f'{__name__}.{m}')\n")
    (pkg / "frontend" / "reg" / "fam.py").write_text("from pyonnx.frontend.reg import load\n")
    global ROOT
    saved, ROOT = ROOT, tmp_path
    try:
        graph = import_graph(pkg)
    finally:
        ROOT = saved
    assert find_cycles(graph) == [["pyonnx.frontend.reg", "pyonnx.frontend.reg.fam"],
                                  ["pyonnx.passes.a", "pyonnx.passes.b"]]
    assert forbidden_imports(graph) == [
        "pyonnx.passes.c imports pyonnx.frontend.d (passes see only onnx_ir models)"
    ]


if __name__ == "__main__":
    for cycle in find_cycles(import_graph()):
        print("cycle:", " ↔ ".join(cycle))
    for line in forbidden_imports(import_graph()):
        print("forbidden:", line)
