"""Output dimensions named from the input dimensions (issue 12: ``N*N`` rather than ``?``).

The oracle: every named output dimension, evaluated with the input sizes of a run, equals the
size numpy's result has on that run (sizes 0, 1 and larger); a dimension that is not the same
expression for every size (``a[1:]`` is ``max(a_0 - 1, 0)``) stays unnamed.
"""

from __future__ import annotations

import re

import numpy as np
import onnx
import pytest

import pyonnx


def grid(x):
    return np.stack(np.meshgrid(x, x), axis=-1).reshape(-1, 2)


def outer(a, b):
    return np.outer(a, b)


def joined(a, b):
    return np.concatenate([a, b])


def tiled(a):
    return np.tile(a, 3)


def shifted(a):
    return a[1:]


def added(a, b):
    return a + b


def rows(a):
    return np.ones((a.shape[0], 3))


CASES = [
    (grid, 1, {0: "x_0**2"}),
    (outer, 2, {0: "a_0", 1: "b_0"}),
    (joined, 2, {0: "a_0 + b_0"}),
    (tiled, 1, {0: "3*a_0"}),
    (shifted, 1, {}),   # max(a_0 - 1, 0): not a sum or product, left unnamed
    (added, 2, {}),     # a_0 or b_0 (either may be 1): unknown, never a guess
]


def _dims(model: onnx.ModelProto) -> list[list[str | int | None]]:
    return [[d.dim_param if d.HasField("dim_param") else d.dim_value if d.HasField("dim_value")
             else None for d in o.type.tensor_type.shape.dim] for o in model.graph.output]


def _evaluate(expr: str, sizes: dict[str, int]) -> int:
    """An output dimension's expression at the given input sizes (names and ``+ * **`` only)."""
    assert re.fullmatch(r"[\w.\s+*()]+", expr), expr
    return eval(expr, {"__builtins__": {}}, dict(sizes))  # noqa: S307 - checked characters


@pytest.mark.parametrize("fn, nargs, named", CASES, ids=[c[0].__name__ for c in CASES])
def test_named_output_dims_hold_for_every_size(fn, nargs, named):
    f = pyonnx.compile(fn)
    model = f.to_onnx(*[np.ones(3)] * nargs)
    onnx.checker.check_model(model, full_check=True)
    dims = _dims(model)[0]
    names = {i: d for i, d in enumerate(dims) if isinstance(d, str)}
    assert names == named
    inputs = [i.name for i in model.graph.input]
    for sizes in ((0, 0), (1, 4), (4, 1), (5, 5)):
        args = [np.arange(float(n)) for n in sizes[:nargs]]
        if fn is added and sizes[0] != sizes[1] and 1 not in sizes:
            continue
        expected = fn(*args)
        got = f(*args)
        np.testing.assert_array_equal(got, expected)
        env = {f"{name}_0": a.shape[0] for name, a in zip(inputs, args)}
        for axis, expr in names.items():
            assert _evaluate(expr, env) == expected.shape[axis], (expr, env)


def test_saved_model_keeps_names_and_runs_at_every_size(tmp_path):
    path = tmp_path / "grid.onnx"
    model = pyonnx.save(pyonnx.compile(grid), str(path), np.ones(3))
    assert _dims(model)[0] == ["x_0**2", 2]
    loaded = pyonnx.load(str(path))
    for n in (0, 1, 6):
        x = np.arange(float(n))
        np.testing.assert_array_equal(loaded(x), grid(x))


def test_show_prints_the_derived_names():
    text = str(pyonnx.compile(outer).show(np.ones(3), np.ones(2)))
    assert "-> outer: float64[a_0,b_0]" in text


def test_a_model_the_inference_cannot_read_is_left_unchanged():
    from pyonnx.passes.name_output_dims import name_output_dims

    x = onnx.helper.make_tensor_value_info("x", onnx.TensorProto.FLOAT, ["n"])
    y = onnx.helper.make_tensor_value_info("y", onnx.TensorProto.FLOAT, [None])
    node = onnx.helper.make_node("Mystery", ["x"], ["y"], domain="example.custom")
    model = onnx.helper.make_model(onnx.helper.make_graph([node], "g", [x], [y]),
                                   opset_imports=[onnx.helper.make_opsetid("", 21),
                                                  onnx.helper.make_opsetid("example.custom", 1)])
    before = model.SerializeToString()
    assert name_output_dims(model).SerializeToString() == before


def test_an_incomplete_symbolic_inference_writes_no_file(tmp_path, monkeypatch):
    # onnxruntime's SymbolicShapeInference.infer_shapes saves sym_shape_infer_temp.onnx into
    # the working directory when it cannot infer every shape (here: a broadcast of (n, 3) by
    # (3,)); the pass runs its steps without that save
    def affine(x, b):
        return x * 2.0 + b
    monkeypatch.chdir(tmp_path)
    model = pyonnx.compile(affine).to_onnx(np.ones((4, 3)), np.ones(3))
    onnx.checker.check_model(model, full_check=True)
    assert list(tmp_path.iterdir()) == []
