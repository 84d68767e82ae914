"""The ``pyonnx`` command line: convert, show, annotations, statics, errors and exit codes."""

from __future__ import annotations

import inspect
import os
import subprocess
import sys

import numpy as np
import onnx
import onnxruntime
import pytest
from click.testing import CliRunner

from pyonnx.cli import main
from tests import cli_kernels as K

KERNELS = os.path.join(os.path.dirname(__file__), "cli_kernels.py")


# click >= 8.2 captures stderr apart and gives stdout and stderr together as ``.output``; click
# 8.1 does so only with ``mix_stderr=False``, and then its ``.output`` is stdout alone.
_CLICK_81 = "mix_stderr" in inspect.signature(CliRunner.__init__).parameters


class _Result:
    """The click result with ``.output`` (stdout and stderr) and ``.stderr`` on every click."""

    def __init__(self, r):
        self.exit_code, self.stderr = r.exit_code, r.stderr
        self.output = r.stdout + r.stderr if _CLICK_81 else r.output


def run_cli(*args, cwd=None):
    return _Result(_invoke(*args, cwd=cwd))


def _invoke(*args, cwd=None):
    runner = CliRunner(mix_stderr=False) if _CLICK_81 else CliRunner()
    if cwd is None:
        return runner.invoke(main, list(args))
    old = os.getcwd()
    os.chdir(cwd)
    try:
        return runner.invoke(main, list(args))
    finally:
        os.chdir(old)


def ort_run(path, **feeds):
    sess = onnxruntime.InferenceSession(path, providers=["CPUExecutionProvider"])
    return sess.run(None, feeds)


def assert_same(got, want):
    assert got.dtype == want.dtype and got.shape == want.shape
    np.testing.assert_array_equal(got, want)


def test_convert_writes_a_valid_model(tmp_path):
    out = tmp_path / "scale.onnx"
    r = run_cli("convert", f"{KERNELS}:scale", "--input", "x=float32[N,3]", "-i", "k=float32[]",
                "-o", str(out))
    assert r.exit_code == 0, r.output
    assert r.output.startswith(f"wrote {out}:")
    assert "x: float32[N,3]" in r.output and "k: float32[]" in r.output and "node" in r.output
    model = onnx.load(out)
    onnx.checker.check_model(model, full_check=True)
    x, k = np.arange(12, dtype=np.float32).reshape(4, 3), np.array(0.5, np.float32)
    (got,) = ort_run(str(out), x=x, k=k)
    assert_same(got, K.scale(x, k))


def test_default_output_name_and_module_dir_on_path(tmp_path):
    # The module imports a sibling: its directory must be importable.
    (tmp_path / "cli_sibling_consts.py").write_text("FACTOR = 3.0\n")
    (tmp_path / "cli_mod.py").write_text(
        "from cli_sibling_consts import FACTOR\n\n\ndef triple(x):\n    return x * FACTOR\n")
    r = run_cli("convert", "cli_mod.py:triple", "-i", "x=float64[N]", cwd=tmp_path)
    assert r.exit_code == 0, r.output
    x = np.arange(4.0)
    (got,) = ort_run(str(tmp_path / "triple.onnx"), x=x)
    assert_same(got, x * 3.0)


def test_specs_from_annotations(tmp_path):
    out = tmp_path / "a.onnx"
    r = run_cli("convert", f"{KERNELS}:annotated", "-o", str(out))
    assert r.exit_code == 0, r.output
    model = onnx.load(out)
    onnx.checker.check_model(model, full_check=True)
    dims = [[d.dim_param or d.dim_value for d in i.type.tensor_type.shape.dim]
            for i in model.graph.input]
    assert dims == [["N", 3], [3]]
    x, y = np.ones((2, 3), np.float32), np.arange(3, dtype=np.float32)
    assert_same(ort_run(str(out), x=x, y=y)[0], K.annotated(x, y))
    # --input overrides an annotation.
    r = run_cli("convert", f"{KERNELS}:annotated", "-i", "x=float32[5,3]", "-o", str(out))
    assert r.exit_code == 0, r.output
    assert onnx.load(out).graph.input[0].type.tensor_type.shape.dim[0].dim_value == 5


def test_postponed_annotations(tmp_path):
    # Under `from __future__ import annotations`, annotations are their source text.
    (tmp_path / "fut.py").write_text(
        "from __future__ import annotations\n\n\n"
        "def neg(x: 'int32[N]', y: \"int32[]\"):\n    return -x + y\n")
    r = run_cli("convert", "fut.py:neg", "-o", "neg.onnx", cwd=tmp_path)
    assert r.exit_code == 0, r.output
    x, y = np.arange(-3, 3, dtype=np.int32), np.array(7, np.int32)
    assert_same(ort_run(str(tmp_path / "neg.onnx"), x=x, y=y)[0], -x + y)


def test_static_values_and_defaults(tmp_path):
    out = tmp_path / "t.onnx"
    r = run_cli("convert", f"{KERNELS}:times", "-i", "x=float32[N]", "--static", "n=3",
                "-o", str(out))
    assert r.exit_code == 0, r.output
    model = onnx.load(out)
    assert [i.name for i in model.graph.input] == ["x"]
    x = np.arange(5, dtype=np.float32)
    assert_same(ort_run(str(out), x=x)[0], K.times(x, 3))
    r = run_cli("convert", f"{KERNELS}:with_default", "-i", "x=int64[N]", "-o", str(out))
    assert r.exit_code == 0, r.output
    xi = np.arange(5)
    assert_same(ort_run(str(out), x=xi)[0], K.with_default(xi))


def test_opset(tmp_path):
    out = tmp_path / "o.onnx"
    r = run_cli("convert", f"{KERNELS}:times", "-i", "x=float32[N]", "--static", "n=2",
                "--opset", "18", "-o", str(out))
    assert r.exit_code == 0, r.output
    model = onnx.load(out)
    assert [o.version for o in model.opset_import if o.domain == ""] == [18]
    onnx.checker.check_model(model, full_check=True)
    x = np.arange(3, dtype=np.float32)
    assert_same(ort_run(str(out), x=x)[0], K.times(x, 2))


def test_show_prints_text(tmp_path):
    r = run_cli("show", f"{KERNELS}:scale", "-i", "x=float64[N]", "-i", "k=float64[]")
    assert r.exit_code == 0, r.output
    assert "scale (double[N] x, double k)" in r.output and "Mul" in r.output
    out = tmp_path / "m.onnx"
    assert run_cli("convert", f"{KERNELS}:scale", "-i", "x=float64[N]", "-i", "k=float64[]",
                   "-o", str(out)).exit_code == 0
    r2 = run_cli("show", str(out))
    assert r2.exit_code == 0
    assert r2.output == onnx.printer.to_text(onnx.load(out)) + "\n"


def test_conversion_error_exit_1_with_caret():
    r = run_cli("convert", f"{KERNELS}:refused", "-i", "x=float64[N]")
    assert r.exit_code == 1
    lines, start = inspect.getsourcelines(K.refused)
    line = start + next(i for i, s in enumerate(lines) if "with open" in s)
    err = r.stderr
    assert f"cli_kernels.py:{line}:5: error:" in err
    assert "with open" in err and "    ^" in err
    assert "Traceback" not in r.output


@pytest.mark.parametrize("args, message", [
    (["convert", f"{KERNELS}:scale", "-i", "x=float32[N]"], "no spec for parameter 'k'"),
    (["convert", f"{KERNELS}:scale", "-i", "x=flaot32[N]", "-i", "k=int64[]"], "unknown dtype"),
    (["convert", f"{KERNELS}:scale", "-i", "x=float32[N", "-i", "k=int64[]"], "cannot parse"),
    (["convert", f"{KERNELS}:scale", "-i", "z=float32[N]"], "no parameter 'z'"),
    (["convert", f"{KERNELS}:scale", "-i", "float32[N]"], "NAME=VALUE"),
    (["convert", f"{KERNELS}:times", "-i", "x=float32[N]", "--static", "n=foo bar"],
     "not a Python literal"),
    (["convert", f"{KERNELS}:times", "-i", "x=float32[N]", "--static", "x=1"],
     "both as --input and --static"),
    (["convert", f"{KERNELS}:not_annotated"], "no spec for parameter 'x'"),
    (["convert", f"{KERNELS}:nope", "-i", "x=float32[N]"], "has no 'nope'"),
    (["convert", KERNELS], "module.py:function"),
    (["convert", "no/such/file.py:f"], "no such file"),
    (["show", "no/such/model.onnx"], "no such file"),
    (["show", "m.onnx", "-i", "x=float32[N]"], "apply to a function"),
    (["convert", f"{KERNELS}:times", "-i", "x=float32[N]", "--opset", "99"],
     "not an ONNX opset"),
    (["convert"], "Missing argument"),
    (["frobnicate"], "No such command"),
])
def test_bad_arguments_exit_2(args, message):
    r = run_cli(*args)
    assert r.exit_code == 2, r.output
    assert message in r.output and "Usage:" in r.output
    assert "Traceback" not in r.output


def test_help_explains_with_examples():
    r = run_cli("--help")
    assert r.exit_code == 0 and "convert" in r.output and "show" in r.output
    r = run_cli("convert", "--help")
    assert r.exit_code == 0
    for text in ("Examples:", "--input", "--static", "--opset", "float32[N,3]", "annotation"):
        assert text in r.output


def test_python_dash_m(tmp_path):
    # The real entry point, in a fresh interpreter: exit codes and no traceback.
    out = tmp_path / "s.onnx"
    ok = subprocess.run([sys.executable, "-m", "pyonnx", "convert", f"{KERNELS}:times",
                         "-i", "x=int32[N]", "--static", "n=2", "-o", str(out)],
                        capture_output=True, text=True)
    assert ok.returncode == 0, ok.stderr
    onnx.checker.check_model(onnx.load(out), full_check=True)
    bad = subprocess.run([sys.executable, "-m", "pyonnx", "convert", f"{KERNELS}:refused",
                          "-i", "x=float64[N]"], capture_output=True, text=True)
    assert bad.returncode == 1 and "error:" in bad.stderr and "Traceback" not in bad.stderr
    assert "^" in bad.stderr
