"""The runtime: session cache, provider choice and fallback, run-time errors, call path inputs.

This machine has only the CPU (and Azure remote-call) providers, so provider failures are made
real by replacing ``onnxruntime.InferenceSession`` with one that refuses a provider, or a
session's ``_run`` with one that fails: what is checked is pyonnx's real behaviour around them
(which provider ends up running, results, warnings logged, nothing printed).
"""

from __future__ import annotations

import inspect
import logging
import subprocess
import sys

import numpy as np
import onnx
import onnxruntime
import pytest
from onnx import helper

import pyonnx
from pyonnx.api import _SESSIONS
from pyonnx.runtime import Session, SessionCache, session as session_mod
from pyonnx.runtime.providers import resolve_providers
from tests.oracle import assert_same, check

CPU = "CPUExecutionProvider"
AZURE = "AzureExecutionProvider"
HAS_AZURE = AZURE in onnxruntime.get_available_providers()
needs_two = pytest.mark.skipif(not HAS_AZURE, reason="needs a second available provider "
                               "(the Azure provider of stock onnxruntime wheels)")


def add(a, b):
    return a + b


def affine(x, w, s):
    return x * w + s


def two_outputs(x, s):
    return x * s, s * 2


def bad_broadcast(x, y):
    z = x * 2
    return z + y


def clashing_names(run, feeds, e=1.5, *, outs=2.0):
    # Parameter names that the generated call code also uses internally.
    return run * feeds + e * outs


def reshape_from_data(x, n):
    y = x * 2
    return y.reshape(n, 5)


def gather_from_data(x, i):
    return x[i] + 1


def flag_kernel(x, flag):
    if flag:
        return x + 1
    return x - 1


@pytest.fixture(autouse=True)
def _fresh_runtime(monkeypatch):
    # Fallback warnings are deduplicated per process, and a cached session keeps the provider
    # it fell back to: each test starts with no warning given and no session made.
    monkeypatch.setattr(session_mod, "_WARNED", set())
    monkeypatch.setattr(_SESSIONS, "_cache", SessionCache())


def _warnings(caplog):
    return [r for r in caplog.records
            if r.levelno >= logging.WARNING and r.name.startswith("pyonnx")]


# ---------------------------------------------------------------- session cache
def test_same_signature_same_session_other_signature_new_one():
    a, b = np.ones(3, np.float32), np.arange(3, dtype=np.float32)
    f, g = pyonnx.compile(add), pyonnx.compile(add)
    f(a, b)
    g(a[:2], b[:2])  # same signature (dtype, rank): the same model bytes
    assert g._last.session is f._last.session
    g(a.astype(np.float64), b.astype(np.float64))
    assert g._last.session is not f._last.session
    assert g.conversions == 2 and f.conversions == 1


def test_session_cache_keys_model_providers_options():
    model = pyonnx.compile(add).to_onnx(np.ones(2), np.ones(2)).SerializeToString()
    other = pyonnx.compile(add).to_onnx(np.ones(2, np.int32), np.ones(2, np.int32))
    cache = SessionCache(maxsize=2)
    s1 = cache.get(model, (CPU,))
    assert cache.get(bytes(model), (CPU,)) is s1  # equal bytes, other object: same session
    s2 = cache.get(model, (CPU,), (("intra_op_num_threads", 2),))
    assert s2 is not s1
    s3 = cache.get(other.SerializeToString(), (CPU,))
    assert len(cache) == 2 and s3 is not s1
    assert cache.get(model, (CPU,)) is not s1  # s1 was the least recently used: evicted
    with pytest.raises(ValueError, match="no option 'no_such_option'"):
        Session(model, (CPU,), (("no_such_option", 1),))


# ----------------------------------------------------------------- providers
def test_default_providers_and_env_var(monkeypatch):
    monkeypatch.delenv("PYONNX_PROVIDERS", raising=False)
    default = resolve_providers(None)
    assert default[-1] == CPU and AZURE not in default
    monkeypatch.setenv("PYONNX_PROVIDERS", "cpu")
    f = pyonnx.compile(add)
    np.testing.assert_array_equal(f(np.ones(2), np.ones(2)), np.full(2, 2.0))
    assert f.providers == (CPU,)
    if HAS_AZURE:
        monkeypatch.setenv("PYONNX_PROVIDERS", " Azure , CPUExecutionProvider")
        g = pyonnx.compile(add)
        g(np.ones(2), np.ones(2))
        assert g.providers == (AZURE, CPU)
    monkeypatch.setenv("PYONNX_PROVIDERS", "NoSuchThing")
    with pytest.raises(ValueError, match="PYONNX_PROVIDERS.*NoSuchThing"):
        pyonnx.compile(add)(np.ones(2), np.ones(2))


def test_provider_names_normalized():
    assert resolve_providers("cpu") == (CPU,)
    assert resolve_providers(["CUDA", "cuda", "CPU"]) == ("CUDAExecutionProvider", CPU)
    assert resolve_providers(["CUDAExecutionProvider"]) == ("CUDAExecutionProvider", CPU)


def test_unknown_provider_is_a_value_error():
    f = pyonnx.compile(add, providers=["Cuda", "NotAProvider"])
    with pytest.raises(ValueError, match="unknown onnxruntime provider 'NotAProvider'"):
        f(np.ones(2), np.ones(2))
    with pytest.raises(ValueError, match="empty"):
        resolve_providers([])


def test_unavailable_provider_skipped_with_one_warning(caplog, capfd):
    available = set(onnxruntime.get_available_providers())
    missing = next(p for p in onnxruntime.get_all_providers() if p not in available)
    with caplog.at_level(logging.WARNING):
        f = pyonnx.compile(add, providers=[missing, "CPU"])
        x = np.arange(4.0)
        np.testing.assert_array_equal(f(x, x), x + x)
        np.testing.assert_array_equal(f(x.astype(np.float32), x.astype(np.float32)), x + x)
    warned = _warnings(caplog)
    assert len(warned) == 1 and missing in warned[0].getMessage()
    assert "not available" in warned[0].getMessage()
    assert f.providers == (CPU,)
    assert capfd.readouterr().out == ""


@needs_two
def test_fallback_when_a_provider_cannot_create_the_session(monkeypatch, caplog, capfd):
    real = onnxruntime.InferenceSession
    tried = []

    def refusing(model, options=None, providers=None, **kwargs):
        tried.append(tuple(providers))
        if providers[0] == AZURE:
            raise RuntimeError("simulated: Azure cannot take this graph")
        return real(model, options, providers=providers, **kwargs)

    monkeypatch.setattr(onnxruntime, "InferenceSession", refusing)
    f = pyonnx.compile(affine, providers=["Azure", "CPU"])
    x, w = np.arange(6.0).reshape(2, 3), np.arange(3.0)
    with caplog.at_level(logging.WARNING):
        check(f, x, w, 0.5)
        check(f, x, w, 2)  # another signature, another session: the same failure, no new warning
    warned = _warnings(caplog)
    assert len(warned) == 1, [r.getMessage() for r in warned]
    assert AZURE in warned[0].getMessage() and "simulated" in warned[0].getMessage()
    assert tried[:2] == [(AZURE, CPU), (CPU,)]
    assert f.providers == (CPU,)
    assert capfd.readouterr().out == ""  # onnxruntime's own fallback would print here


@needs_two
def test_fallback_when_a_provider_fails_to_run(caplog, capfd):
    f = pyonnx.compile(affine, providers=["Azure", "CPU"])
    x, w = np.arange(6.0).reshape(2, 3), np.arange(3.0)
    check(f, x, w, 1.5)
    assert f.providers == (AZURE, CPU)
    session = f._last.session
    real_run = session._run
    calls = []

    def failing_run(*args):
        calls.append(1)
        raise RuntimeError("simulated: the device was lost")

    session._run = failing_run
    with caplog.at_level(logging.WARNING):
        np.testing.assert_array_equal(f(x, w, 1.5), affine(x, w, 1.5))
        for _ in range(3):  # switched for good: no further failure, no further warning
            np.testing.assert_array_equal(f(x, w, 1.5), affine(x, w, 1.5))
    warned = _warnings(caplog)
    assert len(warned) == 1 and "failed to run" in warned[0].getMessage()
    assert "device was lost" in warned[0].getMessage()
    assert calls == [1]
    assert f.providers == (CPU,) and session._run is not real_run
    assert capfd.readouterr().out == ""


@needs_two
def test_run_error_of_the_inputs_keeps_the_provider(caplog):
    f = pyonnx.compile(bad_broadcast, providers=["Azure", "CPU"])
    f(np.ones(3), np.ones(3))
    with caplog.at_level(logging.WARNING), pytest.raises(pyonnx.ExecutionError, match="onnxruntime failed to run the model"):
        f(np.ones(3), np.ones(4))
    assert _warnings(caplog) == []  # the CPU fails as well: the data is at fault
    assert f.providers == (AZURE, CPU)


@needs_two
def test_shared_session_switch_seen_by_other_functions(caplog):
    f = pyonnx.compile(add, providers=["Azure", "CPU"])
    g = pyonnx.compile(add, providers=["Azure", "CPU"])
    x = np.ones(3)
    f(x, x), g(x, x)
    session = f._last.session
    assert g._last.session is session

    def failing_run(*args):
        raise RuntimeError("simulated: lost")

    session._run = failing_run
    with caplog.at_level(logging.WARNING):
        np.testing.assert_array_equal(f(x, x), x + x)
        np.testing.assert_array_equal(g(x, x), x + x)  # reads the switched session
    assert len(_warnings(caplog)) == 1 and g.providers == (CPU,)


# ------------------------------------------------------------ run-time errors
def _line_of(fn, text):
    lines, start = inspect.getsourcelines(fn)
    return start + next(i for i, line in enumerate(lines) if text in line)


def test_execution_error_names_the_source_line(capfd):
    f = pyonnx.compile(bad_broadcast)
    np.testing.assert_array_equal(f(np.ones(3), np.ones(3)), np.full(3, 3.0))
    with pytest.raises(pyonnx.ExecutionError, match="onnxruntime failed to run the model") as info:
        f(np.ones(3), np.ones(4))
    msg = str(info.value)
    line = _line_of(bad_broadcast, "return z + y")
    assert f"test_runtime.py:{line}:" in msg.splitlines()[0]
    assert "Add node" in msg and "broadcast" in msg
    src = msg.splitlines()[1]
    caret = msg.splitlines()[2]
    assert src.strip() == "return z + y"
    assert src[len(caret) - 1:].startswith("z + y")  # the caret is under the expression
    assert info.value.__cause__ is None and info.value.__suppress_context__
    err = capfd.readouterr().err
    assert "onnxruntime" not in err  # onnxruntime's own error log is silenced


@pytest.mark.parametrize("fn, args, node, text", [
    (reshape_from_data, (np.arange(6.0), 4), "Reshape", "y.reshape(n, 5)"),
    (gather_from_data, (np.arange(6.0), 9), "Gather", "x[i] + 1"),
])
def test_data_dependent_failures_name_the_line(fn, args, node, text):
    with pytest.raises((ValueError, IndexError), match="cannot reshape|out of bounds") as want:
        fn(*args)  # numpy fails too
    with pytest.raises((pyonnx.ExecutionError, IndexError),
                       match="cannot be reshaped|out of bounds") as info:
        pyonnx.compile(fn)(*args)
    error = info.value
    if isinstance(error, IndexError):
        # an integer index out of bounds: numpy's exception and message, the ExecutionError
        # naming the line as its cause
        assert str(error) == str(want.value)
        error = error.__cause__
    assert "onnxruntime failed to run the model" in str(error)
    first = str(error).splitlines()[0]
    assert f"test_runtime.py:{_line_of(fn, text)}:" in first and f"{node} node" in first


def test_error_of_a_model_whose_source_file_is_gone():
    x = helper.make_tensor_value_info("x", onnx.TensorProto.FLOAT, ["N"])
    y = helper.make_tensor_value_info("y", onnx.TensorProto.FLOAT, ["M"])
    out = helper.make_tensor_value_info("k", onnx.TensorProto.FLOAT, None)
    node = helper.make_node("Add", ["x", "y"], ["k"], name="k_L7_Add_0",
                            doc_string="/no/such/dir/k.py:7:12: return x + y")
    model = helper.make_model(helper.make_graph([node], "k", [x, y], [out]),
                              opset_imports=[helper.make_opsetid("", 21)], ir_version=10)
    sess = Session(model.SerializeToString(), (CPU,))
    with pytest.raises(pyonnx.ExecutionError, match="onnxruntime failed to run the model") as info:
        sess.run({"x": np.ones(2, np.float32), "y": np.ones(3, np.float32)})
    lines = str(info.value).splitlines()
    assert lines[0].startswith("/no/such/dir/k.py:7:12: error:") and "k_L7_Add_0" in lines[0]
    assert lines[1].strip() == "return x + y" and "^" not in lines[2]


def test_model_onnxruntime_cannot_load_is_explained():
    x = helper.make_tensor_value_info("x", onnx.TensorProto.FLOAT, ["N"])
    out = helper.make_tensor_value_info("y", onnx.TensorProto.FLOAT, None)
    node = helper.make_node("NoSuchOp", ["x"], ["y"], name="k_L3_NoSuchOp_0",
                            doc_string="/no/such/k.py:3:5: y = f(x)")
    model = helper.make_model(helper.make_graph([node], "k", [x], [out]),
                              opset_imports=[helper.make_opsetid("", 21)], ir_version=10)
    with pytest.raises(pyonnx.RuntimeFallbackError, match="NoSuchOp"):
        Session(model.SerializeToString(), (CPU,))


# ---------------------------------------------------------------- call path inputs
@pytest.mark.parametrize("make", [
    lambda x: x[:, ::2],                      # strided
    lambda x: np.asfortranarray(x),           # Fortran order
    lambda x: x[::-1, ::-1],                  # negative strides
    lambda x: x.T.copy().T,                   # Fortran view
    lambda x: x.astype(x.dtype.newbyteorder(">")),  # byte-swapped
    lambda x: np.broadcast_to(x[:1], x.shape),       # zero stride
])
def test_unusual_layouts_give_numpy_results(make):
    x = np.arange(24, dtype=np.float32).reshape(4, 6) - 7
    f = pyonnx.compile(affine)
    a = make(x)
    w = make(x + 1)
    check(f, a, w, 0.5)
    check(f, np.ascontiguousarray(a), np.ascontiguousarray(w), 0.5)
    assert f.conversions == 1  # one signature for every layout


def test_numpy_scalars_memmap_and_python_scalars(tmp_path):
    f = pyonnx.compile(affine)
    x = np.arange(5, dtype=np.float32)
    check(f, x, np.float32(3), 2.0)
    assert f.conversions == 1
    # a 0-d array is memory the function may write or alias, a numpy scalar is immutable:
    # one signature each (np.asarray(s); s += 1 changes the 0-d array only)
    check(f, x, np.array(3, np.float32), 2.0)
    assert f.conversions == 2
    check(f, x, np.float32(3), 2)      # int → a new signature (weak int64)
    assert f.conversions == 3
    m = np.memmap(tmp_path / "m.dat", dtype=np.float32, mode="w+", shape=(5,))
    m[:] = x
    check(f, m, np.float32(3), 2.0)
    assert f.conversions == 3
    check(f, np.float64(1.5), np.float32(3), 2.0)  # all 0-d: numpy returns a scalar


def test_scalar_and_tuple_outputs_and_keywords():
    f = pyonnx.compile(two_outputs)
    x = np.arange(3, dtype=np.int32)
    r = check(f, x, 4)
    a, b = f(x, s=4)
    assert type(b) is int and b == 8 and a.dtype == np.int32  # s * 2: a Python int, as numpy
    np.testing.assert_array_equal(a, two_outputs(x, 4)[0])
    assert r.conversions == 1
    with pytest.raises(TypeError, match="two_outputs.*'s'"):
        f(x)


def test_parameters_bound_like_python():
    f = pyonnx.compile(clashing_names)
    x, y = np.arange(3.0), np.full(3, 2.0)
    np.testing.assert_array_equal(f(x, y), clashing_names(x, y))
    np.testing.assert_array_equal(f(x, feeds=y, outs=3.0), clashing_names(x, y, outs=3.0))
    np.testing.assert_array_equal(f(run=x, feeds=y, e=0.5), clashing_names(x, y, e=0.5))
    assert f.conversions == 1
    with pytest.raises(TypeError, match="clashing_names"):
        f(x, y, 1.0, 2.0)  # outs is keyword-only, as in Python


def test_alternating_signatures():
    # The inline cache holds the last signature: every switch must still run the right model.
    f = pyonnx.compile(affine)
    cases = [(np.arange(4, dtype=np.float32), np.float32(2), 1.0),
             (np.arange(4.0), np.arange(4.0), 1.0),
             (np.arange(6.0).reshape(2, 3), np.arange(3.0), 1.0),
             (np.arange(4, dtype=np.float32), np.float32(2), 3)]
    for _ in range(3):
        for args in cases:
            got, want = f(*args), affine(*args)
            assert got.dtype == want.dtype and got.shape == want.shape
            np.testing.assert_array_equal(got, want)
    assert f.conversions == 4


def test_static_argument_change_rebuilds_the_key():
    # flag becomes static during the first conversion: keys made before must not serve
    # another flag value afterwards.
    f = pyonnx.compile(flag_kernel)
    x = np.arange(3.0)
    check(f, x, True)
    check(f, x, False)
    check(f, x, True)
    assert f.conversions == 2 and "flag" in f.static_argnames
    g = pyonnx.compile(flag_kernel)
    g.to_onnx(x, True)  # to_onnx finds the static argument first
    check(g, x, False)
    check(g, x, True)
    assert g.conversions == 2


def test_runtime_imports_neither_frontend_nor_passes():
    code = ("import sys, pyonnx.runtime.session, pyonnx.runtime.providers; "
            "print(sorted(m for m in sys.modules if m.startswith(('pyonnx.frontend', "
            "'pyonnx.passes', 'onnx_ir'))))")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                         check=True)
    assert out.stdout.strip() == "[]"


def test_sessions_come_from_the_shared_cache():
    f = pyonnx.compile(add)
    f(np.ones(2, np.int64), np.ones(2, np.int64))
    cache = _SESSIONS._cache
    assert any(s is f._last.session for s in cache._sessions.values())


@pytest.mark.parametrize("kind", ["array", "numpy scalar", "int", "float", "bool", "0-d array",
                                  "float32 scalar"])
def test_fast_path_taken_for_every_argument_kind(kind):
    """After the first call, calls with arguments of the same kinds never reach the dispatch
    (its key function is not called): the inline guard holds for them."""
    def g(x, s):
        return x * s

    make = {"array": lambda k: np.arange(4.0) + k, "numpy scalar": lambda k: np.float64(k),
            "int": lambda k: k, "float": lambda k: float(k), "bool": lambda k: bool(k % 2),
            "0-d array": lambda k: np.array(float(k)), "float32 scalar": lambda k: np.float32(k)}
    f = pyonnx.compile(g)
    x = np.arange(4.0)
    for k in (2, 3):  # the first call converts, the second installs the fast entry
        assert_same(f(x, make[kind](k)), g(x, make[kind](k)))
    calls = []
    key = f._key
    f.__dict__["_key"] = lambda args: calls.append(args) or key(args)
    for k in range(5, 9):
        assert_same(f(x, make[kind](k)), g(x, make[kind](k)))
    assert calls == []


@pytest.mark.parametrize("shape", [(2, 3), (6,), ()])
def test_fast_path_taken_for_tuple_arguments(shape):
    """A tuple argument (static: part of the signature) keeps the inline fast entry while the
    same tuple is passed; another tuple converts again (the dispatch), then has its own."""
    def g(x, shape):
        return np.reshape(x, shape) * 2

    f = pyonnx.compile(g)
    x = np.arange(6.0)[: int(np.prod(shape))]
    for _ in range(2):
        assert_same(f(x, shape), g(x, shape))
    calls = []
    key = f._key
    f.__dict__["_key"] = lambda args: calls.append(args) or key(args)
    for k in range(3):
        assert_same(f(x + k, shape), g(x + k, shape))
        assert_same(f(x + k, tuple(shape)), g(x + k, tuple(shape)))  # an equal new tuple
    assert calls == []
    other = (3, 2) if shape == (2, 3) else shape
    if other != shape:
        assert_same(f(x, other), g(x, other))
        assert calls  # another signature: the dispatch
        calls.clear()
        for _ in range(2):
            assert_same(f(x, other), g(x, other))
        assert calls == []  # then its own fast entry


def write_through_asarray(a0):
    t1 = np.asarray(a0)
    t1 += 1
    return a0, t1


@pytest.mark.parametrize("a0", [np.float64(1.5), np.array(1.5), np.float32(-2.0),
                                np.array(7, np.int32)])
def test_numpy_scalar_argument_is_not_the_callers_memory(a0):
    """np.asarray of a numpy scalar is a new array: writing it leaves the scalar (and the
    result ``a0``) unchanged; a 0-d array argument is the caller's memory and changes. Both
    were converted as the 0-d array (pyonnx returned 2.5 for np.float64(1.5))."""
    check(write_through_asarray, a0)
