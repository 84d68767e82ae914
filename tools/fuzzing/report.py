"""Writing a failing program as a standalone script, and the campaign summary."""

from __future__ import annotations

import os

from fuzzing.program import Program

TEMPLATE = '''"""pyonnx fuzzer, seed {seed} ({mode} mode): {cls}.

{detail}

Reproduce: python tools/fuzz.py {flag}--seed {seed} --count 1
expected (numpy), per input set: {expected}
got (pyonnx), per input set:     {got}
"""
{source}
{inputs}

if __name__ == "__main__":
    import copy
    import pyonnx
    for args in (ARGS0, ARGS1):
        want = f(*copy.deepcopy(args))
        got = pyonnx.compile(f)(*copy.deepcopy(args))
        print("numpy :", repr(want))
        print("pyonnx:", repr(got))
'''


def write_failure(out_dir: str, prog: Program, outcome, suffix: str = "") -> str:
    """Writes ``<class>_<seed><suffix>.py``; returns its path."""
    os.makedirs(out_dir, exist_ok=True)
    path = os.path.join(out_dir, f"{outcome.cls}_{prog.seed}{suffix}.py")
    text = TEMPLATE.format(
        seed=prog.seed, mode=prog.mode, cls=outcome.cls, detail=outcome.detail[:2000].replace('"""', "'''"),
        flag="--grad " if prog.mode == "grad" else "", source=prog.source, inputs=prog.inputs_source(),
        expected=_short(outcome.expected), got=_short(outcome.got))
    with open(path, "w") as fh:
        fh.write(text)
    return path


def _short(v) -> str:
    return repr(v).replace("\n", " ")[:600].replace('"""', "'''")
