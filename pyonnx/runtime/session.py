"""One onnxruntime session per (model, providers, options), and a lean call path.

A :class:`Session` is created from serialized model bytes. It tries the providers in order: a
provider that fails to create the session, or to run it, is dropped with one logged warning and
the next one is tried (CPU last). ``providers`` tells which one runs. Calls go straight to the
C++ session (``InferenceSession._sess.run``) with input and output names bound once, skipping the
Python wrapper's per-call validation; an onnxruntime failure is re-raised as
:class:`~pyonnx.errors.ExecutionError` naming the Python source line of the failing node (node
``doc_string``s carry ``file:line: source``).
"""

from __future__ import annotations

import collections
import hashlib
import logging
import re
from collections.abc import Sequence
from typing import Any

import onnx

from pyonnx.errors import ExecutionError, RuntimeFallbackError

__all__ = ["Session", "SessionCache"]

logger = logging.getLogger(__name__)


def _session_options():
    import onnxruntime as ort

    so = ort.SessionOptions()
    # Thousands of cached sessions each with its own thread pool cost seconds (FACTS.md); one
    # intra-op thread is as fast for small work on these machines.
    so.intra_op_num_threads = 1
    so.inter_op_num_threads = 1
    so.log_severity_level = 3
    return so


class Session:
    """A ready onnxruntime session with provider fallback.

    Args:
        model: the serialized model (bytes) or a ModelProto.
        providers: provider names to try, best first.

    Attributes:
        providers: the providers the session runs with now.
        input_names / output_names: in model order.
    """

    def __init__(self, model: bytes | onnx.ModelProto, providers: Sequence[str]):
        self._bytes = model if isinstance(model, bytes) else model.SerializeToString()
        self._proto: onnx.ModelProto | None = model if isinstance(model, onnx.ModelProto) else None
        self._candidates = list(providers) or ["CPUExecutionProvider"]
        self._create()

    def _create(self) -> None:
        import onnxruntime as ort

        errors = []
        while self._candidates:
            provider = self._candidates[0]
            try:
                sess = ort.InferenceSession(self._bytes, _session_options(), providers=[provider])
            except Exception as e:  # a provider that cannot take the model: try the next one
                errors.append(f"{provider}: {e}")
                if len(self._candidates) > 1:
                    logger.warning("onnxruntime provider %s failed to create the session (%s); "
                                   "falling back to %s", provider, _first_line(e),
                                   self._candidates[1])
                self._candidates.pop(0)
                continue
            self._sess = sess
            self.providers = tuple(sess.get_providers())
            self.input_names = [i.name for i in sess.get_inputs()]
            self.output_names = [o.name for o in sess.get_outputs()]
            self._run = sess._sess.run
            return
        raise RuntimeFallbackError("no execution provider could create a session:\n"
                                   + "\n".join(errors))

    def run(self, feeds: dict[str, Any]) -> list[Any]:
        """Runs the model on ``{input name: numpy array}``; returns the outputs in order.

        Raises:
            ExecutionError: onnxruntime failed on every provider; names the Python line.
        """
        try:
            return self._run(self.output_names, feeds, None)
        except Exception as e:
            return self._run_failed(e, feeds)

    def _run_failed(self, error: Exception, feeds: dict[str, Any]) -> list[Any]:
        if len(self._candidates) > 1:
            logger.warning("onnxruntime provider %s failed to run (%s); falling back to %s",
                           self._candidates[0], _first_line(error), self._candidates[1])
            self._candidates.pop(0)
            self._create()
            return self.run(feeds)
        raise ExecutionError(self._explain(error)) from None

    def _explain(self, error: Exception) -> str:
        text = str(error)
        where = ""
        proto = self._proto if self._proto is not None else onnx.load_from_string(self._bytes)
        docs = {n.name: n.doc_string for n in _all_nodes(proto.graph)}
        for name in re.findall(r"[\w.]+_L\d+_\w+?_\d+", text):
            if docs.get(name):
                where = docs[name]
                break
        if not where:
            m = re.search(r"_L(\d+)_", text)
            if m:
                where = f"line {m.group(1)}"
        prefix = f"{where}: " if where else ""
        return f"{prefix}onnxruntime failed while running the model: {text}"


def _all_nodes(graph: onnx.GraphProto):
    for node in graph.node:
        yield node
        for attr in node.attribute:
            if attr.type == onnx.AttributeProto.GRAPH:
                yield from _all_nodes(attr.g)
            elif attr.type == onnx.AttributeProto.GRAPHS:
                for g in attr.graphs:
                    yield from _all_nodes(g)


def _first_line(e: Exception) -> str:
    s = str(e).strip().splitlines()
    return s[0] if s else type(e).__name__


class SessionCache:
    """Sessions keyed by (sha256 of the model bytes, providers), least recently used evicted.

    Args:
        maxsize: sessions kept; past it the least recently used is dropped.
    """

    def __init__(self, maxsize: int = 256):
        self.maxsize = maxsize
        self._sessions: collections.OrderedDict[tuple, Session] = collections.OrderedDict()

    def get(self, model: bytes, providers: Sequence[str]) -> Session:
        key = (hashlib.sha256(model).hexdigest(), tuple(providers))
        sess = self._sessions.get(key)
        if sess is None:
            sess = Session(model, providers)
            self._sessions[key] = sess
            if len(self._sessions) > self.maxsize:
                self._sessions.popitem(last=False)
        else:
            self._sessions.move_to_end(key)
        return sess

    def __len__(self) -> int:
        return len(self._sessions)
