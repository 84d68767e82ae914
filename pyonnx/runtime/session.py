"""One onnxruntime session per (model, providers, options), with provider fallback.

Input: serialized ``ModelProto`` bytes (this package never sees the frontend or the passes) and
the providers to try, best first (:func:`pyonnx.runtime.providers.resolve_providers`).
Output: a :class:`Session` whose ``_run`` is onnxruntime's C++ ``run`` (no Python wrapper
checks on the hot path) and whose failures are explained in terms of the user's source.

Fallback: a provider that is not in this onnxruntime build, fails to create the session, or
fails to run it is dropped with one logged warning and the next one is tried (CPU last).
onnxruntime's own fallback (``enable_fallback``) is turned off: it prints to stdout and would
hide from pyonnx which provider really runs. A run failure switches providers only when the next
provider then succeeds on the same inputs; when it fails too, the inputs (a shape mismatch, an
index out of range) are at fault and :class:`~pyonnx.errors.ExecutionError` is raised, naming the
Python line of the failing node (node names are ``f_L12_Mul_3``, node ``doc_string``s
``file:line:col: source``).
"""

from __future__ import annotations

import collections
import hashlib
import linecache
import logging
import re
import threading
from collections.abc import Sequence
from typing import TYPE_CHECKING, Any

from pyonnx.errors import ExecutionError, RuntimeFallbackError, numpy_execution_error
from pyonnx.loc import SourceLoc
from pyonnx.runtime import index_errors, threads
from pyonnx.runtime.providers import CPU

if TYPE_CHECKING:
    import onnx

__all__ = ["Session", "SessionCache"]

logger = logging.getLogger(__name__)

# (provider, what failed, first line of the error) already warned about in this process: a
# provider broken for every model (say, missing CUDA libraries) warns once, not per signature.
_WARNED: set[tuple[str, str, str]] = set()


def _warn_once(provider: str, what: str, detail: str, message: str, *args: Any) -> None:
    key = (provider, what, detail)
    if key in _WARNED:
        logger.debug(message, *args)
        return
    _WARNED.add(key)
    logger.warning(message, *args)


# onnxruntime graph rewrites that change results on graphs pyonnx emits (see _open).
_DISABLED_OPTIMIZERS = ["ExpandElimination", "DivMulFusion", "NoopElimination"]

def _session_options(options: tuple[tuple[str, Any], ...]):
    import onnxruntime as ort

    so = ort.SessionOptions()
    # Thousands of cached sessions each with its own thread pool cost seconds (FACTS.md): one
    # shared pool, or one thread per session (runtime/threads.py).
    threads.apply(so)
    # Fatal only: pyonnx raises onnxruntime's errors itself (with the source line); at the
    # default level onnxruntime also prints each failing kernel to stderr.
    so.log_severity_level = 4
    for name, value in options:
        if not hasattr(so, name):
            raise ValueError(f"onnxruntime.SessionOptions has no option {name!r}")
        setattr(so, name, value)
    if threads.uses_global_pool():
        # onnxruntime refuses a session with its own threads once the global pool exists.
        so.use_per_session_threads = False
    return so


class Session:
    """A ready onnxruntime session with provider fallback.

    Args:
        model: the serialized model (bytes) or a ModelProto.
        providers: full provider names to try, best first.
        options: ``(name, value)`` pairs set on ``onnxruntime.SessionOptions`` (after pyonnx's
            defaults: one intra-op thread, fatal-only logging).

    Attributes:
        providers: the providers the session runs with now (as onnxruntime reports them).
        input_names / output_names: in model order.

    Raises:
        RuntimeFallbackError: no provider could create a session for the model.
    """

    def __init__(self, model: bytes | onnx.ModelProto, providers: Sequence[str],
                 options: Sequence[tuple[str, Any]] = ()):
        import onnxruntime as ort

        # onnx is imported only to explain an error (not on the path of a cached model).
        self._bytes = model if isinstance(model, bytes) else model.SerializeToString()
        self._proto: onnx.ModelProto | None = None if isinstance(model, bytes) else model
        self.options = tuple(options)
        _session_options(self.options)  # a bad option is the caller's error, not a provider's
        self._lock = threading.Lock()
        available = set(ort.get_available_providers())
        candidates = []
        for p in providers:
            if p in available:
                candidates.append(p)
            else:
                _warn_once(p, "missing", "", "onnxruntime provider %s is not available in this "
                           "onnxruntime build (available: %s); skipping it", p,
                           ", ".join(sorted(available)))
        self._candidates = tuple(candidates) or (CPU,)
        self._index, self._sess = self._open(0)
        self._set_current()

    # ------------------------------------------------------------ creation
    def _open(self, start: int):
        """The first session that can be created from ``_candidates[start:]``, and its index."""
        import onnxruntime as ort

        errors = []
        for i in range(start, len(self._candidates)):
            chain = list(self._candidates[i:])
            try:
                # ExpandElimination (onnxruntime 1.31) drops an Expand whose constant target has
                # a 0 where the input's dimension is symbolic, giving wrong shapes and values.
                # DivMulFusion rewrites Mul(Div(1, b), c) as Div(c, b) for integers too, where
                # 1 // b is 0: Python's 1 % n (1 - (1 // n) * n) came out 0 for n = 3.
                # NoopElimination drops Add(x, 0), which turns numpy's -0.0 + 0 = +0.0 into
                # -0.0 (np.linspace(0, stop) with a negative step, seen through np.pad's
                # linear_ramp with static shapes).
                sess = ort.InferenceSession(self._bytes, _session_options(self.options),
                                            providers=chain, enable_fallback=0,
                                            disabled_optimizers=_DISABLED_OPTIMIZERS)
            except Exception as e:
                errors.append(e)
                if i + 1 < len(self._candidates):
                    first = _first_line(e)
                    _warn_once(chain[0], "create", first, "onnxruntime provider %s failed to "
                               "create the session (%s); falling back to %s", chain[0], first,
                               self._candidates[i + 1])
                continue
            return i, sess
        error = errors[-1]
        raise RuntimeFallbackError(self._explain(error, "load the model")) from None

    def _set_current(self) -> None:
        sess = self._sess
        self.providers = tuple(sess.get_providers())
        self.input_names = [i.name for i in sess.get_inputs()]
        self.output_names = [o.name for o in sess.get_outputs()]
        # The model's metadata_props (pyonnx.checks: the run-time check protocol).
        self.metadata = dict(sess.get_modelmeta().custom_metadata_map)
        # The C++ run: the Python wrapper's run() re-validates names and ownership every call.
        self._run = sess._sess.run

    # ------------------------------------------------------------- running
    def run(self, feeds: dict[str, Any]) -> list[Any]:
        """Runs the model on ``{input name: numpy array}``; returns the outputs in order.

        Raises:
            ExecutionError: onnxruntime failed on every provider; names the Python line.
        """
        run = self._run
        try:
            return run(self.output_names, feeds, None)
        except Exception as e:
            return self.recover(e, run, feeds)

    def recover(self, error: Exception, failed_run: Any, feeds: dict[str, Any]) -> list[Any]:
        """Handles ``error`` raised by ``failed_run`` (a ``_run`` taken before the call).

        Returns the outputs from a fallback provider when one succeeds on ``feeds`` (switching
        this session to it for good), else raises.

        Raises:
            ExecutionError: the failure does not depend on the provider; names the Python line.
        """
        with self._lock:
            if failed_run is not self._run:
                stale = True  # another caller already moved this session to a fallback
            else:
                stale = False
                outs = self._try_fallback(error, feeds)
                if outs is not None:
                    return outs
        if stale:
            return self.run(feeds)
        explained = ExecutionError(self._explain(error, "run the model"))
        index_error = index_errors.from_failure(str(error))
        if index_error is not None:
            raise index_error from explained
        raise (self._numpy_error(error) or explained) from None

    def _try_fallback(self, error: Exception, feeds: dict[str, Any]) -> list[Any] | None:
        if self._index + 1 >= len(self._candidates):
            return None
        failed = self._candidates[self._index]
        try:
            index, sess = self._open(self._index + 1)
            outs = sess._sess.run(self.output_names, feeds, None)
        except Exception:
            # The next provider fails as well: the inputs or the model are at fault, not the
            # provider, so keep it and report the original error.
            return None
        first = _first_line(error)
        _warn_once(failed, "run", first, "onnxruntime provider %s failed to run the model (%s); "
                   "falling back to %s", failed, first, self._candidates[index])
        self._index, self._sess = index, sess
        self._set_current()
        return outs

    # ---------------------------------------------------------- explaining
    def _numpy_error(self, error: Exception) -> ExecutionError | None:
        """The exception numpy raises where a run-time check failed (an ExecutionError of
        numpy's class, see errors.numpy_execution_error): the failing node carries it in its
        ``metadata_props`` (``pyonnx.raises`` = ``"ValueError: message"``); the message is
        numpy's, at the user's line."""
        node = self._raising_node(str(error))
        if node is None:
            return None
        props = {p.key: p.value for p in node.metadata_props}
        kind, _, message = props.get("pyonnx.raises", "").partition(": ")
        if not kind:
            return None
        return numpy_execution_error(kind, self._explain(
            error, "run the model",
            message if kind == "ExecutionError" else
            f"{message} ({'Python' if kind == 'UnboundLocalError' else 'numpy'} raises {kind})"))

    def _raising_node(self, text: str) -> onnx.NodeProto | None:
        """The innermost node onnxruntime's message names that carries ``pyonnx.raises``
        (a check inside a Loop or If body fails as "... If node ... Loop node ... Gather
        node 'name'": the names run outermost first)."""
        nodes = {n.name: n for n in _all_nodes(self._model().graph) if n.name}
        for name in reversed(re.findall(r"[Nn]ame:\s*'([^']*)'", text)):
            node = nodes.get(name)
            if node is not None and any(p.key == "pyonnx.raises" for p in node.metadata_props):
                return node
        return None

    def _failing_node(self, text: str) -> onnx.NodeProto | None:
        """The node onnxruntime's message names, if the model has it: the innermost one with
        a source location (a failure inside a Loop or If body names the outer nodes first;
        nodes a pass made, such as the gradient's, may have no location)."""
        nodes = {n.name: n for n in _all_nodes(self._model().graph) if n.name}
        named = [nodes[m] for m in re.findall(r"[Nn]ame:\s*'([^']*)'", text) if m in nodes]
        located = [n for n in named if _loc_of(n)[0] is not None]
        if located or named:
            return (located or named)[-1]
        for name in re.findall(r"\w+_L\d+_\w+", text):
            if name in nodes:
                return nodes[name]
        return None

    def _model(self) -> onnx.ModelProto:
        import onnx

        if self._proto is None:
            self._proto = onnx.load_from_string(self._bytes)
        return self._proto

    def _explain(self, error: Exception, doing: str, message: str | None = None) -> str:
        """The compiler-style message for an onnxruntime error, at the failing node's line
        (``message``: what to say there instead of onnxruntime's words)."""
        text = str(error).strip()
        node = self._failing_node(text)
        loc, caret = _loc_of(node) if node is not None else (None, False)
        what = (f"onnxruntime failed to {doing} at {node.op_type} node '{node.name}'"
                if node is not None else f"onnxruntime failed to {doing}")
        if message is not None and loc is not None:
            rendered = f"{loc}: error: {message}"
            if loc.source_line:
                rendered += f"\n    {loc.source_line.rstrip()}"
                if caret:
                    rendered += f"\n    {' ' * loc.col}^"
            return rendered + f"\n(onnxruntime stopped at node '{node.name}')"
        message = f"{what}: {_short_message(text)}"
        if loc is None:
            import onnx

            # Without a source line, the model text is the best pointer (as onnxscript's
            # evaluator does); long models are cut.
            lines = onnx.printer.to_text(self._model()).splitlines()
            if len(lines) > 60:
                lines = lines[:60] + [f"... ({len(lines) - 60} more lines)"]
            return f"error: {message}\nonnxruntime: {text}\nmodel:\n" + "\n".join(lines)
        rendered = f"{loc}: error: {message}"
        if loc.source_line:
            rendered += f"\n    {loc.source_line.rstrip()}"
            if caret:
                rendered += f"\n    {' ' * loc.col}^"
        return rendered + f"\nonnxruntime: {text}"


_DOC_RE = re.compile(r"^(.*):(\d+):(\d+): (.*)$", re.S)


def _loc_of(node: onnx.NodeProto) -> tuple[SourceLoc | None, bool]:
    """The location in a node's ``doc_string`` (``file:line:col: source``), and whether its
    ``source_line`` is the file's own line (so a caret at ``col`` fits it)."""
    m = _DOC_RE.match(node.doc_string or "")
    if m is None:
        return None, False
    filename, lineno, col, source = m.group(1), int(m.group(2)), int(m.group(3)) - 1, m.group(4)
    line = linecache.getline(filename, lineno)
    if line.strip():
        return SourceLoc(filename, lineno, col, source_line=line), True
    # The file is gone: show the statement as recorded (stripped, so without a caret).
    return SourceLoc(filename, lineno, col, source_line=source), False


def _short_message(text: str) -> str:
    """onnxruntime's status message without the C++ file, function and failed condition."""
    m = re.search(r"Status Message:\s*(.*)", text, re.S)
    msg = (m.group(1) if m else re.sub(r"^\[ONNXRuntimeError\]\s*:\s*\d+\s*:\s*\w+\s*:\s*", "",
                                       text)).strip()
    msg = re.sub(r"^\S+\.(?:h|cc|cpp|cu):\d+\s+", "", msg)
    m = re.search(r" was false\.\s*(.+)", msg, re.S)
    if m:
        msg = m.group(1)
    return msg.splitlines()[0].strip() if msg else text


def _all_nodes(graph: onnx.GraphProto):
    import onnx

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
    """Sessions keyed by (sha256 of the model bytes, providers, options), LRU evicted.

    A session evicted here stays alive while a compiled function still holds it.

    Args:
        maxsize: sessions kept; past it the least recently used is dropped.
    """

    def __init__(self, maxsize: int = 256):
        self.maxsize = maxsize
        self._sessions: collections.OrderedDict[tuple, Session] = collections.OrderedDict()
        self._lock = threading.Lock()

    def get(self, model: bytes, providers: Sequence[str],
            options: Sequence[tuple[str, Any]] = ()) -> Session:
        """The session for ``model`` on ``providers``: the cached one, or a new one."""
        key = (hashlib.sha256(model).hexdigest(), tuple(providers), tuple(options))
        with self._lock:
            sess = self._sessions.get(key)
            if sess is not None:
                self._sessions.move_to_end(key)
                return sess
        sess = Session(model, providers, options)
        with self._lock:
            sess = self._sessions.setdefault(key, sess)
            self._sessions.move_to_end(key)
            while len(self._sessions) > self.maxsize:
                self._sessions.popitem(last=False)
        return sess

    def __len__(self) -> int:
        return len(self._sessions)

    def clear(self) -> None:
        """Drops every cached session."""
        with self._lock:
            self._sessions.clear()
