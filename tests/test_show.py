"""f.show() / _repr_html_ / pyonnx show --format: the model grouped by Python source line."""

from __future__ import annotations

import os

import numpy as np
from click.testing import CliRunner

import pyonnx
from pyonnx.cli import main


def looping(x, n):
    acc = np.zeros_like(x)
    for i in range(n):
        if x.sum() > i:
            acc = acc + x * i
    return acc.mean(axis=0)


FIRST = looping.__code__.co_firstlineno


def test_text_groups_nodes_under_their_lines_with_bodies_nested():
    f = pyonnx.compile(looping)
    text = f.show(pyonnx.spec("float32", ("N", 3)), 4).text()
    lines = text.splitlines()
    assert lines[0] == "looping(x: float32[N,3], n: int64[])"
    assert f"  L{FIRST + 1}: acc = np.zeros_like(x)" in lines
    loop = next(i for i, s in enumerate(lines) if " = Loop(" in s)
    body = next(i for i, s in enumerate(lines) if s.strip().startswith("body("))
    if_line = next(i for i, s in enumerate(lines) if " = If(" in s)
    then = next(i for i, s in enumerate(lines) if f"L{FIRST + 4}: acc = acc + x * i" in s)
    assert loop < body < if_line < then
    # nested bodies are indented deeper than the Loop node
    indent = lambda s: len(s) - len(s.lstrip())  # noqa: E731
    assert indent(lines[then]) > indent(lines[if_line]) > indent(lines[loop])


def test_html_and_repr_html_after_a_call():
    f = pyonnx.compile(looping)
    assert "not called yet" in f._repr_html_()
    x = np.ones((2, 3))
    np.testing.assert_allclose(f(x, 3), looping(x, 3))
    page = f._repr_html_()
    assert page.startswith('<div class="pyonnx-listing"') and page.count("<details") == 3
    assert f"L{FIRST + 2}:" in page and "acc = acc + x * i" in page
    assert page == f.show().html()


def test_cli_formats(tmp_path):
    path = os.path.abspath(__file__)
    for fmt, want in (("text", f"L{FIRST + 5}: return acc.mean(axis=0)"), ("html", "<details"),
                      ("dot", "digraph")):
        r = CliRunner().invoke(main, ["show", f"{path}:looping", "--input", "x=float64[N]",
                                      "--input", "n=int64[]", "--format", fmt])
        assert r.exit_code == 0, r.output
        assert want in r.output
    dot = r.output
    assert dot.count("{") == dot.count("}") and "-> " in dot and '"out:' in dot
