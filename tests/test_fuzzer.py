"""Tests of the program fuzzer itself (tools/fuzz.py, tools/fuzzing/): determinism per seed,
validity of the generated programs, the comparer catching planted wrong answers, the minimizer
shrinking a planted failure, and the gradient oracle."""

from __future__ import annotations

import os
import sys

import numpy as np
import pytest

sys.path.insert(0, os.path.join(os.path.dirname(os.path.dirname(os.path.abspath(__file__))), "tools"))

import pyonnx  # noqa: E402
from fuzzing import runner  # noqa: E402
from fuzzing.generator import Generator  # noqa: E402
from fuzzing.grad_gen import generate as grad_generate  # noqa: E402
from fuzzing.grad_runner import oracle  # noqa: E402
from fuzzing.minimize import minimize  # noqa: E402
from fuzzing.program import Program, load, run_numpy  # noqa: E402


def test_same_seed_same_program():
    for seed in (3, 17):
        a, b = Generator(seed).program(), Generator(seed).program()
        assert a.source == b.source
        for x, y in zip(a.inputs[0] + a.inputs[1], b.inputs[0] + b.inputs[1]):
            np.testing.assert_array_equal(x, y)
    assert Generator(3).program().source != Generator(4).program().source
    assert grad_generate(5).source == grad_generate(5).source


def test_generated_programs_are_valid_numpy():
    bad = 0
    for seed in range(40):
        prog = Generator(seed).program()
        fn = load(prog.source)
        for k in range(2):
            try:
                run_numpy(fn, prog.args(k))
            except Exception:  # noqa: BLE001 - counted
                bad += 1
    assert bad <= 2, f"{bad} of 80 runs raised under numpy"


def test_generated_programs_cover_the_constructs():
    text = "\n".join(Generator(s).program().source for s in range(60))
    for construct in ("if ", "elif ", "else:", "for ", "while ", "break", "return", "] = ", "] += ",
                      "def h", "np.array(["):
        assert construct in text


SRC = '''import numpy as np

def f(x, y):
    t = x * 2
    y[0] = 5
    u = np.cos(t)
    v = t + 1
    return t, v
'''


def _prog():
    a = [np.arange(3.0), np.zeros(2, dtype=np.int64)]
    b = [np.arange(4.0), np.zeros(3, dtype=np.int64)]
    return Program(0, SRC, [a, b])


def _fake_compile(monkeypatch, how):
    """pyonnx.compile replaced by numpy plus a planted defect."""
    def compile_(fn, **kw):
        def call(*args):
            if how == "crash":
                raise RuntimeError("planted")
            if how == "refuse":
                raise pyonnx.ConversionError("planted refusal of 'x'")
            t, v = fn(*args)
            if how == "value":
                v = v + 1
            if how == "dtype":
                t = t.astype(np.float32)
            if how == "mutation":
                args[1][1] = 7
            if how == "structure":
                return [t, v]
            return t, v
        return call
    monkeypatch.setattr(pyonnx, "compile", compile_)


@pytest.mark.parametrize("how,cls", [("none", "pass"), ("value", "wrong-value"), ("dtype", "wrong-dtype"),
                                     ("mutation", "wrong-mutation"), ("crash", "crash"),
                                     ("refuse", "refused"), ("structure", "wrong-shape")])
def test_comparer_catches_planted_defects(monkeypatch, how, cls):
    _fake_compile(monkeypatch, how)
    assert runner.run(_prog()).cls == cls


def test_invalid_program_is_counted_apart():
    prog = Program(0, "import numpy as np\n\ndef f(x):\n    return x[10]\n", [[np.arange(3)], [np.arange(2)]])
    assert runner.run(prog).cls == "invalid"


def test_minimizer_shrinks_a_planted_failure(monkeypatch):
    def compile_(fn, **kw):
        import inspect
        src = inspect.getsource(fn)

        def call(*args):
            if "np.cos" in src:
                raise RuntimeError("planted")
            return fn(*args)
        return call
    monkeypatch.setattr(pyonnx, "compile", compile_)
    prog = _prog()
    out = runner.run(prog)
    assert out.cls == "crash"
    small, small_out = minimize(prog, out, runner.run)
    assert small_out.cls == "crash" and "np.cos" in small.source
    assert small.source.count("\n") < SRC.count("\n") - 2


def test_real_pyonnx_passes_a_simple_program():
    prog = Program(0, "import numpy as np\n\ndef f(x):\n    return x * 2 + 1\n",
                   [[np.arange(3.0)], [np.arange(5.0)]])
    assert runner.run(prog).cls == "pass"


def test_finite_difference_oracle():
    def f(x, w):
        return np.sum(np.sin(x) * w)
    x, w = np.array([0.1, 0.5]), np.array([0.3, -0.2])
    gx, gw = oracle(f, [x, w])
    np.testing.assert_allclose(gx, np.cos(x) * w, rtol=1e-6)
    np.testing.assert_allclose(gw, np.sin(x), rtol=1e-6)

    def kink(x, w):
        return np.sum(np.abs(x)) + np.sum(w)
    assert oracle(kink, [np.array([1e-7, 0.5]), w]) is None  # a kink at the point: resample


def test_finite_difference_oracle_is_accurate_on_steep_compositions():
    # grad seed 28001685: nine nested log2(x * x + 0.5); the coarse step's truncation error
    # (2e-5 relative) exceeded the comparison's 1e-5, and an exact gradient was reported wrong
    def nested(x, w):
        for _ in range(9):
            x = np.log2(x * x + 0.5)
        return np.sum(w) + np.sum(x)
    x, w = np.array([-0.986696353799521, 0.788031696237824, -0.29685638976663475]), np.ones(3)
    exact, xs = np.ones(3), x.copy()
    for _ in range(9):
        exact *= 2 * xs / ((xs * xs + 0.5) * np.log(2))
        xs = np.log2(xs * xs + 0.5)
    gx, _ = oracle(nested, [x, w])
    np.testing.assert_allclose(gx, exact, rtol=1e-6)


def test_compare_takes_the_inputs_float_precision():
    # seed 6000452: exp of a float32 0-d argument written into a float64 array; numpy's float32
    # exp is 1 ulp from onnxruntime's (correctly rounded) one: float32 tolerance, not float64
    from fuzzing.compare import compare, precision_floor

    want, got = np.array(12.182493209838867), np.array(12.182494163513184)
    args = [np.array(2.5, np.float32), np.array(-1.25)]
    assert precision_floor("", args) == "float32"
    assert compare(want, got, floor=precision_floor("", args)) is None
    assert compare(want, got) is not None
    assert compare(want, want + 0.05, floor="float32") is not None


def test_floor_follows_what_numpy_computed_in():
    """Fuzz seed 18015762: ``a1[-3, :] = np.tanh(a0)`` with a uint16 ``a0`` writes numpy's float32
    tanh into a float64 array; the oracle compares at float32's tolerance because numpy computed
    in float32 (traced), while a float64-only program keeps float64's."""
    from fuzzing.compare import compare, precision_floor
    src = "import numpy as np\n\ndef f(a0, a1):\n    a1[-3, :] = np.tanh(a0)\n    return (a1,)\n"
    fn = load(src, "f")
    args = [np.array(3, dtype=np.uint16), np.zeros((3, 2))]
    computed: set = set()
    want = run_numpy(fn, [a.copy() for a in args], computed)
    assert computed == {"float32"}
    assert fn.__globals__["np"] is np  # the tracing proxy is gone after the run
    floor = precision_floor(src, args, computed)
    assert floor == "float32"
    got = (want[0] + np.where(want[0] != 0, 6e-8, 0),)  # one float32 ulp off, as onnxruntime's tanh
    assert compare(want, got, floor=floor) is None
    assert compare(want, got, floor=precision_floor(src, [np.zeros(3), np.zeros((3, 2))])) is not None


def test_floor_for_linalg_programs():
    """Fuzz seed 687233: np.linalg.inv differs from LAPACK by ~4e-9 relative."""
    from fuzzing.compare import compare, precision_floor
    assert precision_floor("y = np.linalg.inv(a)", [np.eye(2)]) == "linalg"
    assert precision_floor("y = np.linalg.inv(a)", [np.eye(2, dtype=np.float32)]) == "float32"
    want = np.array([1.0, 2.0])
    assert compare(want, want * (1 + 4e-9), floor="linalg") is None
    assert compare(want, want * (1 + 1e-5), floor="linalg") is not None


def test_generator_makes_python_numbers_of_two_kinds():
    """fuzzing.idioms.s_mixed_kind: ``m = 1 if c else 0.5`` and its loop/if forms, used with an
    array (the class that was silently float64 on the int path)."""
    import re
    patterns = [r"m\d+ = (1|2|True|0\.25|False) if .* else ", r"\n +if v\d+ > 2:\n +m\d+ = "]
    # (the first seeds from 19200000 that make each form: a new row of the generator's table
    # moves them, so they are searched, a few hundred programs at most)
    for seed in range(19200000, 19200400):
        text = Generator(seed).program().source
        patterns = [p for p in patterns if not re.search(p, text)]
        if not patterns:
            break
    assert not patterns, patterns
