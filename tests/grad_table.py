"""The table of every differentiable numpy-style function pyonnx registers, for
tests/test_grad_table.py (tests/grad_table_kernels.py generates the kernels that place each one
at top level, in a run-time ``for`` and in a run-time ``if``).

``TABLE`` maps a registered name (``pyonnx.frontend.numpy_calls.registered_names()``) to an
:class:`Entry`: a body computing ``e`` from ``{x}`` (shape (3, 4)) and ``{y}`` (shape (4,)),
and the domains their elements are drawn from (kept away from kinks, ties, integers and
singularities, so that central differences are a valid oracle). ``NOT_DIFFERENTIABLE`` maps
every other registered name to why it has no gradient to check (integer, boolean or index
results; constants). tests/test_grad_table.py checks that the two cover the registry.

"""

from __future__ import annotations

import dataclasses

import numpy as np


@dataclasses.dataclass(frozen=True)
class Entry:
    body: str            # statements assigning e, in terms of {x} and {y}
    x: str = "any"       # domain of x's elements (DOMAINS)
    y: str | None = None  # domain of y's elements, None: y unused
    f32: bool = True     # float32 inputs too (False: the function needs float64, say why)


# Domains: (sampler of n values).
def _any(rng, n): return rng.uniform(-1.0, 1.0, n)
def _pos(rng, n): return rng.uniform(0.3, 2.0, n)
def _unit(rng, n): return rng.uniform(-0.85, 0.85, n)
def _gt1(rng, n): return rng.uniform(1.3, 3.0, n)
def _nz(rng, n): return rng.choice([-1.0, 1.0], n) * rng.uniform(0.2, 1.0, n)
def _frac(rng, n): return rng.integers(-2, 3, n) + rng.uniform(0.3, 0.45, n)
def _spread(rng, n):
    # Distinct values at least 0.15 apart (no ties for max, sort, median).
    return rng.permutation(np.linspace(-1.0, 1.0, n)) + rng.uniform(-0.02, 0.02, n)


DOMAINS = {"any": _any, "pos": _pos, "unit": _unit, "gt1": _gt1, "nz": _nz, "frac": _frac,
           "spread": _spread}


def E(expr: str, x: str = "any", y: str | None = None, f32: bool = True) -> Entry:
    return Entry(f"e = {expr}", x, y, f32)


TABLE: dict[str, Entry] = {
    # ---- unary elementwise
    "numpy.absolute": E("np.absolute({x})", "nz"),
    "numpy.fabs": E("np.fabs({x})", "nz"),
    "builtins.abs": E("abs({x})", "nz"),
    "numpy.negative": E("np.negative({x})"),
    "numpy.positive": E("np.positive({x}) * {x}"),
    "numpy.square": E("np.square({x})"),
    "numpy.reciprocal": E("np.reciprocal({x})", "pos"),
    "numpy.conjugate": E("np.conjugate({x}) * {x}"),
    "ndarray.conj": E("{x}.conj() * {x}"),
    "ndarray.conjugate": E("{x}.conjugate() * {x}"),
    "numpy.exp": E("np.exp({x})"),
    "numpy.exp2": E("np.exp2({x})"),
    "numpy.expm1": E("np.expm1({x})"),
    "numpy.log": E("np.log({x})", "pos"),
    "numpy.log2": E("np.log2({x})", "pos"),
    "numpy.log10": E("np.log10({x})", "pos"),
    "numpy.log1p": E("np.log1p({x})", "unit"),
    "numpy.sqrt": E("np.sqrt({x})", "pos"),
    "numpy.cbrt": E("np.cbrt({x})", "nz"),
    "numpy.sin": E("np.sin({x})"),
    "numpy.cos": E("np.cos({x})"),
    "numpy.tan": E("np.tan({x})"),
    "numpy.arcsin": E("np.arcsin({x})", "unit"),
    "numpy.arccos": E("np.arccos({x})", "unit"),
    "numpy.arctan": E("np.arctan({x})"),
    "numpy.sinh": E("np.sinh({x})"),
    "numpy.cosh": E("np.cosh({x})"),
    "numpy.tanh": E("np.tanh({x})"),
    "numpy.arcsinh": E("np.arcsinh({x})"),
    "numpy.arccosh": E("np.arccosh({x})", "gt1"),
    "numpy.arctanh": E("np.arctanh({x})", "unit"),
    "numpy.sinc": E("np.sinc({x})", "nz"),
    "numpy.degrees": E("np.degrees({x})"),
    "numpy.rad2deg": E("np.rad2deg({x})"),
    "numpy.radians": E("np.radians({x})"),
    "numpy.deg2rad": E("np.deg2rad({x})"),
    "numpy.nan_to_num": E("np.nan_to_num({x}) * {x}"),
    # locally constant: zero derivative away from the jumps
    "numpy.floor": E("np.floor({x}) * {x}", "frac"),
    "numpy.ceil": E("np.ceil({x}) * {x}", "frac"),
    "numpy.trunc": E("np.trunc({x}) * {x}", "frac"),
    "numpy.fix": E("np.fix({x}) * {x}", "frac"),
    "numpy.rint": E("np.rint({x}) * {x}", "frac"),
    "numpy.round": E("np.round({x}, 1) * {x}", "frac"),
    "numpy.around": E("np.around({x}) * {x}", "frac"),
    "ndarray.round": E("{x}.round() * {x}", "frac"),
    "numpy.sign": E("np.sign({x}) * {x}", "nz"),
    "numpy.spacing": E("np.spacing({x}) + {x}", "nz"),
    "numpy.modf": E("np.modf({x})[0] * np.modf({x})[1]", "frac"),
    "numpy.frexp": E("np.frexp({x})[0]", "nz"),
    "numpy.ldexp": E("np.ldexp({x}, 3)"),
    "numpy.ldexp.outer": E("np.ldexp.outer({x}, np.array([1, -2]))"),
    "numpy.heaviside": E("np.heaviside({x}, {y}) * {x}", "nz", "any"),
    "numpy.heaviside.outer": E("np.heaviside.outer({x}, {y}) * {x}[:, :, None]", "nz", "any"),
    # ---- binary elementwise (y broadcasts against x)
    "numpy.add": E("np.add({x}, {y}) * {x}", "any", "any"),
    "numpy.subtract": E("np.subtract({x}, {y}) * {x}", "any", "any"),
    "numpy.multiply": E("np.multiply({x}, {y})", "any", "any"),
    "numpy.divide": E("np.divide({x}, {y})", "any", "pos"),
    "numpy.power": E("np.power({x}, {y})", "pos", "any"),
    "builtins.pow": E("pow({x}, {y})", "pos", "any"),
    "_operator.pow": E("operator.pow({x}, {y})", "pos", "any"),
    "numpy.float_power": E("np.float_power({x}, {y})", "pos", "any"),
    "numpy.maximum": E("np.maximum({x}, {y})", "spread", "spread"),
    "numpy.minimum": E("np.minimum({x}, {y})", "spread", "spread"),
    "numpy.fmax": E("np.fmax({x}, {y})", "spread", "spread"),
    "numpy.fmin": E("np.fmin({x}, {y})", "spread", "spread"),
    "numpy.hypot": E("np.hypot({x}, {y})", "any", "nz"),
    "numpy.arctan2": E("np.arctan2({x}, {y})", "any", "nz"),
    "numpy.logaddexp": E("np.logaddexp({x}, {y})", "any", "any"),
    "numpy.logaddexp2": E("np.logaddexp2({x}, {y})", "any", "any"),
    "numpy.copysign": E("np.copysign({x}, {y})", "nz", "nz"),
    "numpy.fmod": E("np.fmod({x}, {y})", "frac", "gt1"),
    "numpy.remainder": E("np.remainder({x}, {y})", "frac", "gt1"),
    "numpy.floor_divide": E("np.floor_divide({x}, {y}) * {x}", "frac", "gt1"),
    "numpy.divmod": E("np.divmod({x}, {y})[1] * np.divmod({x}, {y})[0]", "frac", "gt1"),
    "builtins.divmod": E("divmod({x}, {y})[1]", "frac", "gt1"),
    "numpy.nextafter": E("np.nextafter({x}, {y}) * {y}", "nz", "nz"),
    "numpy.where": E("np.where({x} > 0, {x} * {y}, np.sin({x}))", "nz", "any"),
    "numpy.clip": E("np.clip({x}, -0.5, {y})", "nz", "spread"),
    "ndarray.clip": E("{x}.clip(-0.5, 0.5)", "nz"),
    # ---- reductions and scans
    "numpy.sum": E("np.sum({x}, axis=0) * {y}", "any", "any"),
    "ndarray.sum": E("{x}.sum(axis=1)"),
    "builtins.sum": E("sum({x}) * {y}", "any", "any"),
    "numpy.nansum": E("np.nansum({x} * {x}, axis=1)"),
    "numpy.mean": E("np.mean({x} * {x}, axis=1)"),
    "ndarray.mean": E("{x}.mean() * {x}"),
    "numpy.nanmean": E("np.nanmean({x} * {x}, axis=0)"),
    "numpy.average": E("np.average({x}, axis=1, weights={y})", "any", "pos"),
    "numpy.prod": E("np.prod({x}, axis=0)", "nz"),
    "ndarray.prod": E("{x}.prod(axis=1)", "nz"),
    "numpy.cumsum": E("np.cumsum({x}, axis=1)"),
    "ndarray.cumsum": E("{x}.cumsum()"),
    "numpy.cumprod": E("np.cumprod({x}, axis=1)", "nz"),
    "ndarray.cumprod": E("{x}.cumprod()", "nz"),
    "numpy.max": E("np.max({x}, axis=1)", "spread"),
    "numpy.amax": E("np.amax({x})", "spread"),
    "ndarray.max": E("{x}.max(axis=0)", "spread"),
    "numpy.min": E("np.min({x}, axis=0)", "spread"),
    "numpy.amin": E("np.amin({x})", "spread"),
    "ndarray.min": E("{x}.min(axis=1)", "spread"),
    "builtins.max": E("max(np.sum({x}), np.sum({y}) * 7.0)", "pos", "pos"),
    "builtins.min": E("min(np.sum({x}), np.sum({y}) * 7.0)", "pos", "pos"),
    "numpy.ptp": E("np.ptp({x}, axis=1)", "spread"),
    "numpy.std": E("np.std({x}, axis=0)", "spread"),
    "ndarray.std": E("{x}.std()", "spread"),
    "numpy.var": E("np.var({x}, axis=1)", "spread"),
    "ndarray.var": E("{x}.var(axis=0)", "spread"),
    "numpy.median": E("np.median({x}, axis=0)", "spread"),
    "numpy.percentile": E("np.percentile({x}, 30.0, axis=1)", "spread"),
    "numpy.quantile": E("np.quantile({x}, 0.7)", "spread"),
    "numpy.nanquantile": E("np.nanquantile({x}, 0.2, axis=0) + np.nanquantile({x}, 0.7)",
                           "spread"),
    "numpy.nanpercentile": E("np.nanpercentile({x}, 30.0, axis=1)", "spread"),
    "numpy.nanmedian": E("np.nanmedian({x}, axis=0) + np.nanmedian({x})", "spread"),
    "numpy.diff": E("np.diff({x}, axis=1) * {x}[:, 1:]"),
    "numpy.trace": E("np.trace({x}) * {x}"),
    "ndarray.trace": E("{x}.trace() * {x}"),
    "numpy.norm": E("np.linalg.norm({x}, axis=1)", "nz"),
    "numpy.vector_norm": E("np.linalg.vector_norm({x}, axis=0)", "nz"),
    "numpy.matrix_norm": E("np.linalg.matrix_norm({x})", "nz"),
    # (xp made at run time: a constant xp crashes constant folding today, issue 19 item 4.)
    "numpy.interp": E("np.interp({x}, np.sort({y}[1:]) * 1.5, {y}[:3])", "any", "spread"),
    # ---- linear algebra
    "numpy.dot": E("np.dot({x}, {y})", "any", "any"),
    "ndarray.dot": E("{x}.dot({x}.T)"),
    "numpy.matmul": E("np.matmul({x}, {x}.T) + {y}[0]", "any", "any"),
    "numpy.inner": E("np.inner({x}, {y})", "any", "any"),
    "numpy.outer": E("np.outer({x}[0], {y})", "any", "any"),
    "numpy.vdot": E("np.vdot({x}, {x} * {y})", "any", "any"),
    "numpy.vecdot": E("np.vecdot({x}, {y})", "any", "any"),
    "numpy.einsum": E("np.einsum('ij,j,kj->ik', {x}, {y}, {x})", "any", "any"),
    "numpy.tensordot": E("np.tensordot({x}, {x}, axes=([1], [1]))"),
    "numpy.kron": E("np.kron({y}, {x}[0])", "any", "any"),
    "numpy.cross": E("np.cross({x}[:, :3], {y}[:3])", "any", "any"),
    "numpy.diagonal": E("np.diagonal({x}) * {x}[0, :3]"),
    "ndarray.diagonal": E("{x}.diagonal(1) * {x}[0, :3]"),
    "numpy.matrix_transpose": E("np.matrix_transpose({x}) * {y}[:, None]", "any", "any"),
    # ---- shape and data movement
    "numpy.reshape": E("np.reshape({x}, (4, 3)) * {x}.T"),
    "ndarray.reshape": E("{x}.reshape(2, 6)"),
    "numpy.ravel": E("np.ravel({x}) * np.ravel({x}.T)"),
    "ndarray.ravel": E("{x}.T.ravel()"),
    "ndarray.flatten": E("{x}.flatten() * {x}.T.flatten()"),
    "numpy.transpose": E("np.transpose({x}) * {y}[:, None]", "any", "any"),
    "ndarray.transpose": E("{x}.transpose() * {y}[:, None]", "any", "any"),
    "numpy.swapaxes": E("np.swapaxes({x}, 0, 1) * {y}[:, None]", "any", "any"),
    "ndarray.swapaxes": E("{x}.swapaxes(0, 1) * {y}[:, None]", "any", "any"),
    "numpy.moveaxis": E("np.moveaxis({x}, 0, -1) * {y}[:, None]", "any", "any"),
    "numpy.rollaxis": E("np.rollaxis({x}, 1) * {y}[:, None]", "any", "any"),
    "numpy.expand_dims": E("np.expand_dims({x}, 1) * {x}"),
    "numpy.squeeze": E("np.squeeze(np.expand_dims({x}, 0), axis=0) * {y}", "any", "any"),
    "ndarray.squeeze": E("{x}[:, :1].squeeze(1) * {x}[:, 1]"),
    "numpy.broadcast_to": E("np.broadcast_to({y}, (3, 4)) * {x}", "any", "any"),
    "numpy.broadcast_arrays": E("np.broadcast_arrays({x}, {y})[1] * {x}", "any", "any"),
    "numpy.atleast_1d": E("np.atleast_1d({x}) * {y}", "any", "any"),
    "numpy.atleast_2d": E("np.atleast_2d({y}) * {x}", "any", "any"),
    "numpy.atleast_3d": E("np.atleast_3d({x})[:, :, 0] * {y}", "any", "any"),
    "numpy.concatenate": E("np.concatenate([{x}, {x} * {y}], axis=0)", "any", "any"),
    "numpy.stack": E("np.stack([{x}, np.sin({x})], axis=1)"),
    "numpy.vstack": E("np.vstack([{x}, {y}]) * {y}", "any", "any"),
    "numpy.hstack": E("np.hstack([{x}, {x} * {x}])"),
    "numpy.dstack": E("np.dstack([{x}, {x} * {x}])"),
    "numpy.column_stack": E("np.column_stack([{x}, np.sin({x}[:, 0])])"),
    "numpy.split": E("np.split({x}, 2, axis=1)[1] * np.split({x}, 2, axis=1)[0]"),
    "numpy.array_split": E("np.array_split({x}, 3, axis=1)[0] * {x}[:, 3:]"),
    "numpy.hsplit": E("np.hsplit({x}, 2)[1] * {x}[:, :2]"),
    "numpy.vsplit": E("np.vsplit({x}, 3)[1] * {x}[2]"),
    "numpy.dsplit": E("np.dsplit(np.atleast_3d({x}), 1)[0][:, :, 0] * {x}"),
    "numpy.flip": E("np.flip({x}, axis=1) * {x}"),
    "numpy.fliplr": E("np.fliplr({x}) * {x}"),
    "numpy.flipud": E("np.flipud({x}) * {x}"),
    "numpy.roll": E("np.roll({x}, 1, axis=1) * {x}"),
    "numpy.tile": E("np.tile({y}, (2, 1)) * {x}[:2]", "any", "any"),
    "numpy.repeat": E("np.repeat({x}, 2, axis=0)"),
    "ndarray.repeat": E("{x}.repeat(2, axis=1)"),
    "numpy.pad": E("np.pad({x}, 1) * np.pad({x}, 1, mode='edge')"),
    "numpy.take": E("np.take({x}, [2, 0, 2], axis=1)"),
    "ndarray.take": E("{x}.take([3, 1, 1])"),
    "numpy.take_along_axis": E("np.take_along_axis({x}, np.argsort({x}, axis=1), axis=1)",
                               "spread"),
    "numpy.compress": E("np.compress([True, False, True], {x}, axis=0) * {y}", "any", "any"),
    "ndarray.compress": E("{x}.compress([False, True, True, False], axis=1)"),
    "numpy.extract": E("np.extract({x} > 0, {x}) ** 2", "nz"),
    "numpy.diag": E("np.diag({y})[:, :3] * np.diag({x})", "any", "any"),
    "numpy.tril": E("np.tril({x}) * {x}"),
    "numpy.triu": E("np.triu({x}, 1) * {x}"),
    "numpy.meshgrid": E("np.meshgrid({y}, {x}[0])[0] * np.meshgrid({y}, {x}[0])[1]", "any",
                        "any"),
    "numpy.sort": E("np.sort({x}, axis=1) * {y}", "spread", "any"),
    "numpy.unique": E("np.unique({x}) ** 2", "spread"),
    "numpy.copy": E("np.copy({x}) * {x}"),
    "ndarray.copy": E("{x}.copy() * {x}"),
    "numpy.array": E("np.array({x}) * {x}"),
    "numpy.asarray": E("np.asarray({x}) * {x}"),
    "numpy.asanyarray": E("np.asanyarray({x}) * {x}"),
    "numpy.ascontiguousarray": E("np.ascontiguousarray({x}) * {x}"),
    "numpy.astype": E("np.astype({x}, np.float64) * {x}"),
    "ndarray.astype": E("{x}.astype(np.float64) * {x}"),
    "builtins.float": E("float(np.sum({x})) * {x}"),
    "numpy.full": E("np.full((2, 3), np.sum({y})) * {x}[:2, :3]", "any", "any"),
    "numpy.full_like": E("np.full_like({x}, np.sum({y})) * {x}", "any", "any"),
    "numpy.zeros_like": E("np.zeros_like({x}) + {x}"),
    "numpy.ones_like": E("np.ones_like({x}) * {x}"),
    "numpy.empty_like": Entry("z = np.empty_like({x})\nz[...] = {x} * 2.0\ne = z"),
    "numpy.linspace": E("np.linspace(np.sum({y}), 2.0, 5)", "any", "any"),
    # ---- math (Python floats: the mean of x)
    "math.sin": E("math.sin(np.mean({x})) * {x}"),
    "math.cos": E("math.cos(np.mean({x})) * {x}"),
    "math.tan": E("math.tan(np.mean({x})) * {x}"),
    "math.asin": E("math.asin(np.mean({x})) * {x}", "unit"),
    "math.acos": E("math.acos(np.mean({x})) * {x}", "unit"),
    "math.atan": E("math.atan(np.mean({x})) * {x}"),
    "math.atan2": E("math.atan2(np.mean({x}), np.sum({y})) * {x}", "any", "pos"),
    "math.sinh": E("math.sinh(np.mean({x})) * {x}"),
    "math.cosh": E("math.cosh(np.mean({x})) * {x}"),
    "math.tanh": E("math.tanh(np.mean({x})) * {x}"),
    "math.asinh": E("math.asinh(np.mean({x})) * {x}"),
    "math.acosh": E("math.acosh(np.mean({x})) * {x}", "gt1"),
    "math.atanh": E("math.atanh(np.mean({x})) * {x}", "unit"),
    "math.exp": E("math.exp(np.mean({x})) * {x}"),
    "math.expm1": E("math.expm1(np.mean({x})) * {x}"),
    "math.log": E("math.log(np.mean({x})) * {x}", "pos"),
    "math.log2": E("math.log2(np.mean({x})) * {x}", "pos"),
    "math.log10": E("math.log10(np.mean({x})) * {x}", "pos"),
    "math.log1p": E("math.log1p(np.mean({x})) * {x}", "unit"),
    "math.sqrt": E("math.sqrt(np.mean({x})) * {x}", "pos"),
    "math.fabs": E("math.fabs(np.sum({x})) * {x}", "pos"),
    "math.degrees": E("math.degrees(np.mean({x})) * {x}"),
    "math.radians": E("math.radians(np.mean({x})) * {x}"),
    "math.hypot": E("math.hypot(np.mean({x}), np.sum({y})) * {x}", "any", "pos"),
    "math.copysign": E("math.copysign(np.sum({x}), np.sum({y})) * {x}", "pos", "nz"),
    "math.fmod": E("math.fmod(np.sum({x}), 0.7) * {x}", "pos"),
    "math.pow": E("math.pow(np.mean({x}), np.mean({y})) * {x}", "pos", "any"),
}

# Binary ufuncs' .outer: the same rules, broadcast to (3, 4, 4).
for _name, _dx, _dy in (("add", "any", "any"), ("subtract", "any", "any"),
                        ("multiply", "any", "any"), ("divide", "any", "pos"),
                        ("power", "pos", "any"), ("float_power", "pos", "any"),
                        ("maximum", "spread", "spread"), ("minimum", "spread", "spread"),
                        ("fmax", "spread", "spread"), ("fmin", "spread", "spread"),
                        ("hypot", "any", "nz"), ("arctan2", "any", "nz"),
                        ("logaddexp", "any", "any"), ("logaddexp2", "any", "any"),
                        ("copysign", "nz", "nz"), ("fmod", "frac", "gt1"),
                        ("remainder", "frac", "gt1"), ("floor_divide", "frac", "gt1"),
                        ("nextafter", "nz", "nz")):
    TABLE[f"numpy.{_name}.outer"] = E(f"np.{_name}.outer({{x}}, {{y}}) * {{x}}[:, :, None]",
                                      _dx, _dy)
TABLE["numpy.divmod.outer"] = E("np.divmod.outer({x}, {y})[1] * {x}[:, :, None]", "frac", "gt1")
TABLE["numpy.add.outer"] = E("np.add.outer({x}, {y}) * {x}[:, :, None]", "any", "any")
TABLE["numpy.append"] = E("np.append({x}, {y}) * np.append({y}, {x})", "any", "any")
TABLE["numpy.delete"] = E("np.delete({x}, 1, axis=1) ** 2")
TABLE["numpy.insert"] = E("np.insert({x}, 1, {y}[:3], axis=1) ** 2", "any", "any")
TABLE["numpy.partition"] = E("np.partition({x}, 2, axis=1) * {y}", "spread", "any")
TABLE["numpy.maximum.accumulate"] = E("np.maximum.accumulate({x}, axis=1) * {y}", "spread", "any")
TABLE["numpy.minimum.accumulate"] = E("np.minimum.accumulate({x}, axis=1) * {y}", "spread", "any")
# numpy_calls/science
TABLE["numpy.convolve"] = E("np.convolve({x}[0], {y}, 'same') * {y}", "any", "any")
TABLE["numpy.correlate"] = E("np.correlate({x}[1], {y}, 'full')", "any", "any")
TABLE["numpy.polyval"] = E("np.polyval({y}, {x})", "any", "any")
TABLE["numpy.polyfit"] = E("np.polyfit({y}, {x}[0], 2)", "any", "spread")
TABLE["numpy.vander"] = E("np.vander({x}[0], 3)")
TABLE["numpy.polyder"] = E("np.polyder({x}[0]) * {x}[1, :3]")
TABLE["numpy.polyint"] = E("np.polyint({x}[0], 2) ** 2")
TABLE["numpy.polyadd"] = E("np.polyadd({x}[0], {x}[1, :2]) ** 2")
TABLE["numpy.polysub"] = E("np.polysub({x}[1, :2], {x}[0]) ** 2")
TABLE["numpy.polymul"] = E("np.polymul({x}[0], {y})", "nz", "nz")
TABLE["numpy.gradient"] = E("np.gradient({x}, axis=1, edge_order=2) * {x}")
TABLE["numpy.ediff1d"] = E("np.ediff1d({x}) ** 2")
TABLE["numpy.trapezoid"] = E("np.trapezoid({x} ** 2, {y})", "any", "any")
TABLE["numpy.cov"] = E("np.cov({x}) * 2.0")
TABLE["numpy.corrcoef"] = E("np.corrcoef({x}) * 2.0", "spread")
TABLE["numpy.histogram_bin_edges"] = E("np.histogram_bin_edges({x}, 4) ** 2", "spread")
TABLE["numpy.fill_diagonal"] = Entry(
    "b = {x} * 1.0\nnp.fill_diagonal(b, {y}[:2])\ne = b ** 2", "any", "any")
TABLE["numpy.union1d"] = E("np.union1d({x}, {y}) ** 2", "spread", "spread")
TABLE["numpy.intersect1d"] = E("np.intersect1d({x}, {x}[1]) ** 2", "spread")
TABLE["numpy.setdiff1d"] = E("np.setdiff1d({x}, {x}[1]) ** 2", "spread")
TABLE["numpy.setxor1d"] = E("np.setxor1d({x}, {x}[1, :2]) ** 2", "spread")
TABLE["numpy.lib.stride_tricks.sliding_window_view"] = E(
    "np.lib.stride_tricks.sliding_window_view({x}, 2, axis=1) ** 2")

_INT = "integer or boolean result"
_CONST = "no float input: a constant"
NOT_DIFFERENTIABLE: dict[str, str] = {
    **{n: _INT for n in (
        "builtins.bool", "builtins.int", "builtins.len", "builtins.round", "builtins.range",
        "math.ceil", "math.floor", "math.trunc", "math.isfinite", "math.isinf", "math.isnan",
        "ndarray.all", "ndarray.any", "ndarray.argmax", "ndarray.argmin", "ndarray.argsort",
        "ndarray.nonzero", "ndarray.searchsorted", "numpy.all", "numpy.any", "numpy.allclose",
        "numpy.argmax", "numpy.argmin", "numpy.argsort", "numpy.argwhere", "numpy.array_equal",
        "numpy.array_equiv",
        "numpy.bincount", "numpy.count_nonzero", "numpy.flatnonzero", "numpy.isclose",
        "numpy.isfinite", "numpy.isin", "numpy.isinf", "numpy.isnan", "numpy.isneginf",
        "numpy.isposinf", "numpy.lexsort", "numpy.logical_not", "numpy.ndim",
        "numpy.nonzero", "numpy.searchsorted", "numpy.shape", "numpy.signbit", "numpy.size",
        "numpy.invert", "numpy.bitwise_count", "numpy.argpartition", "ndarray.argpartition",
        "numpy.digitize", "numpy.diag_indices", "numpy.diag_indices_from",
        "numpy.tril_indices", "numpy.triu_indices", "numpy.tril_indices_from",
        "numpy.triu_indices_from")},
    "numpy.histogram": "integer counts (density=True is piecewise constant in the data; the "
                       "edges are checked through numpy.histogram_bin_edges)",
    "numpy.histogram2d": "counts (piecewise constant in the data); its edges, np.linspace of "
                         "the data's min and max, are not gradient-checked here",
    **{n: "a dtype query answered at conversion time" for n in (
        "numpy.can_cast", "numpy.dtype", "numpy.finfo", "numpy.iinfo", "numpy.issubdtype",
        "numpy.promote_types", "numpy.result_type")},
    "ndarray.sort": "refused (sorts in place; the message says to write np.sort, in the table)",
    "ndarray.partition": "refused (partitions in place; the message says to write np.partition)",
    "math.erf": "static Python floats only (refused on array values)",
    **{f"numpy.{n}{o}": _INT for n in (
        "bitwise_and", "bitwise_or", "bitwise_xor", "equal", "not_equal", "greater",
        "greater_equal", "less", "less_equal", "logical_and", "logical_or", "logical_xor",
        "gcd", "lcm", "left_shift", "right_shift") for o in ("", ".outer")},
    **{n: _CONST for n in (
        "numpy.arange", "numpy.empty", "numpy.eye", "numpy.identity", "numpy.indices",
        "numpy.ones", "numpy.zeros", "numpy.tri")},
}


# Entries smooth where x (and y, when the flag says so) holds exact zeros, checked with zeros
# written by item assignment (issue 19: arctan2 gave NaN on a freshly item-assigned zero).
ZEROS: dict[str, tuple[bool, bool]] = {
    **{f"numpy.{n}": (True, False) for n in (
        "sin", "cos", "tan", "arcsin", "arccos", "arctan", "sinh", "cosh", "tanh", "arcsinh",
        "arctanh", "exp", "exp2", "expm1", "log1p", "sinc", "square", "negative", "degrees",
        "radians", "nan_to_num", "cumprod", "prod")},
    "numpy.arctan2": (True, True), "numpy.hypot": (True, False),
    "numpy.logaddexp": (True, True), "numpy.logaddexp2": (True, True),
    "numpy.multiply": (True, True), "numpy.divide": (True, False),
    "numpy.arctan2.outer": (True, True), "numpy.hypot.outer": (True, False),
    "math.atan2": (True, False), "math.sin": (True, False), "math.tanh": (True, False),
}

# ---- issue 16: the nan family, ufunc methods, windows, selection, arrangement, series
TABLE.update({
    "numpy.nanprod": E("np.nanprod({x}, axis=1)", "nz"),
    "numpy.nanmax": E("np.nanmax({x}, axis=1) * 2.0", "spread"),
    "numpy.nanmin": E("np.nanmin({x}, axis=0, initial=5.0)", "spread"),
    "numpy.nanvar": E("np.nanvar({x}, axis=1, ddof=1)"),
    "numpy.nanstd": E("np.nanstd({x}, axis=0)", "spread"),
    "numpy.nancumsum": E("np.nancumsum({x}, axis=1) * {x}"),
    "numpy.nancumprod": E("np.nancumprod({x}, axis=0)", "nz"),
    "numpy.add.reduce": E("np.add.reduce({x} * {x}, axis=1, where={x} > 0)"),
    "numpy.multiply.reduce": E("np.multiply.reduce({x})", "nz"),
    "numpy.maximum.reduce": E("np.maximum.reduce({x}, axis=1)", "spread"),
    "numpy.minimum.reduce": E("np.minimum.reduce({x})", "spread"),
    "numpy.fmax.reduce": E("np.fmax.reduce({x}, axis=1)", "spread"),
    "numpy.fmin.reduce": E("np.fmin.reduce({x})", "spread"),
    "numpy.add.accumulate": E("np.add.accumulate({x}, axis=1) * {x}"),
    "numpy.multiply.accumulate": E("np.multiply.accumulate({x})", "nz"),
    "numpy.kaiser": E("np.kaiser(5, 3.0 + {x}[0, 0]) * {x}[1, 1]"),
    "numpy.i0": E("np.i0({x} * 10.0)"),
    "numpy.select": E("np.select([{x} > 0.2, {x} < -0.2], [{x} * 2.0, {y}], default={x})",
                      "frac", "any"),
    "numpy.choose": E("np.choose(np.array([0, 1, 0, 1]), [{x}, {x} * {y}])", "any", "any"),
    "ndarray.choose": E("np.array([1, 0, 0, 1]).choose([{x}, {x} * {y}])", "any", "any"),
    "numpy.rot90": E("np.rot90({x}) * {x}.T"),
    "numpy.row_stack": E("np.row_stack([{x}, {y}]) ** 2", "any", "any"),
    "numpy.block": E("np.block([[{x}, {x}], [{x} * {x}, {x}]])"),
    "numpy.resize": E("np.resize({x}, (5, 3)) ** 2"),
    "numpy.cumulative_sum": E("np.cumulative_sum({x}, axis=1, include_initial=True) ** 2"),
    "numpy.cumulative_prod": E("np.cumulative_prod({x}, axis=0)", "nz"),
    "numpy.ediff1d": E("np.ediff1d({x}, to_begin={y}[:1]) ** 2", "any", "any"),
    "numpy.trapezoid": E("np.trapezoid({x} * {x}, {y})", "any", "spread"),
    "numpy.unwrap": E("np.unwrap({x} * 4.0, axis=0) ** 2", "frac"),
    "numpy.trim_zeros": E("np.trim_zeros({y}) ** 2", "any", "nz"),
    "numpy.logspace": E("np.logspace({x}[0, 0], {x}[1, 1], 5)"),
    "numpy.geomspace": E("np.geomspace({x}[0, 0], {x}[1, 1] + 3.0, 4)", "pos"),
    "numpy.matvec": E("np.matvec({x}, {y}) ** 2", "any", "any"),
    "numpy.vecmat": E("np.vecmat({y}[:3], {x}) ** 2", "any", "any"),
    "numpy.diagflat": E("np.diagflat({y}) * 3.0", "any", "any"),
    "numpy.vander": E("np.vander({y}, 3)", "any", "any"),
    "numpy.fromfunction": E("np.fromfunction(lambda i, j: i * {x}[0, 0] + j * {x}, (3, 4))"),
    "numpy.apply_over_axes": E("np.apply_over_axes(np.sum, {x} * {x}, [0])"),
    "numpy.asarray_chkfinite": E("np.asarray_chkfinite({x}) ** 2"),
    "numpy.asfortranarray": E("np.asfortranarray({x}) ** 2"),
    "numpy.require": E("np.require({x}, requirements='C') ** 2"),
    "ndarray.view": E("{x}.view() ** 2"),
    "ndarray.to_device": E("{x}.to_device('cpu') ** 2"),
    "ndarray.item": E("{x}[1:2, 2:3].item() * {x}"),
})
NOT_DIFFERENTIABLE.update({
    **{n: _INT for n in (
        "numpy.nanargmax", "numpy.nanargmin", "numpy.logical_or.reduce",
        "numpy.logical_and.reduce", "numpy.logical_xor.reduce", "numpy.logical_or.accumulate",
        "numpy.logical_and.accumulate", "numpy.tril_indices", "numpy.triu_indices",
        "numpy.tril_indices_from", "numpy.triu_indices_from", "numpy.diag_indices",
        "numpy.diag_indices_from", "numpy.ix_", "numpy.unravel_index",
        "numpy.ravel_multi_index", "numpy.mask_indices", "numpy.packbits", "numpy.unpackbits",
        "numpy.broadcast_shapes")},
    **{n: "a dtype query answered at conversion time" for n in (
        "numpy.isdtype", "numpy.common_type", "numpy.min_scalar_type", "numpy.isscalar",
        "numpy.iterable")},
    **{n: "a window of an integer length: a constant" for n in (
        "numpy.hanning", "numpy.hamming", "numpy.blackman", "numpy.bartlett")},
    "numpy.unstack": "needs the axis length at conversion time (static shapes); its rows are "
                     "basic indexing, checked as such",
    "ndarray.tolist": "a run-time list: sequences are refused on the gradient path (README)",
})

# issue 16: the LU/Cholesky family (pivots fixed near a well-conditioned matrix), matrix
# products in numpy's order, polynomials from roots, long division and poly1d objects
_SPD = "({x} @ {x}.T + 3.0 * np.eye(3))"
_DOM = "({x}[:, :3] + 3.0 * np.eye(3))"
TABLE.update({
    "numpy.det": E(f"np.linalg.det({_SPD})"),
    "numpy.slogdet": E(f"np.linalg.slogdet({_SPD})[1]"),
    "numpy.inv": E(f"np.linalg.inv({_DOM})"),
    "numpy.solve": E(f"np.linalg.solve({_DOM}, {{x}}[:, 3])"),
    "numpy.cholesky": E(f"np.linalg.cholesky({_SPD})"),
    "numpy.tensorinv": E(f"np.linalg.tensorinv({_DOM}, ind=1)"),
    "numpy.tensorsolve": E(f"np.linalg.tensorsolve({_DOM}, {{y}}[:3])", "any", "any"),
    "numpy.matrix_power": E("np.linalg.matrix_power({x}[:, :3], 3)"),
    "numpy.multi_dot": E("np.linalg.multi_dot([{x}, {x}.T, {x}])"),
    "numpy.poly": E("np.poly({x}[0])"),
    "numpy.polydiv": E("np.polydiv({x}[0], {y}[:2])[0]", "any", "nz"),
    "numpy.poly1d": E("np.poly1d({x}[0])({y}) + np.poly1d({x}[1]).deriv()({y})", "nz", "any"),
})
