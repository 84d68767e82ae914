"""pyonnx.grad / value_and_grad / vjp / jacobian and the gradient pass (JAX check_grads style).

Every VJP rule is checked against central finite differences in float64 on random inputs
(broadcasting included), end to end through the frontend (tests/grad_kernels.py) or, for ops
the frontend does not emit, on ONNX-text fixtures run by onnxruntime. Every gradient model
passes ``onnx.checker.check_model(full_check=True)``.
"""

from __future__ import annotations

import numpy as np
import onnx
import onnx_ir as ir
import onnxruntime as ort
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import pyonnx
from pyonnx.passes.gradient.entry import differentiate
from pyonnx.passes.pipeline import optimize
from pyonnx.passes.gradient.registry import COMPOSITE_RULES, RULES
from tests import grad_kernels as K
from tests.oracle import loop_nodes

RNG = np.random.default_rng(1234)


@pytest.fixture(autouse=True)
def _seeded(request):
    """Each test draws the same inputs however the suite is selected or ordered."""
    global RNG
    RNG = np.random.default_rng(list(request.node.nodeid.encode()))


# ---------------------------------------------------------------- helpers
def _float64(a):
    if isinstance(a, np.ndarray) and a.dtype.kind == "f":
        return a.astype(np.float64)
    return a


def numeric_grad(fn, args, argnum, eps=1e-6):
    """Central differences of ``fn`` (run by numpy, in float64) in argument ``argnum``."""
    args = [_float64(a) for a in args]
    x = np.array(args[argnum], dtype=np.float64)
    g = np.zeros_like(x)
    for idx in np.ndindex(x.shape):
        hi, lo = x.copy(), x.copy()
        hi[idx] += eps
        lo[idx] -= eps
        a_hi, a_lo = list(args), list(args)
        a_hi[argnum] = hi if x.ndim else float(hi)
        a_lo[argnum] = lo if x.ndim else float(lo)
        g[idx] = (fn(*a_hi) - fn(*a_lo)) / (2 * eps)
    return g


def checked_model(compiled):
    """The last converted model of ``compiled``, after the full ONNX checker."""
    model = onnx.load_from_string(compiled._last.model)
    onnx.checker.check_model(model, full_check=True)
    return model


def check_grads(fn, *args, argnums=0, rtol=1e-6, atol=1e-7):
    """pyonnx.grad and value_and_grad of ``fn`` against finite differences and numpy."""
    nums = (argnums,) if isinstance(argnums, int) else argnums
    g = pyonnx.grad(fn, argnums=argnums)
    got = g(*args)
    checked_model(g)
    got = (got,) if isinstance(argnums, int) else got
    assert len(got) == len(nums)
    for k, value in zip(nums, got):
        want = numeric_grad(fn, args, k)
        arg = args[k]
        if isinstance(arg, np.ndarray):
            # 0-d results are numpy scalars, as compiled functions return them.
            assert isinstance(value, np.ndarray if arg.ndim else np.generic)
            assert np.shape(value) == arg.shape and value.dtype == arg.dtype
        else:  # Python float (weak 0-d): a numpy float64 scalar
            assert isinstance(value, np.float64)
        np.testing.assert_allclose(np.asarray(value, np.float64), want, rtol=rtol, atol=atol)
    vg = pyonnx.value_and_grad(fn, argnums=argnums)
    value, grads = vg(*args)
    np.testing.assert_allclose(value, fn(*args), rtol=1e-12 if rtol < 1e-5 else rtol)
    grads = (grads,) if isinstance(argnums, int) else grads
    for a, b in zip(grads, got):
        np.testing.assert_allclose(a, b, rtol=1e-12, atol=0)
    return got


def r(*shape, lo=-1.0, hi=1.0, dtype=np.float64):
    return RNG.uniform(lo, hi, size=shape).astype(dtype)


# ---------------------------------------------------------------- rules through the frontend
BINARY_SHAPES = [((3, 4), (3, 4)), ((3, 1), (4,)), ((4,), (3, 1)), ((2, 1, 4), (3, 1)),
                 ((), (3,)), ((3,), ())]


BINARY = [K.add, K.sub, K.mul, K.div, K.maximum, K.minimum, K.hypot, K.arctan2, K.logaddexp,
          K.logaddexp2, K.where]


@pytest.mark.parametrize("fn", BINARY, ids=lambda f: f.__name__)
@pytest.mark.parametrize("shapes", BINARY_SHAPES, ids=str)
def test_binary_broadcasting(fn, shapes):
    lo = 0.5 if fn is K.div else -1.0
    x, y = r(*shapes[0]), r(*shapes[1], lo=lo, hi=1.5) if fn is K.div else r(*shapes[1])
    check_grads(fn, x, y, argnums=(0, 1))


UNARY = {
    K.neg: {}, K.square: {}, K.exp: {}, K.sin: {}, K.cos: {}, K.tanh: {}, K.arctan: {},
    K.sinh: {}, K.cosh: {}, K.arcsinh: {}, K.expm1: {}, K.exp2: {}, K.degrees: {},
    K.absolute: {}, K.relu: {}, K.clip: {}, K.stop_ops: {}, K.compare_mask: {},
    K.arcsin: dict(hi=0.9, lo=-0.9), K.arccos: dict(hi=0.9, lo=-0.9),
    K.arctanh: dict(hi=0.9, lo=-0.9), K.arccosh: {}, K.tan: {}, K.sinc: {},
    K.log: dict(lo=0.2, hi=2.0), K.sqrt: dict(lo=0.2, hi=2.0), K.log1p: dict(lo=-0.5),
    K.log2: dict(lo=0.2, hi=2.0), K.log10: dict(lo=0.2, hi=2.0), K.cbrt: dict(lo=0.2),
    K.power_const: dict(lo=0.2, hi=2.0), K.reciprocal: dict(lo=0.5, hi=2.0),
}


@pytest.mark.parametrize("fn", list(UNARY), ids=lambda f: f.__name__)
@pytest.mark.parametrize("shape", [(3, 4), ()], ids=str)
def test_unary(fn, shape):
    x = r(*shape, **UNARY[fn])
    check_grads(fn, x)


@pytest.mark.parametrize("fn", [K.sin, K.tanh, K.arctan, K.arcsin, K.expm1, K.log1p, K.cbrt,
                                K.exp, K.sqrt, K.float32_chain], ids=lambda f: f.__name__)
def test_unary_float32(fn):
    # float32 runs onnxruntime's kernels (or the float64 constructions rounded once).
    x = r(5, lo=0.1, hi=0.9, dtype=np.float32)
    check_grads(fn, x, rtol=2e-3, atol=1e-4)


def test_power_both_arguments():
    check_grads(K.power_both, r(3, 4, lo=0.2, hi=2.0), r(4, lo=-2.0, hi=2.0), argnums=(0, 1))


def test_weak_python_float_argument():
    x = r(3)
    gx, gs = check_grads(K.scalar_weak, x, 0.7, argnums=(0, 1))
    assert type(gs) is np.float64 and type(gx) is np.ndarray


@pytest.mark.parametrize("fn", [K.remainder, K.fmod], ids=lambda f: f.__name__)
def test_remainder(fn):
    check_grads(fn, r(3, 4, lo=-3.0, hi=3.0), r(4, lo=0.7, hi=1.3), argnums=(0, 1))


REDUCTIONS = [K.sum_axis, K.sum_keepdims, K.mean, K.mean_axis, K.amax, K.amin_all, K.prod,
              K.prod_axis, K.std, K.var_axis, K.norm, K.cumsum, K.softmax_loss, K.logsumexp]


@pytest.mark.parametrize("fn", REDUCTIONS, ids=lambda f: f.__name__)
def test_reductions(fn):
    check_grads(fn, r(3, 4, lo=0.2, hi=1.5) if fn in (K.prod, K.prod_axis) else r(3, 4))


def test_prod_with_zeros():
    # One zero in a row: only the zero gets a gradient (the product of the others); two zeros:
    # none. prod / x would give NaN.
    x = np.array([[0.0, 2.0, 3.0, 0.5], [0.0, 0.0, 1.5, 2.0], [1.0, 2.0, 0.5, 3.0]])
    check_grads(K.prod_axis, x)


def test_max_ties_split_evenly():
    # JAX's convention: tied maxima share the cotangent.
    x = np.array([[1.0, 3.0, 3.0, 0.0], [2.0, 2.0, 2.0, 2.0], [1.0, 0.0, -1.0, 0.5]]).T
    g = pyonnx.grad(K.amax)(x)
    want = np.zeros_like(x)
    m = x.max(axis=0)
    hits = x == m
    want[hits] = (np.cos(m) / hits.sum(axis=0))[np.nonzero(hits)[1]]
    np.testing.assert_allclose(g, want, rtol=1e-12)


PRODUCT_SHAPES = {
    K.matmul: [((3, 4), (4, 2)), ((4,), (4, 2)), ((3, 4), (4,)), ((2, 3, 4), (4, 5)),
               ((2, 3, 4), (1, 4, 5)), ((3, 4), (2, 4, 2)), ((1, 2, 3), (3,))],
    K.dot: [((3, 4), (4, 2)), ((4,), (4,))],
    K.inner: [((4,), (4,))],
    K.einsum_mm: [((3, 4), (4, 2))],
    K.einsum_sum: [((3, 4), (4,))],
    K.einsum_batch: [((2, 3, 4), (2, 4, 2))],
    K.outer: [((3,), (4,))],
}


@pytest.mark.parametrize("fn,shapes", [(f, s) for f, ss in PRODUCT_SHAPES.items() for s in ss],
                         ids=lambda v: getattr(v, "__name__", str(v)))
def test_products(fn, shapes):
    check_grads(fn, r(*shapes[0]), r(*shapes[1]), argnums=(0, 1))


MOVES = {
    K.reshape: [(3, 2)], K.transpose: [(3, 2)], K.broadcast_to: [(4,), (3, 1), (1, 4)],
    K.squeeze: [(1, 4)], K.expand_dims: [(3,)], K.split: [(4, 3)], K.slicing: [(4, 5)],
    K.int_index: [(3, 4)], K.fancy2d: [(3, 4)], K.boolean_mask: [(3, 4)],
    K.take_along: [(3, 4)], K.sort: [(3, 4)], K.argmax_index: [(5,)], K.tile: [(2,)],
    K.pad_constant: [(4,)], K.pad_edge: [(4,)], K.pad_reflect: [(4,)], K.flip: [(3, 4)],
    K.tril: [(3, 3)], K.triu: [(3, 4)], K.repeat: [(4,)], K.diff: [(5,)],
}


@pytest.mark.parametrize("fn,shape", [(f, s) for f, ss in MOVES.items() for s in ss],
                         ids=lambda v: getattr(v, "__name__", str(v)))
def test_data_movement(fn, shape):
    check_grads(fn, r(*shape))


@pytest.mark.parametrize("fn,shapes", [
    (K.neg, [(0, 3)]), (K.sum_axis, [(0, 3)]), (K.amax, [(3, 0)]), (K.reshape_empty, [(0,)]),
    (K.matmul, [(2, 0), (0, 3)]), (K.matmul, [(0, 4), (4, 2)]), (K.mul, [(0, 1), (3,)]),
    (K.take, [(4, 4), (0,)]), (K.sort, [(0, 4)]),
], ids=lambda v: getattr(v, "__name__", str(v)))
def test_empty_arrays(fn, shapes):
    args = [r(*s) if k == 0 or fn is not K.take else np.zeros(s, np.int64)
            for k, s in enumerate(shapes)]
    argnums = tuple(k for k, a in enumerate(args) if a.dtype.kind == "f")
    check_grads(fn, *args, argnums=argnums)


def test_jacobian_of_empty_output():
    j = pyonnx.jacobian(K.elementwise)
    assert j(np.zeros((2, 0))).shape == (2, 0, 2, 0)
    assert j(np.zeros(0)).shape == (0, 0)


def test_concatenate_and_stack():
    check_grads(K.concatenate, r(2, 3), r(2, 4), argnums=(0, 1))
    check_grads(K.stack, r(3, 4), r(3, 4), argnums=(0, 1))


def test_gather_with_repeated_and_negative_indices():
    x = r(4, 4)
    check_grads(K.take, x, np.array([0, -1, 2, 2, -1]))
    check_grads(K.take_axis, x, np.array([[1, 1], [-4, 3]]))


def test_float32_input_computed_in_float64():
    x = r(3, dtype=np.float32)
    (g,) = check_grads(K.to_float64, x, rtol=1e-6, atol=1e-7)
    assert g.dtype == np.float32


def test_float16():
    x = r(4, dtype=np.float16)
    fn = pyonnx.grad(K.float32_chain)
    g = fn(x)
    checked_model(fn)
    assert g.dtype == np.float16
    np.testing.assert_allclose(g, numeric_grad(K.float32_chain, (x,), 0), rtol=1e-2, atol=1e-2)


def test_integer_argument_not_differentiated_is_fine():
    x = r(3)
    g = pyonnx.grad(K.int_arg)(x, np.array([1, 2, 3]))
    np.testing.assert_allclose(g, [1.0, 2.0, 3.0])


@settings(max_examples=15, deadline=None)
@given(st.lists(st.sampled_from([1, 2, 3]), min_size=0, max_size=3),
       st.lists(st.sampled_from([1, 2, 3]), min_size=0, max_size=3), st.data())
def test_broadcasting_hypothesis(a, b, data):
    # Shapes made broadcast-compatible: where both have a dim, one of them is 1 or they agree.
    a, b = list(a), list(b)
    for i in range(1, min(len(a), len(b)) + 1):
        if a[-i] != b[-i] and 1 not in (a[-i], b[-i]):
            if data.draw(st.booleans()):
                a[-i] = 1
            else:
                b[-i] = 1
    check_grads(K.mul, r(*a), r(*b), argnums=(0, 1))


# ---------------------------------------------------------------- higher order
@pytest.mark.parametrize("fn,x", [(K.scalar_poly, 0.8), (K.scalar_tanh, -0.4),
                                  (K.scalar_poly, np.float64(1.3))],
                         ids=["poly", "tanh", "poly_0d"])
def test_second_derivative(fn, x):
    g = pyonnx.grad(fn)
    gg = pyonnx.grad(g)
    got = gg(x)
    checked_model(gg)
    eps = 1e-5
    want = (g(x + eps) - g(x - eps)) / (2 * eps)
    np.testing.assert_allclose(got, want, rtol=1e-6)
    # Third order too: the second-derivative model is differentiable again.
    ggg = pyonnx.grad(gg)
    np.testing.assert_allclose(ggg(x), (gg(x + eps) - gg(x - eps)) / (2 * eps), rtol=1e-5)


def test_hessian_via_jacobian_of_grad():
    x = r(4)
    h = pyonnx.jacobian(pyonnx.grad(K.vector_loss))
    got = h(x)
    checked_model(h)
    g = pyonnx.grad(K.vector_loss)
    want = np.stack([numeric_grad(lambda v: g(v)[k], (x,), 0) for k in range(4)])
    np.testing.assert_allclose(got, want, rtol=1e-6, atol=1e-7)
    np.testing.assert_allclose(got, got.T, rtol=1e-12, atol=1e-12)


@pytest.mark.parametrize("fn", [K.hess_slices, K.hess_sort, K.hess_pad_tile, K.hess_products,
                                K.hess_where, K.hess_select], ids=lambda f: f.__name__)
def test_hessians_through_backward_ops(fn):
    # The gradient model's own ops (scatter-adds, Expand, Where, shape arithmetic...) have
    # rules: Hessians against central differences of the gradient.
    x = np.array([0.3, -0.7, 1.1, 0.45])
    g = pyonnx.grad(fn)
    h = pyonnx.jacobian(g)
    got = h(x)
    checked_model(h)
    eps = 1e-6
    want = np.stack([(g(x + eps * e) - g(x - eps * e)) / (2 * eps) for e in np.eye(4)], axis=1)
    np.testing.assert_allclose(got, want, rtol=1e-6, atol=1e-7)


# ---------------------------------------------------------------- value_and_grad, vjp, jacobian
def test_value_and_grad_structure():
    x, y = r(3, 4), r(4)
    value, grads = pyonnx.value_and_grad(K.mul, argnums=(0, 1))(x, y)
    assert isinstance(value, np.float64) and isinstance(grads, tuple) and len(grads) == 2
    value, g = pyonnx.value_and_grad(K.mul, argnums=1)(x, y)
    assert g.shape == (4,)
    g0 = pyonnx.grad(K.mul)(x, y)
    assert g0.shape == (3, 4)
    (g1,) = pyonnx.grad(K.mul, argnums=(1,))(x, y)
    np.testing.assert_allclose(g1, g)


def test_vjp_against_finite_differences():
    x, y = r(3), r(3)
    out, vjp_fn = pyonnx.vjp(K.two_outputs, x, y)
    want_out = K.two_outputs(x, y)
    np.testing.assert_allclose(out[0], want_out[0])
    np.testing.assert_allclose(out[1], want_out[1])
    ct = (r(3), 0.7)
    gx, gy = vjp_fn(ct)
    checked_model(vjp_fn.compiled)

    def scalarized(a, b):
        o = K.two_outputs(a, b)
        return np.sum(o[0] * ct[0]) + o[1] * ct[1]

    np.testing.assert_allclose(gx, numeric_grad(scalarized, (x, y), 0), rtol=1e-6)
    np.testing.assert_allclose(gy, numeric_grad(scalarized, (x, y), 1), rtol=1e-6)
    # Integer primals get None (jax: float0 zeros).
    out, vjp_fn = pyonnx.vjp(K.int_arg, x, np.array([1, 2, 3]))
    gx, gn = vjp_fn(np.float64(1.0))
    assert gn is None
    np.testing.assert_allclose(gx, [1.0, 2.0, 3.0])
    with pytest.raises(ValueError, match="cotangent 0 has shape"):
        vjp_fn(np.ones(3))


def test_jacobian_against_finite_differences():
    a, b = r(2, 3), r(3, 2)
    jac = pyonnx.jacobian(K.matrix_fn, argnums=(0, 1))
    ja, jb = jac(a, b)
    checked_model(jac)
    assert ja.shape == (2, 2, 2, 3) and jb.shape == (2, 2, 3, 2)
    for k in np.ndindex(2, 2):
        np.testing.assert_allclose(
            ja[k], numeric_grad(lambda u, v: K.matrix_fn(u, v)[k], (a, b), 0), rtol=1e-6)
        np.testing.assert_allclose(
            jb[k], numeric_grad(lambda u, v: K.matrix_fn(u, v)[k], (a, b), 1), rtol=1e-6)
    x = r(4)
    j = pyonnx.jacobian(K.elementwise)(x)
    np.testing.assert_allclose(j, np.diag(np.cos(x) * x + np.sin(x)), rtol=1e-12, atol=1e-15)
    # A scalar output: the jacobian is the gradient.
    np.testing.assert_allclose(pyonnx.jacobian(K.vector_loss)(x), pyonnx.grad(K.vector_loss)(x))


def test_grad_of_compiled_function_and_to_onnx():
    f = pyonnx.compile(K.norm)
    g = pyonnx.grad(f)
    x = r(3, 2)
    np.testing.assert_allclose(g(x), x / np.linalg.norm(x), rtol=1e-12)
    model = g.to_onnx(x)
    onnx.checker.check_model(model, full_check=True)
    assert [o.name for o in model.graph.output] == ["grad_x"]
    assert "grad(" in repr(g)
    # Cached per signature, like compile.
    g(r(5, 1))
    assert g.conversions == 1
    g(r(5).astype(np.float32))
    assert g.conversions == 2


# ---------------------------------------------------------------- errors
def _error(fn, *args, match):
    with pytest.raises(pyonnx.ConversionError, match=match) as info:
        fn(*args)
    return info.value


def test_error_non_scalar_output():
    _error(pyonnx.grad(K.vector_out), r(3), match=r"scalar output .*pyonnx.vjp")


def test_error_integer_output():
    _error(pyonnx.grad(K.int_out), r(3), match="real-valued outputs")


def test_error_tuple_output():
    _error(pyonnx.grad(K.tuple_out), r(3), match="returns a tuple")


def test_error_integer_input():
    _error(pyonnx.grad(K.sum_axis), np.ones((2, 2), np.int64),
           match="requires real-valued .*inputs.*int64")
    _error(pyonnx.grad(K.int_arg, argnums=1), r(3), 2, match="argument 'n' has dtype int64")


def test_error_static_argument():
    # int(n) as an axis needs n's value at conversion time: n becomes static.
    _error(pyonnx.grad(K.axis_from_arg, argnums=1), r(2, 2), 1.0,
           match="argument 'n': its value is used at conversion time")
    # Differentiating with respect to x only is fine.
    x = r(2, 3)
    np.testing.assert_allclose(pyonnx.grad(K.axis_from_arg)(x, 1.0),
                               numeric_grad(K.axis_from_arg, (x, 1.0), 0), rtol=1e-6)


def test_error_vjp_without_float_primals():
    out, vjp_fn = pyonnx.vjp(K.int_out, np.array([1, -2]))
    assert out == 1
    with pytest.raises(pyonnx.ConversionError, match="nothing to differentiate"):
        vjp_fn(np.int64(1))


def test_error_argnums():
    with pytest.raises(ValueError, match="out of range"):
        pyonnx.grad(K.mul, argnums=2)
    with pytest.raises(TypeError, match="argnums"):
        pyonnx.grad(K.mul, argnums="x")


def test_error_op_without_rule_names_op_and_line():
    # A list built in a run-time loop is an ONNX sequence: no rule for its ops.
    import inspect

    e = _error(pyonnx.grad(K.runtime_list), r(4), np.array(2),
               match="no gradient .*rule for the ONNX op ConcatFromSequence")
    lines, start = inspect.getsourcelines(K.runtime_list)
    assert e.lineno == start + 4 and e.filename == K.__file__
    assert "np.stack(out)" in str(e)


@pytest.mark.parametrize("x", [np.array([0.5, -1.2, 0.3, 0.9]), np.array([0.5, 0.0, 0.3, 0.9]),
                               np.zeros(0)], ids=["plain", "zero", "empty"])
def test_cumprod_through_its_loop(x):
    # np.cumprod is an ONNX Loop the frontend builds: differentiated by the Loop rule.
    check_grads(K.cumprod, x)


@pytest.mark.parametrize("fn", [K.runtime_if, K.runtime_while], ids=["if", "while"])
def test_runtime_control_flow(fn):
    # (tests/test_grad_control_flow.py covers If and Loop in depth.)
    check_grads(fn, r(3, lo=0.2, hi=1.0))
    check_grads(fn, r(3, lo=-1.0, hi=-0.2) if fn is K.runtime_if else r(3, lo=4.0, hi=5.0))


# ---------------------------------------------------------------- the pass on ONNX-text fixtures
def _run(model: onnx.ModelProto, feeds: dict) -> list:
    sess = ort.InferenceSession(model.SerializeToString(), providers=["CPUExecutionProvider"])
    return sess.run(None, feeds)


def check_fixture(text: str, feeds: dict, wrt: list[int], rtol=1e-6, atol=1e-8):
    """Differentiates a one-output model (summed) with the pass; checks the gradient model and
    the gradients against central differences of the forward model, run by onnxruntime."""
    forward = onnx.parser.parse_model(text)
    onnx.checker.check_model(forward, full_check=True)
    model = ir.from_proto(forward)
    # Sum the output to a scalar, as a loss.
    g = model.graph
    y = g.outputs[0]
    node = ir.Node("", "ReduceSum", [y], [ir.AttrInt64("keepdims", 0)], name="loss")
    node.outputs[0].name = "loss"
    node.outputs[0].type = y.type
    node.outputs[0].shape = ir.Shape([])
    g.append(node)
    g.outputs[0] = node.outputs[0]
    loss_proto = ir.to_proto(model)
    grads = differentiate(model, wrt)
    assert [v.name for v in grads] == [f"grad_{g.inputs[i].name}" for i in wrt]
    optimize(model)
    proto = ir.to_proto(model)
    onnx.checker.check_model(proto, full_check=True)
    got = _run(proto, feeds)
    names = [i.name for i in forward.graph.input]
    for k, i in enumerate(wrt):
        x = feeds[names[i]]
        want = np.zeros_like(x, dtype=np.float64)
        eps = 1e-6 if x.dtype == np.float64 else 1e-2
        for idx in np.ndindex(x.shape):
            hi, lo = dict(feeds), dict(feeds)
            hi[names[i]] = x.copy()
            hi[names[i]][idx] += eps
            lo[names[i]] = x.copy()
            lo[names[i]][idx] -= eps
            want[idx] = (_run(loss_proto, hi)[0] - _run(loss_proto, lo)[0]) / (2 * eps)
        assert got[k].shape == x.shape and got[k].dtype == x.dtype
        np.testing.assert_allclose(got[k], want, rtol=rtol, atol=atol)
    return proto


HEADER = '<ir_version: 10, opset_import: ["" : 21]>\n'
FIXTURES = {
    "Sigmoid": ("f (double[3] x) => (double[3] y) { y = Sigmoid(x) }", {"x": (3,)}, [0]),
    "Relu": ("f (double[3] x) => (double[3] y) { r = Relu(x)\n y = Identity(r) }",
             {"x": (3,)}, [0]),
    "Erf": ("f (float[3] x) => (float[3] y) { y = Erf(x) }", {"x": (3, np.float32)}, [0]),
    "Softmax": ("f (double[2,3] x) => (double[2,3] y) { s = Softmax<axis=0>(x)\n"
                "w = Constant<value=double[2,3] {1,2,3,4,5,6}>()\n y = Mul(s, w) }",
                {"x": (2, 3)}, [0]),
    "LogSoftmax": ("f (double[2,3] x) => (double[2,3] y) { s = LogSoftmax(x)\n"
                   "w = Constant<value=double[2,3] {1,2,3,4,5,6}>()\n y = Mul(s, w) }",
                   {"x": (2, 3)}, [0]),
    "Gemm": ("f (double[3,2] a, double[4,3] b, double[4] c) => (double[2,4] y) "
             "{ y = Gemm<alpha=0.5, beta=2.0, transA=1, transB=1>(a, b, c) }",
             {"a": (3, 2), "b": (4, 3), "c": (4,)}, [0, 1, 2]),
    "Gemm_plain": ("f (double[2,3] a, double[3,4] b) => (double[2,4] y) { y = Gemm(a, b) }",
                   {"a": (2, 3), "b": (3, 4)}, [0, 1]),
    "ReduceMean": ("f (double[2,3] x) => (double[2] y) "
                   "{ ax = Constant<value=int64[1] {-1}>()\n y = ReduceMean<keepdims=0>(x, ax) }",
                   {"x": (2, 3)}, [0]),
    "ReduceLogSumExp": ("f (double[2,3] x) => (double[3] y) "
                        "{ ax = Constant<value=int64[1] {0}>()\n"
                        "y = ReduceLogSumExp<keepdims=0>(x, ax) }", {"x": (2, 3)}, [0]),
    "ReduceL2": ("f (double[2,3] x) => (double[2,1] y) "
                 "{ ax = Constant<value=int64[1] {1}>()\n y = ReduceL2(x, ax) }",
                 {"x": (2, 3)}, [0]),
    "ReduceMin_all": ("f (double[2,3] x) => (double y) { y = ReduceMin<keepdims=0>(x) }",
                      {"x": (2, 3)}, [0]),
    # (onnxruntime has no float64 Mean)
    "Sum_Mean": ("f (float[3] a, float[1] b, float[3] c) => (float[3] y) "
                 "{ s = Sum(a, b, c)\n m = Mean(a, b, c)\n y = Mul(s, m) }",
                 {"a": (3, np.float32), "b": (1, np.float32), "c": (3, np.float32)},
                 [0, 1, 2]),
    "Max_variadic": ("f (double[3] a, double[1] b, double[3] c) => (double[3] y) "
                     "{ y = Max(a, b, c) }", {"a": (3,), "b": (1,), "c": (3,)}, [0, 1, 2]),
    "Split_Flatten": ("f (double[4,2] x) => (double[2] y) "
                      "{ s = Constant<value=int64[2] {1,3}>()\n a, b = Split<axis=0>(x, s)\n"
                      "fa = Flatten<axis=0>(a)\n t = Squeeze(fa)\n"
                      "u = Constant<value=double[2] {2,-1}>()\n y = Mul(t, u) }",
                      {"x": (4, 2)}, [0]),
    "ScatterND": ("f (double[4,2] d, double[2,2] u) => (double[4,2] y) "
                  "{ i = Constant<value=int64[2,1] {3,1}>()\n s = ScatterND(d, i, u)\n"
                  "y = Mul(s, s) }", {"d": (4, 2), "u": (2, 2)}, [0, 1]),
    "ScatterND_add": ("f (double[4] d, double[3] u) => (double[4] y) "
                      "{ i = Constant<value=int64[3,1] {1,1,2}>()\n"
                      "s = ScatterND<reduction=\"add\">(d, i, u)\n y = Mul(s, s) }",
                      {"d": (4,), "u": (3,)}, [0, 1]),
    "ScatterElements": ("f (double[2,3] d, double[2,2] u) => (double[2,3] y) "
                        "{ i = Constant<value=int64[2,2] {2,0,1,2}>()\n"
                        "s = ScatterElements<axis=1>(d, i, u)\n y = Mul(s, s) }",
                        {"d": (2, 3), "u": (2, 2)}, [0, 1]),
    "Range": ("f (double s, double d) => (double[N] y) "
              "{ l = Constant<value=double {3.5}>()\n y = Range(s, l, d) }", {}, [0, 1]),
    "CastLike_Reciprocal": ("f (float[3] x, double[1] like) => (double[3] y) "
                            "{ c = CastLike(x, like)\n h = Constant<value=double {2}>()\n"
                            "d = Add(c, h)\n y = Reciprocal(d) }",
                            {"x": (3, np.float32), "like": (1,)}, [0]),
    "Tan_Asinh_Acosh_Atanh": (
        "f (float[3] x) => (float[3] y) { a = Tan(x)\n b = Asinh(x)\n t = Atanh(x)\n"
        "two = Constant<value=float {2}>()\n xp = Add(x, two)\n c = Acosh(xp)\n"
        "ab = Add(a, b)\n abc = Add(ab, c)\n y = Add(abc, t) }", {"x": (3, np.float32)}, [0]),
    "Clip_bounds": ("f (double[4] x, double lo, double hi) => (double[4] y) "
                    "{ c = Clip(x, lo, hi)\n y = Mul(c, c) }", {"x": (4,)}, [0, 1, 2]),
    "Pad_fill": ("f (double[3] x, double v) => (double[6] y) "
                 "{ p = Constant<value=int64[2] {1,2}>()\n q = Pad(x, p, v)\n y = Mul(q, q) }",
                 {"x": (3,)}, [0, 1]),
    "ReverseSequence": ("f (double[3,2] x) => (double[3,2] y) "
                        "{ l = Constant<value=int64[2] {2,3}>()\n"
                        "r = ReverseSequence<batch_axis=1, time_axis=0>(x, l)\n"
                        "w = Constant<value=double[3,2] {1,2,3,4,5,6}>()\n y = Mul(r, w) }",
                        {"x": (3, 2)}, [0]),
    "Sinh_Cosh_Atan_Asin_Acos": (
        "f (float[3] x) => (float[3] y) { a = Sinh(x)\n b = Cosh(x)\n c = Atan(x)\n"
        "d = Asin(x)\n e = Acos(x)\n ab = Add(a, b)\n abc = Add(ab, c)\n abcd = Add(abc, d)\n"
        "y = Add(abcd, e) }", {"x": (3, np.float32)}, [0]),
}


@pytest.mark.parametrize("name", list(FIXTURES))
def test_rule_fixtures(name):
    text, shapes, wrt = FIXTURES[name]
    model = onnx.parser.parse_model(HEADER + text)
    feeds = {}
    for vi in model.graph.input:
        spec = shapes.get(vi.name, ())
        dtype = spec[-1] if spec and not isinstance(spec[-1], int) else np.float64
        dims = [d for d in spec if isinstance(d, int)]
        lo, hi = (-0.8, 0.8)
        if vi.name == "s":
            lo, hi = 0.1, 0.5
        if vi.name == "d" and name == "Range":
            lo, hi = 0.7, 0.9
        if vi.name in ("lo",):
            feeds[vi.name] = np.array(-0.3)
            continue
        if vi.name in ("hi",):
            feeds[vi.name] = np.array(0.4)
            continue
        feeds[vi.name] = RNG.uniform(lo, hi, size=dims).astype(dtype)
    float32 = any(v.dtype == np.float32 for v in feeds.values())
    check_fixture(HEADER + text, feeds, wrt, rtol=1e-2 if float32 else 1e-6,
                  atol=1e-3 if float32 else 1e-8)


def test_gradient_pass_on_fixture():
    from pyonnx.passes.gradient.entry import GradientPass

    text = HEADER + ('f (double[N] x, double[N] w) => (double y) {\n'
                     '  p = Mul(x, w)\n  s = Sin(p)\n  y = ReduceSum<keepdims=0>(s) }')
    model = ir.from_proto(onnx.parser.parse_model(text))
    result = GradientPass([0, 1], keep_outputs=True)(model)
    assert result.modified
    assert [v.name for v in model.graph.outputs] == ["y", "grad_x", "grad_w"]
    assert {n.op_type for n in model.graph} >= {"Cos", "Expand", "Mul"}
    proto = ir.to_proto(optimize(model))
    onnx.checker.check_model(proto, full_check=True)
    x, w = r(5), r(5)
    y, gx, gw = _run(proto, {"x": x, "w": w})
    np.testing.assert_allclose(y, np.sum(np.sin(x * w)))
    np.testing.assert_allclose(gx, np.cos(x * w) * w)
    np.testing.assert_allclose(gw, np.cos(x * w) * x)
    # Precondition: item-assignment pseudo-ops are lowered first.
    pseudo = ir.from_proto(onnx.parser.parse_model(text))
    pseudo.graph.append(ir.Node("pyonnx", "SetItem", [pseudo.graph.inputs[0]], num_outputs=1))
    with pytest.raises(ir.passes.PreconditionError, match="SetItem"):
        GradientPass([0])(pseudo)


def test_pass_error_names_op_and_line_from_doc_string():
    text = HEADER + ('f (double[3] x) => (double y) {\n'
                     '  h = Hardmax(x)\n  y = ReduceSum<keepdims=0>(h) }')
    model = ir.from_proto(onnx.parser.parse_model(text))
    node = next(n for n in model.graph if n.op_type == "Hardmax")
    import inspect

    line = inspect.getsourcelines(K.add)[1] + 1  # (the source line the doc_string names)
    node.doc_string = f"{K.__file__}:{line}:5: return np.sum(np.sin(x + y))"
    with pytest.raises(pyonnx.ConversionError, match="Hardmax") as info:
        differentiate(model, [0])
    assert info.value.lineno == line and info.value.filename == K.__file__
    assert "np.sum(np.sin(x + y))" in str(info.value)


def test_pass_inactive_ops_need_no_rule():
    # An integer Loop and comparisons next to the differentiated path: no rule needed.
    text = HEADER + ('f (double[3] x, int64 n) => (double y) {\n'
                     '  t = Constant<value=bool {1}>()\n'
                     '  m = Loop(n, t, n) <body = g (int64 i, bool c, int64 a) =>'
                     ' (bool c2, int64 b)'
                     ' { c2 = Identity(c)\n b = Add(a, i) }>\n'
                     '  mf = Cast<to=11>(m)\n  p = Mul(x, mf)\n  q = Hardmax(x)\n'
                     '  y = ReduceSum<keepdims=0>(p) }')
    model = ir.from_proto(onnx.parser.parse_model(text))
    differentiate(model, [0])
    proto = ir.to_proto(optimize(model))
    onnx.checker.check_model(proto, full_check=True)
    x = r(3)
    (g,) = _run(proto, {"x": x, "n": np.array(3)})
    np.testing.assert_allclose(g, np.full(3, 6.0))


def _kernel_cases():
    """(function, args) for every frontend kernel the tests above differentiate."""
    for fn in BINARY:
        yield fn, (r(3, 1), r(4))
    for fn, kw in UNARY.items():
        yield fn, (r(3, 4, **kw),)
    for fn in REDUCTIONS:
        yield fn, (r(3, 4),)
    for fn, shapes in PRODUCT_SHAPES.items():
        for a, b in shapes:
            yield fn, (r(*a), r(*b))
    for fn, shapes in MOVES.items():
        for shape in shapes:
            yield fn, (r(*shape),)
    yield K.concatenate, (r(2, 3), r(2, 4))
    yield K.stack, (r(3, 4), r(3, 4))
    yield K.take, (r(4, 4), np.array([0, 1]))
    yield K.take_axis, (r(4, 4), np.array([[0, 1]]))
    yield K.remainder, (r(3), r(3))
    yield K.fmod, (r(3), r(3))
    yield K.power_both, (r(3), r(3))
    yield K.to_float64, (r(3, dtype=np.float32),)
    yield K.float32_chain, (r(3, dtype=np.float32),)
    yield K.runtime_if, (r(3),)
    yield K.runtime_while, (r(3),)


def test_every_rule_is_tested():
    """Each registered rule is exercised above: by an op the frontend kernels emit (forward
    models converted here) or by an ONNX-text fixture."""
    emitted: set[str] = set()
    for fn, args in _kernel_cases():
        emitted |= {n.op_type for n in pyonnx.compile(fn).to_onnx(*args).graph.node}
    fixture_ops: set[str] = set()
    for text, _, _ in FIXTURES.values():
        fixture_ops |= {n.op_type for n in onnx.parser.parse_model(HEADER + text).graph.node}
    # Zero-derivative entries that no test model contains (random ops, EyeLike).
    untested_zero = {"EyeLike", "RandomNormalLike", "RandomUniformLike", "Bernoulli"}
    missing = set(RULES) - emitted - fixture_ops - untested_zero
    assert not missing, f"rules without a test: {sorted(missing)}"
    assert set(COMPOSITE_RULES) >= {"sin", "cos", "tan", "arctan", "arcsin", "arccos", "tanh",
                                    "expm1", "log1p", "cbrt", "hypot", "arctan2", "logaddexp"}


# ---------------------------------------------------------------- transforms inside compile
def test_value_and_grad_step_called_in_a_compiled_loop():
    w, x = r(3), r(16, 3)
    y = np.tanh(x @ np.array([1.0, -2.0, 0.5]))
    compiled = pyonnx.compile(K.fit)
    got_w, got_value = compiled(w, x, y, np.array(5))
    model = checked_model(compiled)
    assert len(loop_nodes(model.graph)) == 1   # one model, one loop
    want_w = w
    for _ in range(5):
        want_value, g = K.FIT_STEP(want_w, x, y)
        want_w = want_w - 0.5 * g
    np.testing.assert_allclose(got_w, want_w, rtol=1e-12)
    np.testing.assert_allclose(got_value, want_value, rtol=1e-12)
    # 0 steps: the loop's initial values.
    np.testing.assert_array_equal(compiled(w, x, y, np.array(0))[0], w)


def test_transforms_written_inside_a_compiled_function():
    w, x = r(3), r(16, 3)
    y = np.tanh(x @ np.array([1.0, -2.0, 0.5]))
    np.testing.assert_allclose(pyonnx.compile(K.fit_inline_grad)(w, x, y),
                               w - 0.5 * pyonnx.grad(K.fit_loss)(w, x, y), rtol=1e-12)
    v = r(4)
    np.testing.assert_allclose(pyonnx.compile(K.hessian_diag_inside)(v),
                               np.diagonal(pyonnx.jacobian(pyonnx.grad(K.vector_loss))(v)),
                               rtol=1e-12)
    # grad of a function that calls grad: second derivatives through the inlined model.
    want = numeric_grad(lambda a: np.sum(pyonnx.grad(K.vector_loss)(a) ** 2), [v], 0)
    np.testing.assert_allclose(pyonnx.grad(K.grad_of_inner_grad)(v), want, rtol=1e-6,
                               atol=1e-7)


def test_error_vjp_inside_a_compiled_function():
    _error(pyonnx.compile(K.vjp_inside), r(3), match="pyonnx.vjp cannot be called inside")


# ---------------------------------------------------------------- the training example
def _load_example(name: str):
    import importlib.util
    import pathlib

    path = pathlib.Path(__file__).resolve().parent.parent / "examples" / f"{name}.py"
    spec = importlib.util.spec_from_file_location(f"examples_{name}", path)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def test_train_mlp_example(capsys):
    m = _load_example("train_mlp")
    params, x, y = m.init(0)
    value, grads = pyonnx.value_and_grad(m.loss, argnums=(0, 1, 2, 3))(*params, x[:32], y[:32])
    want_value, want = m.numpy_value_and_grad(*params, x[:32], y[:32])
    np.testing.assert_allclose(value, want_value, rtol=1e-6)
    for g, w, p in zip(grads, want, params):
        assert g.dtype == p.dtype == np.float32 and g.shape == p.shape
        np.testing.assert_allclose(g, w, rtol=1e-4, atol=1e-6)
    # The bar: the loss falls at least 10x over 100 epochs (800 SGD steps, ~0.2 s).
    trained, history = m.train(epochs=100)
    assert history[-1] * 10 <= history[0]
    # The whole loop as one compiled model (the step's gradient model inlined in its body):
    # the same batches, the same parameters and losses.
    compiled = pyonnx.compile(m.train_in_one_model)
    params, x, y = m.init(0)
    *one_model, one_history = compiled(*params, x, y, m.shuffles(100, len(x)), 0.05)
    checked_model(compiled)
    assert one_history.dtype == np.float32 and one_history[-1] * 10 <= one_history[0]
    np.testing.assert_allclose(one_history, history, rtol=1e-4)
    for a, b in zip(one_model, trained):
        np.testing.assert_allclose(a, b, rtol=1e-4, atol=1e-5)
    # numpy_train (hand-written backward) agrees with both.
    np.testing.assert_allclose(m.numpy_train(*params, x, y, m.shuffles(3, len(x)), 0.05)[-1],
                               history[:3], rtol=1e-4)
    m.main(epochs=3)
    out = capsys.readouterr().out
    assert "train_mlp: loss" in out and "train_mlp (one model): loss" in out
