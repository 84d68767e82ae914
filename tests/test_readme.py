"""The README's quick start runs as written (pyonnx reads source, so it runs from a file)."""

from __future__ import annotations

import pathlib
import re
import runpy

README = pathlib.Path(__file__).resolve().parent.parent / "README.md"


def test_quick_start_runs(tmp_path):
    block = re.search(r"## Quick start\n\n```python\n(.*?)```", README.read_text(), re.S)
    assert block, "README.md has no Quick start python block"
    script = tmp_path / "quick_start.py"
    script.write_text(block.group(1))
    ns = runpy.run_path(str(script))
    y, x = ns["y"], ns["x"]
    assert y.shape == (x.shape[0], x.shape[1] + 1) and y.dtype == x.dtype
    assert [i.name for i in ns["model"].graph.input] == ["x", "counts"]


def test_first_command_names_an_existing_example():
    first = README.read_text().split("```bash", 1)[1].split("```", 1)[0]
    target = re.search(r"pyonnx convert (\S+):(\w+)", first)
    assert target and (README.parent / target.group(1)).exists()
    assert ".venv/bin/python -m pytest" in first
