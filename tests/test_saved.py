"""pyonnx.save / pyonnx.load: a saved model called in a fresh process without the source."""

from __future__ import annotations

import os
import subprocess
import sys
import textwrap

import numpy as np
import onnx
import onnxruntime
import pytest

import pyonnx

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))

KERNELS = '''
import numpy as np

def moments(x, axis):
    return x.mean(axis=axis), x.std(axis=axis)

def total(x, k: float):
    return np.sum(x * k)

def normalize_(x):
    x -= x.mean()
    return [x.shape[0], None]
'''

CALLER = textwrap.dedent("""
    import sys
    import numpy as np
    import pyonnx
    m = pyonnx.load(sys.argv[1] + "/moments.onnx")
    t = pyonnx.load(sys.argv[1] + "/total.onnx")
    n = pyonnx.load(sys.argv[1] + "/normalize.onnx")
    x = np.arange(12.0).reshape(3, 4)
    mean, std = m(x)                               # the static axis defaults to its saved value
    s = t(x.astype(np.float32), k=0.5)
    y = np.arange(5.0)
    shape = n(y)
    print(repr(mean.tolist()), repr(std.tolist()), type(s).__name__, repr(float(s)),
          repr(shape), repr(y.tolist()))
    for bad in (lambda: t(x, 0.5), lambda: t(x.astype(np.float32), 1), lambda: m(x, 0),
                lambda: n(np.ones((2, 2)))):
        try:
            bad()
        except (TypeError, ValueError) as e:
            print(type(e).__name__ + ":", e)
    print("onnx_ir" in sys.modules)
""")


def test_saved_models_run_in_a_fresh_process_without_the_source(tmp_path):
    src = tmp_path / "kernels_to_save.py"
    src.write_text(KERNELS)
    sys.path.insert(0, str(tmp_path))
    try:
        import kernels_to_save as k
    finally:
        sys.path.remove(str(tmp_path))
    pyonnx.save(pyonnx.compile(k.moments), str(tmp_path / "moments.onnx"),
                pyonnx.spec("float64", ("N", 4)), 1)
    pyonnx.save(k.total, str(tmp_path / "total.onnx"), pyonnx.spec("float32", ("N", "M")), 2.0)
    pyonnx.save(k.normalize_, str(tmp_path / "normalize.onnx"), np.ones(3))
    src.unlink()  # the source is gone
    for name in ("moments", "total", "normalize"):
        model = onnx.load(str(tmp_path / f"{name}.onnx"))
        onnx.checker.check_model(model, full_check=True)  # a plain ONNX model
        onnxruntime.InferenceSession(model.SerializeToString())
    out = subprocess.run([sys.executable, "-c", CALLER, str(tmp_path)], capture_output=True,
                         text=True, env=dict(os.environ, PYTHONPATH=ROOT), timeout=300,
                         cwd=str(tmp_path))
    assert out.returncode == 0, out.stderr
    lines = out.stdout.splitlines()
    x = np.arange(12.0).reshape(3, 4)
    y = np.arange(5.0)
    y -= y.mean()
    s = np.sum(x.astype(np.float32) * 0.5)
    assert lines[0] == " ".join([repr(x.mean(axis=1).tolist()), repr(x.std(axis=1).tolist()),
                                 type(s).__name__, repr(float(s)), repr([5, None]),
                                 repr(y.tolist())])
    assert "must have dtype float32, got float64" in lines[1]
    assert "'k' must be a Python float" in lines[2]
    assert "'axis' was 1 when the model was saved" in lines[3]
    assert "'x' must have 1 dimensions" in lines[4]
    assert lines[5] == "False"  # no converter imported


def test_load_refuses_a_model_without_metadata(tmp_path):
    def double(x):
        return x * 2

    path = str(tmp_path / "plain.onnx")
    onnx.save(pyonnx.compile(double).to_onnx(np.ones(2)), path)
    with pytest.raises(ValueError, match="no pyonnx call metadata"):
        pyonnx.load(path)


def positives(x):
    keep = []
    for v in x:
        if v > 0:
            keep.append(v)
    return keep


def positive_pairs(x):
    out = []
    for i in range(x.shape[0]):
        if x[i] > 0:
            out.append((i, x[i]))
    return out


def test_saved_run_time_lists(tmp_path):
    """A list built at run time (an ONNX sequence output) and a list of tuples: their result
    trees are written to the metadata and read back (saving them raised TypeError before)."""
    x = np.array([1.0, -3.0, 2.0, 0.5])
    for fn in (positives, positive_pairs):
        path = str(tmp_path / f"{fn.__name__}.onnx")
        pyonnx.save(fn, path, x)
        saved = pyonnx.load(path)
        for arg in (x, -x, np.zeros(0)):
            got, want = saved(arg), fn(arg)
            assert type(got) is list and len(got) == len(want)
            for g, w in zip(got, want):
                assert type(g) is type(w) and g == w
