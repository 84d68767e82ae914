"""sympy, which onnx-ir imports, loads only when used (pyonnx.lazy_modules): the first
conversion in a process does not pay for it; onnx-ir's symbolic arithmetic still works."""

from __future__ import annotations

import subprocess
import sys

PROBE = """
import sys
import numpy as np
import pyonnx

def f(x, y):
    return (x * 2 + y).sum(axis=0)

print(pyonnx.compile(f)(np.ones((3, 2)), np.ones((3, 2))).tolist())
print(sys.modules["sympy"].__dict__.get("_pyonnx_lazy"))
import onnx_ir as ir
d = ir.SymbolicDim("N") + 1  # sympy arithmetic: loads it
print(d.value, sys.modules["sympy"].__dict__.get("_pyonnx_lazy"), sys.modules["sympy"].Integer(2))
"""


def test_first_conversion_does_not_import_sympy(tmp_path):
    probe = tmp_path / "probe.py"  # (pyonnx reads the function's source from its file)
    probe.write_text(PROBE)
    out = subprocess.run([sys.executable, str(probe)], capture_output=True, text=True,
                         timeout=300)
    assert out.returncode == 0, out.stderr
    lines = out.stdout.split("\n")
    assert lines[0] == "[9.0, 9.0]"
    assert lines[1] == "pending"
    assert lines[2] == "N + 1 loaded 2"
