"""The gradient mode's oracle and checks.

Oracle: float64 central finite differences at two steps (1e-4 and 1e-6) that must agree, at
a point measured (fuzzing.kinks) to be far from every kink and singular point of the numpy
functions the program calls; a point where the steps disagree (a branch switch nearby) or too
close to a kink (a tie, ``hypot``'s origin) is resampled, and a program without a smooth point
after 5 tries is ``invalid``. Checked: ``compile`` (forward),
``grad`` (argnums 0, 1 and (0, 1)), ``value_and_grad``, ``vjp``, ``jacobian``, the Hessian
``jacobian(grad(f))`` (small inputs), on two input sizes with one transformed function, in
float64 and float32 (float32 against the float64 oracle, float32 tolerance).
"""

from __future__ import annotations

import numpy as np

from fuzzing import kinks
from fuzzing.compare import compare
from fuzzing.grad_gen import resample
from fuzzing.program import load, run_numpy
from fuzzing.runner import (Outcome, Timeout, alarm, crash_group, group_of,
                            is_runtime_refusal)

STEPS = (1e-4, 1e-6)


def fd_grad(fn, args, i, h):
    x = args[i]
    g = np.zeros_like(x)
    for j in np.ndindex(x.shape):
        vals = []
        for s in (h, -h):
            a = [v.copy() for v in args]
            a[i][j] += s
            vals.append(float(run_numpy(fn, a)))
        g[j] = (vals[0] - vals[1]) / (2 * h)
    return g


def oracle(fn, args):
    """Gradients w.r.t. both arguments, or None when the two steps disagree (not smooth here)."""
    out = []
    for i in range(len(args)):
        g1, g2 = fd_grad(fn, args, i, STEPS[0]), fd_grad(fn, args, i, STEPS[1])
        if not np.allclose(g1, g2, rtol=1e-4, atol=1e-5):
            return None
        # The finer step is the reference: the steps agree within 1e-4, but the coarse one's
        # truncation error can exceed the 1e-5 the gradients are compared with (seed 28001685,
        # nine nested log2: the 1e-4 difference was 2e-5 off, pyonnx's gradient was exact)
        out.append(g2)
    return out


def hessian_fd(fn, args, i, h=1e-3):
    x = args[i]
    n = x.size
    H = np.zeros((n, n))
    for p in range(n):
        for q in range(n):
            acc = 0.0
            for sp, sq, sign in ((h, h, 1), (h, -h, -1), (-h, h, -1), (-h, -h, 1)):
                a = [v.copy() for v in args]
                a[i].reshape(-1)[p] += sp
                a[i].reshape(-1)[q] += sq
                acc += sign * float(run_numpy(fn, a))
            H[p, q] = acc / (4 * h * h)
    return H.reshape(x.shape + x.shape)


def _close(got, want, f32=False):
    got = np.asarray(got, dtype=np.float64)
    scale = max(1.0, float(np.max(np.abs(want), initial=0.0)))
    rt, at = (3e-3, 3e-3) if f32 else (1e-5, 1e-6)
    return got.shape == np.shape(want) and bool(np.allclose(got, want, rtol=rt, atol=at * scale))


def run(prog, timeout: float = 20.0) -> Outcome:
    import pyonnx
    try:
        fn = load(prog.source)
    except SyntaxError as e:
        return Outcome("invalid", f"SyntaxError: {e}")
    oracles = None
    for attempt in range(6):
        try:
            sets = [prog.args(k) for k in range(2)]
            values = [run_numpy(fn, [v.copy() for v in a]) for a in sets]
            oracles = [oracle(fn, a) for a in sets]
            near = [kinks.distances(fn, [v.copy() for v in a], run_numpy) for a in sets]
        except Exception as e:  # noqa: BLE001
            return Outcome("invalid", f"numpy raised {type(e).__name__}: {e}")
        if all(o is not None for o in oracles) and all(kinks.smooth_enough(*d) for d in near):
            break
        resample(prog, attempt)
        oracles = None
    if oracles is None:
        return Outcome("invalid", "no smooth point found (finite differences disagree)", "no smooth point")
    check = "compile"
    try:
        with alarm(timeout):
            checks = _checks(pyonnx, fn, sets, values, oracles, near[0])
            for check, got_want in checks:
                bad = got_want()
                if bad:
                    return Outcome("wrong-value", f"{check}: {bad}", f"wrong-value: {check}")
    except Timeout:
        return Outcome("timeout", f"{check}: more than {timeout} s", "timeout")
    except pyonnx.ConversionError as e:
        return Outcome("refused", f"{check}: {e}", f"{check.split(' ')[0]}: {group_of(str(e))}")
    except Exception as e:  # noqa: BLE001
        if is_runtime_refusal(e):
            return Outcome("refused", f"{check}: {e}", f"{check.split(' ')[0]}: {group_of(str(e))}")
        return Outcome("crash", f"{check}: {type(e).__name__}: {e}",
                       f"{check.split(' ')[0]}: {crash_group(e)}")
    return Outcome("pass")


class _Fresh:
    """Arguments that unpack (``*args``) or index as new copies every time."""

    def __init__(self, arrays):
        self.arrays = arrays

    def __iter__(self):
        return iter([a.copy() for a in self.arrays])

    def __getitem__(self, i):
        return self.arrays[i].copy()

    def __len__(self):
        return len(self.arrays)


def _checks(pyonnx, fn, sets, values, oracles, near0):
    """(name, thunk) pairs; a thunk returns None or what differs. ``near0``: set 0's distances
    to kinks and singular points (the Hessian's steps are 10 times the gradient's; its
    differences reach 2e-3 from the point: kinks.HESSIAN_KINK_MIN)."""
    compiled = pyonnx.compile(fn)
    g0, g1, g01 = pyonnx.grad(fn, 0), pyonnx.grad(fn, 1), pyonnx.grad(fn, (0, 1))
    vg = pyonnx.value_and_grad(fn, 1)
    jac = pyonnx.jacobian(fn, 0)
    for k, (args0, val, (ox, ow)) in enumerate(zip(sets, values, oracles)):
        # Each call gets fresh copies: a program that writes into its arguments would move the
        # next call's point (the oracles are at the original one).
        args = _Fresh(args0)
        yield f"compile (set {k})", lambda: compare(val, compiled(*args))
        yield f"grad argnums=0 (set {k})", lambda: None if _close(g0(*args), ox) else f"got {g0(*args)}, finite differences {ox}"
        yield f"grad argnums=1 (set {k})", lambda: None if _close(g1(*args), ow) else f"got {g1(*args)}, finite differences {ow}"

        def both():
            gx, gw = g01(*args)
            return None if _close(gx, ox) and _close(gw, ow) else f"got {gx}, {gw}; finite differences {ox}, {ow}"
        yield f"grad argnums=(0, 1) (set {k})", both

        def value_and_grad():
            v, gw = vg(*args)
            return None if _close(v, val) and _close(gw, ow) else f"got ({v}, {gw}); want ({val}, {ow})"
        yield f"value_and_grad (set {k})", value_and_grad

        def vjp():
            out, fvjp = pyonnx.vjp(fn, *args)
            cx, cw = fvjp(np.float64(1.0) if isinstance(out, np.generic) else np.ones_like(out))
            return None if _close(cx, ox) and _close(cw, ow) else f"got {cx}, {cw}; want {ox}, {ow}"
        yield f"vjp (set {k})", vjp
        yield f"jacobian (set {k})", lambda: None if _close(jac(*args), ox) else f"got {jac(*args)}, want {ox}"

        def float32():
            a32 = [a.astype(np.float32) for a in args]
            a64 = [a.astype(np.float64) for a in a32]
            o = oracle(fn, a64)
            if o is None:
                return None
            got = g01(*a32)
            return None if _close(got[0], o[0], True) and _close(got[1], o[1], True) else f"got {got}, want {o}"
        yield f"grad float32 (set {k})", float32
    args = _Fresh(sets[0])
    if args[0].size <= 4 and kinks.smooth_enough(*near0, scale=10.0,
                                                 kink_min=kinks.HESSIAN_KINK_MIN):
        def hessian():
            want = hessian_fd(fn, args, 0)
            # Two steps, as for gradients: a branch switch within the step (seed 700027: a
            # test 1e-3 from its threshold) shows as disagreeing differences, not a bug.
            half = hessian_fd(fn, args, 0, h=5e-4)
            if not np.allclose(want, half, rtol=1e-2, atol=1e-2 * max(1.0, np.max(np.abs(half)))):
                return None
            # Richardson's extrapolation of the two central differences (error O(h**4), not
            # O(h**2)): the steps agree within 1e-2, the comparison below is 1e-3 (seed
            # 28001685, nine nested log2: the 1e-3 difference was 1.4% off an exact Hessian)
            want = (4.0 * half - want) / 3.0
            got = pyonnx.jacobian(pyonnx.grad(fn, 0), 0)(*args)
            scale = max(1.0, float(np.max(np.abs(want))))
            ok = np.shape(got) == want.shape and np.allclose(got, want, rtol=1e-3, atol=1e-3 * scale)
            return None if ok else f"got {got}, finite differences {want}"
        yield "hessian jacobian(grad) (set 0)", hessian
