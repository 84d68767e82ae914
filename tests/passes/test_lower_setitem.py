"""LowerSetItemPass: ONNX-text fixtures with ``pyonnx.SetItem``; after the pass no pseudo-op or
``pyonnx`` import is left, names stay unique, the full checker passes, and onnxruntime's results
equal numpy doing the same write (every dtype, negative indices, duplicates, ``np.add.at``),
or fail where numpy raises (an index out of range). The loop rewrite: a Loop writing row ``i``
on iteration ``i`` gets a scan output instead of the state and computes what the in-place
lowering computes, for 0, 1 and many trips and a loop stopped early by its condition."""

from __future__ import annotations

import numpy as np
import onnx
import onnx_ir as ir
import onnxruntime as ort
import pytest
from onnxruntime.capi.onnxruntime_pybind11_state import InvalidArgument

from pyonnx.loc import SourceLoc
from pyonnx.passes import pipeline
from pyonnx.passes.lower_setitem import LowerSetItemPass
from pyonnx.passes.unique_names import UniqueNamesPass
from tests.passes.helpers import checked, ops

HEADER = '<ir_version: 10, opset_import: ["" : 21, "pyonnx" : 1]>\n'
DTYPES = ["bool", "int8", "int16", "int32", "int64", "uint8", "uint16", "uint32", "uint64",
          "float16", "float32", "float64"]
RNG = np.random.default_rng(0)


def onnx_type(dtype: str) -> str:
    return {"float32": "float", "float64": "double"}.get(dtype, dtype)


def lower(text: str, **options) -> tuple[ir.Model, onnx.ModelProto]:
    """Parses (pyonnx header added), lowers, checks: nothing of pyonnx left, unique names,
    the full checker; returns the model and its proto."""
    m = ir.from_onnx_text(HEADER + text.strip())
    for k, node in enumerate(ir.traversal.RecursiveGraphIterator(m.graph)):
        node.name = node.name or f"node{k}"  # as the frontend names them all
    assert LowerSetItemPass(**options)(m).modified
    assert not [n for n in ir.traversal.RecursiveGraphIterator(m.graph) if n.domain == "pyonnx"]
    assert "pyonnx" not in m.opset_imports
    proto = checked(m)
    assert not UniqueNamesPass()(m).modified  # no renaming needed
    return m, proto


def session(proto: onnx.ModelProto, threads: int = 1) -> ort.InferenceSession:
    so = ort.SessionOptions()
    so.intra_op_num_threads = threads
    so.log_severity_level = 4
    return ort.InferenceSession(proto.SerializeToString(), so,
                                providers=["CPUExecutionProvider"])


def values(dtype: str, shape, lo: int = -100, hi: int = 100) -> np.ndarray:
    dt = np.dtype(dtype)
    if dt == np.bool_:
        return RNG.random(shape) < 0.5
    if dt.kind in "iu":
        info = np.iinfo(dt)
        return RNG.integers(max(lo, info.min), min(hi, info.max), size=shape, endpoint=True,
                            dtype=dt)
    return (RNG.standard_normal(shape) * 10).astype(dt)


def same(got: np.ndarray, want: np.ndarray) -> None:
    assert got.dtype == want.dtype and got.shape == want.shape
    np.testing.assert_array_equal(got, want)


# ------------------------------------------------------------------------- row form
ROW = """
g ({t}[N, 3] x, int64 i, {t}[3] v) => ({t}[N, 3] y) {{
  y = pyonnx.SetItem <kind: string = "row"> (x, i, v)
}}"""


@pytest.mark.parametrize("dtype", DTYPES)
def test_row_every_dtype_and_index_sign(dtype):
    m, proto = lower(ROW.format(t=onnx_type(dtype)))
    assert ops(m) == ["Reshape", "Unsqueeze", "ScatterND"]
    sess = session(proto)
    x = values(dtype, (4, 3))
    for i in (-4, -3, -1, 0, 2, 3):
        v = values(dtype, 3)
        want = x.copy()
        want[i] = v
        same(sess.run(None, {"x": x, "i": np.array(i), "v": v})[0], want)
    for i in (4, 5, -5, -100):  # numpy: IndexError; onnxruntime: ScatterND rejects the index
        with pytest.raises(InvalidArgument, match=r"invalid indice found"):
            sess.run(None, {"x": x, "i": np.array(i), "v": values(dtype, 3)})


def test_row_of_a_vector_and_of_a_3d_array():
    m, proto = lower("""
g (int32[N] x, int64 i, int32 v, double[2, M, 2] z, int64 j, double[M, 2] w)
    => (int32[N] y, double[2, M, 2] zz) {
  y = pyonnx.SetItem <kind: string = "row"> (x, i, v)
  zz = pyonnx.SetItem <kind: string = "row"> (z, j, w)
}""")
    sess = session(proto)
    x, z = values("int32", 5), values("float64", (2, 3, 2))
    for i, j in ((-5, -2), (4, 1), (0, 0)):
        v, w = np.int32(7), values("float64", (3, 2))
        got = sess.run(None, {"x": x, "i": np.array(i), "v": np.array(v), "z": z,
                              "j": np.array(j), "w": w})
        want_x, want_z = x.copy(), z.copy()
        want_x[i], want_z[j] = v, w
        same(got[0], want_x)
        same(got[1], want_z)


def test_point_of_a_matrix_and_of_a_3d_array():
    m, proto = lower("""
g (float[N, M] x, int64[2] ij, float v, double[2, M, 3] z, int64[2] kl, double[3] w)
    => (float[N, M] y, double[2, M, 3] zz) {
  y = pyonnx.SetItem <kind: string = "point"> (x, ij, v)
  zz = pyonnx.SetItem <kind: string = "point"> (z, kl, w)
}""")
    assert ops(m).count("ScatterND") == 2
    sess = session(proto)
    x, z = values("float32", (3, 4)), values("float64", (2, 4, 3))
    for (i, j), (k, l) in (((-1, 2), (1, -4)), ((0, 0), (-2, 3)), ((2, -4), (0, 1))):
        v, w = np.float32(9), values("float64", 3)
        got = sess.run(None, {"x": x, "ij": np.array([i, j]), "v": np.array(v), "z": z,
                              "kl": np.array([k, l]), "w": w})
        want_x, want_z = x.copy(), z.copy()
        want_x[i, j], want_z[k, l] = v, w
        same(got[0], want_x)
        same(got[1], want_z)
    with pytest.raises(InvalidArgument, match=r"invalid indice found"):
        sess.run(None, {"x": x, "ij": np.array([3, 0]), "v": np.array(np.float32(1)), "z": z,
                        "kl": np.array([0, 0]), "w": values("float64", 3)})


# ------------------------------------------------------------------------ flat form
def flat_model(dtype: str, unique: int, reduction: str | None = None, pos_shape="K, 2",
               x_shape="3, 4") -> str:
    t = onnx_type(dtype)
    red = f', reduction: string = "{reduction}"' if reduction else ""
    xt = f"{t}[{x_shape}]" if x_shape else t  # (ONNX text: "float" is 0-d)
    pt, vt = (f"int64[{pos_shape}]", f"{t}[{pos_shape}]") if pos_shape else ("int64", t)
    return f"""
g ({xt} x, {pt} p, {vt} v) => ({xt} y) {{
  y = pyonnx.SetItem <kind: string = "flat", unique: int = {unique}{red}> (x, p, v)
}}"""


def flat_write(x, p, v):
    want = x.copy()
    want.reshape(-1)[p] = v
    return want


@pytest.mark.parametrize("dtype", DTYPES)
def test_flat_unique_and_last_of_duplicates_wins(dtype):
    sess_unique = session(lower(flat_model(dtype, 1))[1])
    sess_dups = session(lower(flat_model(dtype, 0))[1])
    x = values(dtype, (3, 4))
    for k in (0, 1, 3):
        p = RNG.permutation(12)[:2 * k].reshape(k, 2).astype(np.int64)
        v = values(dtype, (k, 2))
        same(sess_unique.run(None, {"x": x, "p": p, "v": v})[0], flat_write(x, p, v))
        same(sess_dups.run(None, {"x": x, "p": p, "v": v})[0], flat_write(x, p, v))
    for k in (1, 4, 40):  # positions repeat: numpy keeps the last value written
        p = RNG.integers(0, 12, size=(k, 2))
        v = values(dtype, (k, 2))
        same(sess_dups.run(None, {"x": x, "p": p, "v": v})[0], flat_write(x, p, v))


@pytest.mark.parametrize("dtype", DTYPES)
def test_flat_reduction_add_is_np_add_at(dtype):
    # Integers: values near the dtype's limits, so sums wrap as numpy's do.
    sess = {u: session(lower(flat_model(dtype, u, "add"))[1]) for u in (0, 1)}
    x = values(dtype, (3, 4), lo=-(1 << 62), hi=1 << 62)
    for unique, k in ((1, 3), (0, 0), (0, 3), (0, 40)):
        p = (RNG.permutation(12)[:2 * k] if unique else RNG.integers(0, 12, 2 * k))
        p = p.reshape(k, 2).astype(np.int64)
        v = values(dtype, (k, 2), lo=-(1 << 62), hi=1 << 62)
        want = x.copy()
        np.add.at(want.reshape(-1), p, v)
        same(sess[unique].run(None, {"x": x, "p": p, "v": v})[0], want)


def test_float16_accumulation_rounds_after_every_add_as_numpy():
    # 2048 + 1 + 1 + ... in float16: every single add rounds back to 2048 in numpy (half-way,
    # ties to even); a float32 sum rounded once would give 2048 + 9 = 2057 -> 2056.
    m, proto = lower(flat_model("float16", 0, "add", pos_shape="K", x_shape="4"))
    assert "Loop" in ops(m)
    sess = session(proto)
    x = np.array([2048, 0, 1, -3], np.float16)
    cases = [(np.array([0] * 9, np.int64), np.ones(9, np.float16)),
             (np.array([0, 1, 0, 2, 0, 1]), np.array([1, 0.1, 1, 3e-4, 7, 1e4], np.float16)),
             (RNG.integers(0, 4, 300), values("float16", 300))]
    for p, v in cases:
        want = x.copy()
        np.add.at(want, p, v)
        same(sess.run(None, {"x": x, "p": p, "v": v})[0], want)


@pytest.mark.parametrize("dtype", ["bool", "int8", "uint64", "float16", "float64"])
def test_flat_reduction_mul_is_np_multiply_at(dtype):
    sess = session(lower(flat_model(dtype, 0, "mul"))[1])
    x = values(dtype, (3, 4), lo=-5, hi=5)
    for k in (0, 2, 30):
        p = RNG.integers(0, 12, (k, 2))
        v = values(dtype, (k, 2), lo=-3, hi=3)
        want = x.copy()
        np.multiply.at(want.reshape(-1), p, v)
        same(sess.run(None, {"x": x, "p": p, "v": v})[0], want)


def test_reduction_dtype_traced_through_untyped_values():
    # The frontend types graph and subgraph inputs/outputs, not each value: float16 (which
    # needs the float32 detour) is found through Cast/Abs/Loop producers.
    m, proto = lower("""
g (float[K] a, int64[K] p, float[K] b, int64 n) => (float16[K] y) <bool t = {1}> {
  h = Cast <to: int = 10> (a)
  x = Abs (h)
  hb = Cast <to: int = 10> (b)
  v, unused = Loop (n, t, hb) <body = l (int64 i, bool c, float16[K] vi)
                                      => (bool co, float16[K] vo, float16[K] s) {
    co = Identity (c)
    vo = Neg (vi)
    s = Identity (vi)
  }>
  r = pyonnx.SetItem <kind: string = "flat", unique: int = 0, reduction: string = "add"> (x, p, v)
  y = Identity (r)
}""")
    assert ops(m).count("Loop") == 2
    a, b = values("float32", 6), values("float32", 6)
    p = np.array([0, 0, 3, 0, 3, 1])
    want = np.abs(np.float16(a))
    np.add.at(want, p, -np.float16(b))
    same(session(proto).run(None, {"a": a, "p": p, "b": b, "n": np.array(3)})[0], want)
    untraceable = ir.from_onnx_text(HEADER.replace('"pyonnx" : 1', '"pyonnx" : 1, "c" : 1') + """
g (float[K] a, int64[K] p) => (float16[K] y) {
  x = c.Op (a)
  r = pyonnx.SetItem <kind: string = "flat", unique: int = 0, reduction: string = "add"> (x, p, x)
  y = Identity (r)
}""")
    with pytest.raises(ir.passes.PreconditionError, match="dtype"):
        LowerSetItemPass()(untraceable)


def test_flat_0d_array_and_0d_position():
    sess = session(lower(flat_model("float32", 0, pos_shape="", x_shape=""))[1])
    x, v = np.array(1.5, np.float32), np.array(-2, np.float32)
    same(sess.run(None, {"x": x, "p": np.array(0), "v": v})[0], flat_write(x, 0, v))


def test_duplicate_accumulation_is_exact_on_many_threads():
    # onnxruntime's ScatterND splits updates across threads (duplicates then race); the pass
    # uses ScatterElements, which applies them in order.
    sess = session(lower(flat_model("float32", 0, "add", pos_shape="K", x_shape="7"))[1], 4)
    x = np.zeros(7, np.float32)
    p = RNG.integers(0, 7, 1_000_000)  # (ScatterND lost updates in 2 of 3 runs at this size)
    v = RNG.standard_normal(1_000_000).astype(np.float32)
    want = x.copy()
    np.add.at(want, p, v)
    for _ in range(3):
        same(sess.run(None, {"x": x, "p": p, "v": v})[0], want)


# ----------------------------------------------------------------------- loop rewrite
# x[i] = f(i) for i < m while i + 1 < stop (initially: go): a write of row i on iteration i,
# with an unrelated state (acc) and an existing scan output (s) around it.
LOOP = """
g (int64 m, bool go, int64 stop, double[N, 2] x) => (double[N, 2] y, double acc, double[K] s)
    <double zero = {0}, int64[1] two = {2}, int64 one = {1}> {
  y, acc, s = Loop (m, go, x, zero) <body = b (int64 i, bool c, double[N, 2] x_in, double a)
      => (bool c_out, double[N, 2] x_out, double a_out, double si) {
    next = Add (i, one)
    c_out = Less (next, stop)
    fi = Cast <to: int = 11> (i)
    sq = Mul (fi, fi)
    row = Expand (sq, two)
    x_out = pyonnx.SetItem <kind: string = "row"> (x_in, i, row)
    a_out = Add (a, fi)
    si = Neg (fi)
  }>
}"""


def loop_body(m: ir.Model) -> ir.Graph:
    loop = next(n for n in m.graph if n.op_type == "Loop")
    return loop.attributes["body"].as_graph()


def body_ops(m: ir.Model) -> list[str]:
    """Op types in the (first main-graph) Loop's body and its subgraphs."""
    return [n.op_type for n in ir.traversal.RecursiveGraphIterator(loop_body(m))]


def test_loop_row_write_becomes_a_scan_output():
    m, proto = lower(LOOP)
    loop = next(n for n in m.graph if n.op_type == "Loop")
    assert len(loop.inputs) == 3 and len(loop.outputs) == 3  # (m, go, acc) -> acc, s, rows
    body = loop_body(m)
    assert len(body.inputs) == 3 and len(body.outputs) == 4  # cond, acc, s, row
    assert body.outputs[-1].name == "row"
    assert "ScatterND" not in body_ops(m)
    m_before, before = lower(LOOP, scan_outputs=False)
    assert "ScatterND" in body_ops(m_before)
    rewritten, in_place = session(proto), session(before)
    x = values("float64", (5, 2))
    for m_, go, stop in ((0, True, 9), (1, True, 9), (5, True, 9), (3, True, 9),
                         (5, False, 9), (5, True, 1), (5, True, 3), (5, True, 0)):
        feeds = {"m": np.array(m_), "go": np.array(go), "stop": np.array(stop), "x": x}
        got, want = rewritten.run(None, feeds), in_place.run(None, feeds)
        trips = 0 if not go else min(m_, max(stop, 1))
        expected = x.copy()
        expected[:trips] = np.arange(trips, dtype=np.float64)[:, None] ** 2
        same(want[0], expected)
        for g, w in zip(got, want):
            same(g, w)
    for sess in (rewritten, in_place):  # row 5 of a 5-row x: both fail
        with pytest.raises(InvalidArgument, match="invalid indice found"):
            sess.run(None, {"m": np.array(6), "go": np.array(True), "stop": np.array(9), "x": x})


def test_loop_rewrite_with_empty_rows_and_an_outer_value_written():
    # The written value is a graph input (no producer in the body: an Identity is added);
    # x has 0 columns, and the loop may run 0 times.
    m, proto = lower("""
g (int64 m, float[N, C] x, float[C] v) => (float[N, C] y) <bool t = {1}> {
  y = Loop (m, t, x) <body = b (int64 i, bool c, float[N, C] x_in)
                           => (bool c_out, float[N, C] x_out) {
    c_out = Identity (c)
    x_out = pyonnx.SetItem <kind: string = "row"> (x_in, i, v)
  }>
}""")
    assert [n.op_type for n in loop_body(m)] == ["Identity", "Identity"]
    sess = session(proto)
    for rows, cols, m_ in ((4, 3, 0), (4, 3, 1), (4, 3, 4), (4, 0, 2), (0, 2, 0)):
        x, v = values("float32", (rows, cols)), values("float32", cols)
        want = x.copy()
        want[:m_] = v
        same(sess.run(None, {"m": np.array(m_), "x": x, "v": v})[0], want)


# for i in range(m): (if w[i] > t: x[i] = w[i]); (if not w[i] >= lo: break), the write in the
# then or the else branch of an If (the frontend lowers a break that way too).
COND_LOOP = """
g (int64 m, double[N, 2] x, double[M] w, double t, double lo) => (double[N, 2] y)
    <bool go = {1}, int64[1] two = {2}> {
  y = Loop (m, go, x) <body = b (int64 i, bool c, double[N, 2] x_in)
                           => (bool c_out, double[N, 2] x_out) {
    wi = Gather <axis: int = 0> (w, i)
    big = Greater (wi, t)
    test = TEST
    c_out = GreaterOrEqual (wi, lo)
    x_out = If (test) <then_branch = th () => (double[N, 2] r1) { WRITE1 },
                       else_branch = el () => (double[N, 2] r2) { WRITE2 }>
  }>
}"""
WRITE = """row = Expand (wi, two)
               r{n} = pyonnx.SetItem <kind: string = "row"> (x_in, i, row)"""


@pytest.mark.parametrize("branch", ["then", "else"])
def test_loop_conditional_row_write_becomes_scan_outputs(branch):
    text = COND_LOOP.replace("TEST", "Identity (big)" if branch == "then" else "Not (big)")
    writes, keeps = ("1", "2") if branch == "then" else ("2", "1")
    text = text.replace(f"WRITE{writes}", WRITE.format(n=writes)).replace(
        f"WRITE{keeps}", f"r{keeps} = Identity (x_in)")
    m, proto = lower(text)
    loop = next(n for n in m.graph if n.op_type == "Loop")
    assert len(loop.inputs) == 2 and len(loop.outputs) == 2  # rows, written
    assert "ScatterND" not in body_ops(m) and "If" in body_ops(m)
    m_before, before = lower(text, scan_outputs=False)
    assert "ScatterND" in body_ops(m_before)
    rewritten, in_place = session(proto), session(before)
    x, w = values("float64", (5, 2)), values("float64", 7)
    for m_, t, lo in ((0, 0, -99), (1, -99, -99), (1, 99, -99), (5, 0, -99), (4, 0, -99),
                      (5, 0, 0), (5, 0, 99), (5, 99, 99)):
        feeds = {"m": np.array(m_), "x": x, "w": w, "t": np.array(float(t)),
                 "lo": np.array(float(lo))}
        want = x.copy()
        for i in range(m_):
            if w[i] > t:
                want[i] = w[i]
            if not w[i] >= lo:
                break
        same(rewritten.run(None, feeds)[0], want)
        same(in_place.run(None, feeds)[0], want)
    feeds = {"m": np.array(7), "x": x, "w": np.ones(7), "t": np.array(0.0),
             "lo": np.array(-1.0)}
    for sess in (rewritten, in_place):  # row 5 of 5 written: both fail
        with pytest.raises(InvalidArgument, match="invalid indice found"):
            sess.run(None, feeds)
    feeds["t"] = np.array(2.0)  # never written: x unchanged, 7 trips
    same(rewritten.run(None, feeds)[0], x)


def test_loop_in_a_loop_body_is_rewritten():
    # for j in range(k): z = zeros(n); for i in range(n): z[i] = i * j;  total += z
    m, proto = lower("""
g (int64 k, int64 n) => (double[N] total) <bool t = {1}, double zero = {0}> {
  shape = Reshape (n, one)
  start = Expand (zero, shape)
  total = Loop (k, t, start) <body = outer (int64 j, bool c, double[N] tot)
                                 => (bool c2, double[N] tot2) {
    c2 = Identity (c)
    z0 = Expand (zero, shape)
    fj = Cast <to: int = 11> (j)
    z = Loop (n, t, z0) <body = inner (int64 i, bool ci, double[N] z_in)
                             => (bool co, double[N] z_out) {
      co = Identity (ci)
      fi = Cast <to: int = 11> (i)
      w = Mul (fi, fj)
      z_out = pyonnx.SetItem <kind: string = "row"> (z_in, i, w)
    }>
    tot2 = Add (tot, z)
  }>
}""".replace("<bool t = {1}, double zero = {0}>",
             "<bool t = {1}, double zero = {0}, int64[1] one = {1}>"))
    inner = next(n for n in loop_body(m) if n.op_type == "Loop")
    assert len(inner.inputs) == 2  # the state went: a scan output instead
    sess = session(proto)
    for k, n in ((0, 3), (1, 3), (4, 5), (3, 0)):
        want = np.zeros(n)
        for j in range(k):
            want += np.arange(n, dtype=np.float64) * j
        same(sess.run(None, {"k": np.array(k), "n": np.array(n)})[0], want)


NOT_REWRITTEN = {
    # x[i - 1] = i: not the iteration number plus a constant >= 0 (x[-1] first).
    "other_index": """
g (int64 m, double[N] x) => (double[N] y) <bool t = {1}, int64 one = {1}> {
  y = Loop (m, t, x) <body = b (int64 i, bool c, double[N] x_in) => (bool c_out, double[N] x_out) {
    c_out = Identity (c)
    j = Sub (i, one)
    val = Cast <to: int = 11> (i)
    x_out = pyonnx.SetItem <kind: string = "row"> (x_in, j, val)
  }>
}""",
    # both branches of the If write x.
    "both_branches_write": """
g (int64 m, double[N] x) => (double[N] y) <bool t = {1}, int64 zero = {0}> {
  y = Loop (m, t, x) <body = b (int64 i, bool c, double[N] x_in) => (bool c_out, double[N] x_out) {
    c_out = Identity (c)
    val = Cast <to: int = 11> (i)
    odd = Greater (zero, zero)
    x_out = If (odd) <
      then_branch = th () => (double[N] r1) {
        r1 = pyonnx.SetItem <kind: string = "row"> (x_in, i, val) },
      else_branch = el () => (double[N] r2) {
        r2 = pyonnx.SetItem <kind: string = "row"> (x_in, i, val) }>
  }>
}""",
    # the updated x is also used in the body (its sum is a scan output).
    "result_used": """
g (int64 m, double[N] x) => (double[N] y, double[K] s) <bool t = {1}> {
  y, s = Loop (m, t, x) <body = b (int64 i, bool c, double[N] x_in)
                           => (bool c_out, double[N] x_out, double total) {
    c_out = Identity (c)
    val = Cast <to: int = 11> (i)
    x_out = pyonnx.SetItem <kind: string = "row"> (x_in, i, val)
    total = ReduceSum <keepdims: int = 0> (x_out)
  }>
}""",
}


@pytest.mark.parametrize("name", list(NOT_REWRITTEN))
def test_other_loops_keep_the_write_in_the_body(name):
    m, proto = lower(NOT_REWRITTEN[name])
    body = loop_body(m)
    assert "ScatterND" in body_ops(m)
    assert len(body.inputs) == 3
    sess = session(proto)
    x = values("float64", 6)
    for m_ in (0, 1, 4):
        want, sums = x.copy(), []
        for i in range(m_):
            if name == "other_index":
                want[i - 1] = i
            elif name == "both_branches_write":
                want[i] = i
            else:
                want[i] = i
                sums.append(want.sum())
        got = sess.run(None, {"m": np.array(m_), "x": x})
        same(got[0], want)
        if name == "result_used":
            np.testing.assert_allclose(got[1], np.array(sums, np.float64).reshape(-1))


# --------------------------------------------------------------------- bookkeeping
def test_replacements_keep_name_prefix_doc_and_location():
    m = ir.from_onnx_text(HEADER + ROW.format(t="float").strip())
    node = m.graph[0]
    node.name = "f_L12_SetItem_3"
    node.doc_string = "f.py:12:4: x[i] = v"
    loc = SourceLoc("f.py", 12, 4, "f")
    node.meta["pyonnx.loc"] = loc
    LowerSetItemPass()(m)
    assert [n.name for n in m.graph] == ["f_L12_SetItem_3_Reshape", "f_L12_SetItem_3_Unsqueeze",
                                         "f_L12_SetItem_3_ScatterND"]
    assert all(n.doc_string == node.doc_string and n.meta["pyonnx.loc"] is loc for n in m.graph)
    assert m.graph.outputs[0].name == "y"


def test_models_without_the_domain_are_untouched_and_other_pseudo_ops_keep_it():
    plain = ir.from_onnx_text('<ir_version: 10, opset_import: ["" : 21]>\n'
                              'g (float[2] x) => (float[2] y) { y = Neg (x) }')
    assert not LowerSetItemPass()(plain).modified
    m = ir.from_onnx_text(HEADER + """
g (float[N, 3] x, int64 i, float[3] v) => (float[N, 3] y, float[N, 3] z) {
  y = pyonnx.SetItem <kind: string = "row"> (x, i, v)
  z = pyonnx.Other (y)
}""")
    assert LowerSetItemPass()(m).modified
    assert "pyonnx" in m.opset_imports
    assert [n.op_type for n in m.graph] == ["Reshape", "Unsqueeze", "ScatterND", "Other"]


def test_malformed_setitem_is_a_precondition_error():
    for attrs in ('kind: string = "diagonal"', 'kind: string = "flat", reduction: string = "max"'):
        m = ir.from_onnx_text(HEADER + f"""
g (float[N] x, int64 i, float v) => (float[N] y) {{
  y = pyonnx.SetItem <{attrs}> (x, i, v)
}}""")
        with pytest.raises(ir.passes.PreconditionError, match="SetItem"):
            LowerSetItemPass()(m)


def test_through_the_pipeline_and_its_serializer():
    # The pipeline lowers first; the fast serializer (checked against onnx-ir's by
    # PYONNX_VERIFY_SERIALIZER in the tests) copes with the tensor and graph attributes.
    for text in (LOOP, flat_model("float16", 0, "add")):
        m = ir.from_onnx_text(HEADER + text.strip())
        data = pipeline.to_bytes(pipeline.optimize(m))
        proto = onnx.load_from_string(data)
        assert [o.domain for o in proto.opset_import] == [""]
        onnx.checker.check_model(proto, full_check=True)
    sess = session(proto)
    x = values("float16", (3, 4))
    p, v = RNG.integers(0, 12, (20, 2)), values("float16", (20, 2))
    want = x.copy()
    np.add.at(want.reshape(-1), p, v)
    same(sess.run(None, {"x": x, "p": p, "v": v})[0], want)


OFFSET_WRITE = """
g (int64 m, double[N] x) => (double[N] y) <bool t = {1}, int64 two = {2}> {
  y = Loop (m, t, x) <body = b (int64 i, bool c, double[N] x_in) => (bool c_out, double[N] x_out) {
    c_out = Identity (c)
    j = Add (i, two)
    val = Cast <to: int = 11> (i)
    x_out = pyonnx.SetItem <kind: string = "row"> (x_in, j, val)
  }>
}"""


def test_row_write_at_iteration_plus_constant_becomes_a_scan_output():
    # x[i + 2] = i (for i in range(2, ...) as the frontend writes it): rows 2 .. 2 + trips.
    m, proto = lower(OFFSET_WRITE)
    assert "ScatterND" not in body_ops(m)
    sess = session(proto)
    x = values("float64", 6)
    for m_ in (0, 1, 4):
        want = x.copy()
        for i in range(m_):
            want[i + 2] = i
        same(sess.run(None, {"m": np.array(m_), "x": x})[0], want)
    with pytest.raises(InvalidArgument,
                       match=r"invalid indice found"):  # row 6 of 6: out of range, as in the loop
        sess.run(None, {"m": np.array(5), "x": x})


READS_THE_PREVIOUS_ROW = """
g (int64 m, double[N] x) => (double[N] y) <bool t = {1}, int64 one = {1}, double uno = {1}> {
  y = Loop (m, t, x) <body = b (int64 i, bool c, double[N] x_in) => (bool c_out, double[N] x_out) {
    c_out = Identity (c)
    prev = Sub (i, one)
    p = Gather <axis: int = 0> (x_in, prev)
    val = Add (p, uno)
    x_out = pyonnx.SetItem <kind: string = "row"> (x_in, i, val)
  }>
}"""


def test_reading_the_previous_row_carries_it():
    # x[i] = x[i - 1] + 1 (x[-1] on the first iteration): the row written last is carried as
    # loop state (carry_previous_row), then the rows leave as a scan output.
    m, proto = lower(READS_THE_PREVIOUS_ROW)
    assert "ScatterND" not in body_ops(m)
    sess = session(proto)
    x = values("float64", 6)
    for m_ in (0, 1, 4, 6):
        want = x.copy()
        for i in range(m_):
            want[i] = want[i - 1] + 1
        same(sess.run(None, {"m": np.array(m_), "x": x})[0], want)
