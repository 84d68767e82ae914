"""The generated numpy coverage table (tools/numpy_coverage.py, docs/numpy-coverage.md): it is
up to date, its rows follow the registry, and the README states its headline."""

from __future__ import annotations

import os
import re
import sys

import numpy as np
import pytest

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
sys.path.insert(0, os.path.join(ROOT, "tools"))

import numpy_coverage  # noqa: E402

from pyonnx.frontend.numpy_calls import registry  # noqa: E402


def _rows(text: str) -> dict[str, tuple[str, str]]:
    out = {}
    for line in text.splitlines():
        m = re.match(r"\| `([^`]+)` \| ([^|]+) \| (.*) \|$", line)
        if m:
            out[m.group(1)] = (m.group(2).strip(), m.group(3).strip())
    return out


def _generated_version(text: str) -> str:
    return re.search(r"\(numpy ([^)]+)\)", text).group(1)


def test_table_is_up_to_date():
    """Regenerate and compare: a registration, refusal or limit changed without rerunning
    ``python tools/numpy_coverage.py`` fails here. Under another numpy version than the table
    was made with (tools/test_versions.sh), numpy's own namespace differs, so the rows both
    versions have must agree instead."""
    with open(numpy_coverage.OUTPUT, encoding="utf-8") as f:
        checked_in = f.read()
    fresh = numpy_coverage.render()
    if _generated_version(checked_in) == np.__version__:
        assert fresh == checked_in, ("docs/numpy-coverage.md is stale: run "
                                     "python tools/numpy_coverage.py")
    else:
        old, new = _rows(checked_in), _rows(fresh)
        common = old.keys() & new.keys()
        assert common
        assert {k: old[k] for k in common} == {k: new[k] for k in common}


def test_readme_states_the_headline():
    with open(os.path.join(ROOT, "README.md"), encoding="utf-8") as f:
        readme = f.read()
    n, m, *_ = numpy_coverage.headline(numpy_coverage.sections())
    assert "docs/numpy-coverage.md" in readme
    assert f"{n} of {m} in-scope" in readme


def test_status_follows_the_registry():
    """A registered lowering makes a row yes, a missing parameter partly, a declared limit
    partly, a refusal no (out of scope when said so); nothing registered: no, not yet."""
    def lower(ctx, a, axis=None):
        return a

    def fake(a, axis=None, keepdims=False):
        return a

    entry = registry.CallEntry(lower, "fake", True, fake)
    row = numpy_coverage._entry_row("np.fake", entry, fake)
    assert (row.status, row.note) == ("partly", "not taken: `keepdims`")
    limited = registry.CallEntry(lower, "fake", True, fake, (("axis", "ints only"),))
    row = numpy_coverage._entry_row("np.fake", limited, lambda a, axis=None: a)
    assert (row.status, row.note) == ("partly", "`axis`: ints only")
    assert numpy_coverage.function_row("np.sum", np.sum).status in ("yes", "partly")
    assert numpy_coverage.function_row("np.load", np.load).status == "out"
    assert numpy_coverage.function_row("np.fft.fft", np.fft.fft).status == "yes"
    assert numpy_coverage.function_row("np.fft.hfft", np.fft.hfft).status == "yes"
    assert numpy_coverage.function_row("np.copyto", np.copyto).status == "yes"


def test_refusal_reason_is_the_conversion_error():
    """The reason the table gives is the one the call's ConversionError gives."""
    import pyonnx
    from pyonnx.errors import ConversionError

    def g(x):
        np.save("x.npy", x)
        return x

    with pytest.raises(ConversionError, match=r"np.save is not supported: files \(I/O\)"):
        pyonnx.compile(g)(np.zeros(4))


def test_fast():
    """The staleness test regenerates the table: it must stay cheap (CPU time: the shared
    machines' wall clock swings with their load)."""
    import time

    t = time.process_time()
    numpy_coverage.render()
    assert time.process_time() - t < 5
