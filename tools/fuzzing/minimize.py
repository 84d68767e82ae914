"""Delta debugging of a failing program: drop statements, unwrap ``if``/loops, shorten returns,
drop unused helpers, while the failure keeps its class (and, for crashes and refusals, its group).
"""

from __future__ import annotations

import ast
import copy
import time
from dataclasses import replace


def _stmt_lists(tree):
    """Every statement list of the module, in a fixed order: (owner node, field name)."""
    out = []

    def visit(node):
        for fld in ("body", "orelse"):
            lst = getattr(node, fld, None)
            if isinstance(lst, list) and lst and isinstance(lst[0], ast.stmt):
                out.append((node, fld))
                for s in lst:
                    visit(s)
    visit(tree)
    return out


def variants(source: str):
    """Smaller programs, biggest cuts first."""
    tree = ast.parse(source)
    n_lists = len(_stmt_lists(tree))
    for li in range(n_lists):
        owner0, fld0 = _stmt_lists(tree)[li]
        lst_len = len(getattr(owner0, fld0))
        for i in range(lst_len - 1, -1, -1):
            for how in ("drop", "unwrap"):
                t = copy.deepcopy(tree)
                owner, fld = _stmt_lists(t)[li]
                lst = getattr(owner, fld)
                node = lst[i]
                if how == "drop":
                    if isinstance(node, ast.FunctionDef) and node.name == "f":
                        continue
                    if isinstance(node, (ast.Import, ast.ImportFrom)):
                        continue
                    new = lst[:i] + lst[i + 1:]
                elif isinstance(node, (ast.If, ast.While, ast.For)):
                    inner = node.body if not (isinstance(node, ast.For)) else [
                        ast.Assign([node.target], node.iter.args[0] if isinstance(node.iter, ast.Call)
                                   and node.iter.args else ast.Constant(0), lineno=0)] + node.body
                    new = lst[:i] + inner + lst[i + 1:]
                elif isinstance(node, ast.Return) and isinstance(node.value, (ast.Tuple, ast.List)) \
                        and len(node.value.elts) > 1:
                    for j in range(len(node.value.elts)):
                        t2 = copy.deepcopy(t)
                        o2, f2 = _stmt_lists(t2)[li]
                        r = getattr(o2, f2)[i]
                        del r.value.elts[j]
                        yield ast.unparse(ast.fix_missing_locations(t2)) + "\n"
                    continue
                else:
                    continue
                setattr(owner, fld, new or [ast.Pass()])
                try:
                    src = ast.unparse(ast.fix_missing_locations(t)) + "\n"
                    compile(src, "<cut>", "exec")  # a 'break' left outside its loop
                except Exception:  # noqa: BLE001 - an invalid cut is skipped
                    continue
                yield src


def minimize(prog, outcome, run, budget_s: float = 60.0, max_runs: int = 300):
    """Returns ``(smaller program, its outcome)``; ``run(prog) -> Outcome``."""
    key = (outcome.cls, outcome.group if outcome.cls in ("crash", "refused") else "")
    best, best_out = prog, outcome
    start, runs = time.time(), 0
    changed = True
    while changed and time.time() - start < budget_s and runs < max_runs:
        changed = False
        for src in variants(best.source):
            if time.time() - start > budget_s or runs >= max_runs:
                break
            runs += 1
            cand = replace(best, source=src)
            out = run(cand)
            if (out.cls, out.group if out.cls in ("crash", "refused") else "") == key:
                best, best_out, changed = cand, out, True
                break
    return best, best_out
