"""The shared onnxruntime thread pool (pyonnx/runtime/threads.py).

The pool is process-wide, so every case runs in a fresh interpreter: pyonnx's sessions and the
user's own onnxruntime sessions (made before and after pyonnx's first) must all run and give
the right results, whatever ``PYONNX_NUM_THREADS`` says.
"""

from __future__ import annotations

import os
import subprocess
import sys
import textwrap

import pytest

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))

SCRIPT = textwrap.dedent("""
    import sys
    import numpy as np
    import onnxruntime as ort
    from onnx import TensorProto, helper

    graph = helper.make_graph(
        [helper.make_node("Add", ["a", "a"], ["b"])], "g",
        [helper.make_tensor_value_info("a", TensorProto.FLOAT, [None])],
        [helper.make_tensor_value_info("b", TensorProto.FLOAT, [None])])
    # (IR version 10: onnx's default is its newest, which the oldest onnxruntime allowed,
    # 1.31, does not load)
    model = helper.make_model(graph, opset_imports=[helper.make_opsetid("", 21)], ir_version=10)
    data = model.SerializeToString()
    a = np.arange(3, dtype=np.float32)

    def user_sessions():
        opts = ort.SessionOptions()
        opts.intra_op_num_threads = 2
        for s in (ort.InferenceSession(data), ort.InferenceSession(data, opts),
                  ort.InferenceSession(data, providers=["CPUExecutionProvider"])):
            assert (s.run(None, {"a": a})[0] == 2 * a).all()

    if sys.argv[1] == "user-first":
        early = ort.InferenceSession(data)
    import pyonnx
    from pyonnx.runtime import threads

    def twice_sum(x):
        return np.sum(x * 2.0, axis=0)

    f = pyonnx.compile(twice_sum)
    x = np.arange(12.0).reshape(4, 3)
    assert (f(x) == np.sum(x * 2.0, axis=0)).all()
    user_sessions()
    if sys.argv[1] == "user-first":
        assert (early.run(None, {"a": a})[0] == 2 * a).all()
    assert (f(x + 1) == np.sum((x + 1) * 2.0, axis=0)).all()
    print(threads.uses_global_pool(), threads.num_threads())
""")


def run(tmp_path, mode: str, threads: str | None) -> subprocess.CompletedProcess:
    script = tmp_path / "threads_case.py"
    script.write_text(SCRIPT)
    env = dict(os.environ, PYTHONPATH=ROOT)
    env.pop("PYONNX_NUM_THREADS", None)
    if threads is not None:
        env["PYONNX_NUM_THREADS"] = threads
    return subprocess.run([sys.executable, str(script), mode], env=env, capture_output=True,
                          text=True, timeout=120)


@pytest.mark.parametrize("mode", ["pyonnx-first", "user-first"])
@pytest.mark.parametrize("threads,want", [("3", "True 3"), ("1", "False 1"), (None, "False 1"),
                                          ("0", None)])
def test_user_sessions_keep_working(tmp_path, mode, threads, want):
    out = run(tmp_path, mode, threads)
    assert out.returncode == 0, out.stderr
    assert "EP Error" not in out.stdout + out.stderr
    if want is not None:
        assert out.stdout.strip() == want


def test_bad_thread_count_is_a_clear_error(tmp_path):
    out = run(tmp_path, "pyonnx-first", "zero")
    assert out.returncode != 0
    assert "PYONNX_NUM_THREADS must be a non-negative integer" in out.stderr
