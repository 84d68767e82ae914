"""A model as a readable listing grouped by Python source line: text, HTML (Jupyter), dot.

Input: an ``onnx.ModelProto`` made by pyonnx (each node's ``doc_string`` is
``file:line:col: source``). Output: :class:`Listing`, whose ``text()``, ``html()`` and
``dot()`` show the inputs and outputs (dtype and dimensions, symbolic names kept), then each
source line followed by the nodes it made; ``Loop`` and ``If`` bodies nested (collapsible in
HTML). ``CompiledFunction.show(*args)`` and ``_repr_html_`` (a compiled function displayed in a
notebook) return one; ``pyonnx show --format text|html|dot`` prints one.
"""

from __future__ import annotations

import html
import re
from typing import Any

__all__ = ["Listing"]

_DOC_RE = re.compile(r"^(.*):(\d+):(\d+): (.*)$", re.S)


class Listing:
    """The listing of one model (see the module docstring)."""

    def __init__(self, model: Any, title: str = ""):
        self.model = model
        self.title = title or model.graph.name

    # ------------------------------------------------------------------ text
    def text(self) -> str:
        g = self.model.graph
        out = [f"{self.title}({', '.join(_value(v) for v in g.input)})",
               f"  -> {', '.join(_value(v) for v in g.output)}"]
        _text_graph(g, out, "  ")
        return "\n".join(out)

    def __str__(self) -> str:
        return self.text()

    def __repr__(self) -> str:
        return self.text()

    # ------------------------------------------------------------------ html
    def html(self) -> str:
        g = self.model.graph
        e = html.escape
        parts = ['<div class="pyonnx-listing" style="font-family: monospace; font-size: 12px">',
                 f"<b>{e(self.title)}</b>(" + ", ".join(e(_value(v)) for v in g.input) + ")",
                 " &rarr; " + ", ".join(e(_value(v)) for v in g.output)]
        _html_graph(g, parts)
        parts.append("</div>")
        return "\n".join(parts)

    def _repr_html_(self) -> str:
        return self.html()

    # ------------------------------------------------------------------ dot
    def dot(self) -> str:
        """Graphviz source: the top-level graph; a Loop/If is one node naming its body size."""
        g = self.model.graph
        lines = [f'digraph "{_dot_escape(self.title)}" {{', "  rankdir=TB;",
                 '  node [shape=box, fontname="monospace", fontsize=10];']
        producer: dict[str, str] = {}
        for v in g.input:
            lines.append(f'  "in:{v.name}" [shape=ellipse, label="{_dot_escape(_value(v))}"];')
            producer[v.name] = f"in:{v.name}"
        for i, node in enumerate(g.node):
            line = _line_of(node)
            label = node.op_type + (f"\\nL{line[0]}" if line else "")
            bodies = [a for a in node.attribute if a.type == a.GRAPH]
            if bodies:
                label += f"\\n({sum(_count(a.g) for a in bodies)} nodes inside)"
            lines.append(f'  "n{i}" [label="{label}"];')
            for name in node.input:
                if name in producer:
                    lines.append(f'  "{producer[name]}" -> "n{i}";')
            for name in node.output:
                producer[name] = f"n{i}"
        for v in g.output:
            lines.append(f'  "out:{v.name}" [shape=ellipse, label="{_dot_escape(_value(v))}"];')
            if v.name in producer:
                lines.append(f'  "{producer[v.name]}" -> "out:{v.name}";')
        lines.append("}")
        return "\n".join(lines)


# ------------------------------------------------------------------ helpers
def _value(v: Any) -> str:
    """``name: float32[N,3]`` from a ValueInfoProto."""
    import onnx

    t = v.type.tensor_type
    if not v.type.HasField("tensor_type"):
        return f"{v.name}: {v.type.WhichOneof('value')}"
    dtype = onnx.helper.tensor_dtype_to_np_dtype(t.elem_type).name if t.elem_type else "?"
    if not t.HasField("shape"):
        return f"{v.name}: {dtype}[...]"
    dims = [d.dim_param if d.HasField("dim_param") else str(d.dim_value)
            if d.HasField("dim_value") else "?" for d in t.shape.dim]
    return f"{v.name}: {dtype}[{','.join(dims)}]"


def _line_of(node: Any) -> tuple[int, str] | None:
    m = _DOC_RE.match(node.doc_string or "")
    if m is None:
        return None
    return int(m.group(2)), m.group(4).strip()


def _groups(graph: Any) -> list[tuple[tuple[int, str] | None, list]]:
    """Consecutive nodes made by one source line, in graph order."""
    groups: list[tuple[tuple[int, str] | None, list]] = []
    for node in graph.node:
        line = _line_of(node)
        if groups and groups[-1][0] == line:
            groups[-1][1].append(node)
        else:
            groups.append((line, [node]))
    return groups


def _node_text(node: Any) -> str:
    import onnx

    attrs = []
    for a in node.attribute:
        if a.type in (a.GRAPH, a.GRAPHS):
            continue
        value = onnx.helper.get_attribute_value(a)
        if isinstance(value, bytes):
            value = value.decode(errors="replace")
        if hasattr(value, "dims"):  # a TensorProto (Constant)
            arr = onnx.numpy_helper.to_array(value)
            value = arr.tolist() if arr.size <= 8 else f"<{arr.dtype}{list(arr.shape)}>"
        attrs.append(f"{a.name}={value}")
    outs = ", ".join(node.output)
    call = f"{node.op_type}({', '.join(node.input)})"
    return f"{outs} = {call}" + (f"  {{{', '.join(attrs)}}}" if attrs else "")


def _bodies(node: Any) -> list[tuple[str, Any]]:
    out = []
    for a in node.attribute:
        if a.type == a.GRAPH:
            out.append((a.name, a.g))
        elif a.type == a.GRAPHS:
            out += [(f"{a.name}[{i}]", g) for i, g in enumerate(a.graphs)]
    return out


def _text_graph(graph: Any, out: list[str], indent: str) -> None:
    for line, nodes in _groups(graph):
        out.append(f"{indent}L{line[0]}: {line[1]}" if line else f"{indent}(no source line)")
        for node in nodes:
            out.append(f"{indent}    {_node_text(node)}")
            for name, body in _bodies(node):
                out.append(f"{indent}      {name}({', '.join(i.name for i in body.input)}) "
                           f"-> {', '.join(o.name for o in body.output)}:")
                _text_graph(body, out, indent + "        ")


def _html_graph(graph: Any, parts: list[str]) -> None:
    e = html.escape
    parts.append('<ul style="list-style: none; padding-left: 1.2em; margin: 0">')
    for line, nodes in _groups(graph):
        head = (f'<span style="color: #555">L{line[0]}:</span> <b>{e(line[1])}</b>' if line
                else '<span style="color: #555">(no source line)</span>')
        parts.append(f"<li>{head}<ul style=\"list-style: none; padding-left: 1.5em\">")
        for node in nodes:
            parts.append(f"<li>{e(_node_text(node))}")
            for name, body in _bodies(node):
                parts.append(f"<details open><summary>{e(node.op_type)} {e(name)} "
                             f"({_count(body)} nodes)</summary>")
                _html_graph(body, parts)
                parts.append("</details>")
            parts.append("</li>")
        parts.append("</ul></li>")
    parts.append("</ul>")


def _count(graph: Any) -> int:
    return sum(1 + sum(_count(g) for _, g in _bodies(n)) for n in graph.node)


def _dot_escape(text: str) -> str:
    return text.replace("\\", "\\\\").replace('"', '\\"')
