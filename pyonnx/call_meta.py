"""A converted signature's call metadata as JSON: how the outputs pack into the Python result.

Input: the ``structure`` (``frontend.convert.OutputStructure``: "single", "tuple" or "none",
plus ``writeback`` and ``tree``) and the per-output scalar flags of one conversion. Output: a
JSON-able dict, and back a :class:`CallStructure` that ``call_path`` reads exactly as it reads
an ``OutputStructure`` (a ``str`` with ``writeback`` and ``tree``). Used by the disk cache and
by saved models (``pyonnx.save``), whose loading must not import the converter (onnx-ir).
"""

from __future__ import annotations

from typing import Any

__all__ = ["CallStructure", "to_json", "from_json"]

FORMAT = 1


class CallStructure(str):
    """"single", "tuple" or "none", with ``writeback`` (written array parameters, whose final
    values are the last outputs) and ``tree`` (the returned Python value's shape, or None)."""

    writeback: tuple[str, ...]
    tree: tuple | None
    contiguous: tuple[str, ...]  # parameters the call requires C-contiguous

    def __new__(cls, kind: str, writeback: tuple[str, ...] = (), tree: tuple | None = None,
                contiguous: tuple[str, ...] = ()):
        obj = super().__new__(cls, kind)
        obj.writeback = tuple(writeback)
        obj.tree = tree
        obj.contiguous = tuple(contiguous)
        return obj


def to_json(structure: str, scalars: tuple[bool, ...]) -> dict[str, Any]:
    """The metadata of one signature, JSON-able."""
    tree = getattr(structure, "tree", None)
    return {"format": FORMAT, "kind": str(structure),
            "writeback": list(getattr(structure, "writeback", ())),
            "tree": None if tree is None else _tree_out(tree), "scalars": list(scalars),
            "contiguous": list(getattr(structure, "contiguous", ()))}


def from_json(meta: dict[str, Any]) -> tuple[CallStructure, tuple[bool, ...]]:
    """(structure, scalars) back from :func:`to_json`'s dict.

    Raises:
        ValueError: not this format (the caller treats the entry as unusable).
    """
    if meta.get("format") != FORMAT or meta.get("kind") not in ("single", "tuple", "none"):
        raise ValueError("unknown call metadata format")
    tree = meta.get("tree")
    structure = CallStructure(meta["kind"], tuple(meta["writeback"]),
                              None if tree is None else _tree_in(tree),
                              tuple(meta.get("contiguous", ())))
    return structure, tuple(bool(s) for s in meta["scalars"])


def _tree_out(tree: tuple) -> list:
    kind = tree[0]
    if kind == "leaf":
        return ["leaf", int(tree[1]), bool(tree[2])]
    if kind == "const":
        v = tree[1]
        # JSON has no int/float/bool distinction strong enough: tag the Python type.
        return ["const", type(v).__name__, None if v is None else repr(v)]
    if kind == "dict":
        return ["dict", list(tree[1]), [_tree_out(c) for c in tree[2]]]
    if kind == "seq":
        return ["seq", int(tree[1]), str(tree[2])]
    if kind == "maybe":
        return ["maybe", int(tree[1]), _tree_out(tree[2])]
    if kind in ("pyleaf", "aleaf"):
        return [kind, int(tree[1]), int(tree[2])]
    return [kind, [_tree_out(c) for c in tree[1]]]


_CONSTS = {"NoneType": lambda r: None, "bool": lambda r: r == "True", "int": int, "float": float}


def _tree_in(tree: list) -> tuple:
    kind = tree[0]
    if kind == "leaf":
        return ("leaf", int(tree[1]), bool(tree[2]))
    if kind == "const":
        return ("const", _CONSTS[tree[1]](tree[2]))
    if kind == "dict":
        if not all(type(k) in (str, int) for k in tree[1]):
            raise ValueError("a result dict key is not a str or int")
        return ("dict", tuple(tree[1]), tuple(_tree_in(c) for c in tree[2]))
    if kind == "seq":
        return ("seq", int(tree[1]), str(tree[2]))
    if kind == "maybe":
        return ("maybe", int(tree[1]), _tree_in(tree[2]))
    if kind in ("pyleaf", "aleaf"):
        return (kind, int(tree[1]), int(tree[2]))
    if kind not in ("tuple", "list", "zip"):
        raise ValueError(f"unknown result tree node {kind!r}")
    return (kind, tuple(_tree_in(c) for c in tree[1]))
