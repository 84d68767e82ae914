"""Threads for pyonnx's onnxruntime sessions: one process-wide pool, or one thread each.

Input: the environment variable ``PYONNX_NUM_THREADS`` (read once, at pyonnx's first session).
Output: :func:`apply` sets the threading fields of every ``SessionOptions`` pyonnx makes.

* ``PYONNX_NUM_THREADS=n`` > 1 (``PYONNX_NUM_THREADS=0``: the machine's physical cores):
  onnxruntime's global thread pools
  (``onnxruntime.capi._pybind_state.set_global_thread_pool_sizes(n, 1)`` before pyonnx's first
  session, ``use_per_session_threads = False`` on every session). Thousands of cached sessions
  then share n threads instead of owning a pool each (FACTS.md: 200 per-session pools made 203
  OS threads), and array work runs on every core.
* ``PYONNX_NUM_THREADS=1``, and the default: no global state is touched; each session runs on
  the calling thread (``intra_op_num_threads = 1``).

Why not on by default: on the shared 2-core machines (load ~5), the pool made pyonnx's calls
2-4x slower in one alternating run (``b[:, 2] = v`` on (10000, 4): 16-17 µs with one thread,
49-104 µs with the pool; ``z[:, :, 0] = v`` on 800x800x3: 3.3-3.5 ms against 8.3-9.4 ms; a
1-node call 5.4-7.2 µs against 7.1-17 µs): onnxruntime's pool threads spin after each op, and
the global pool's spinning cannot be turned off from Python. On a quiet machine it gained
1.3-1.9x on 14 of 23 array kernels (FACTS.md). It also changes the user's own later sessions
(below): a process-wide decision the user should make.

The global pool is process-wide, and onnxruntime then refuses every session created with
``use_per_session_threads`` left True ("use_per_session_threads must be false when using a
global thread pool") -- including sessions the user's own code creates later. So that they keep
working, turning the pool on also wraps ``onnxruntime.InferenceSession._create_inference_session``:
a session without options gets options with ``use_per_session_threads = False``, and options
that ask for per-session threads are switched to the shared pool (logged once: their
``intra_op_num_threads`` no longer applies). Sessions the user created *before* pyonnx's first
session keep their own pools (onnxruntime still makes the global pool afterwards: measured
with onnxruntime 1.32). A user who needs per-session pools sets ``PYONNX_NUM_THREADS=1``.

Loop-heavy models cannot opt out per model: with the global pool on, onnxruntime allows no
session its own (single-thread) pool. Small ops are not split across threads by onnxruntime's
cost model, so a ``Loop`` of small ops runs on the calling thread anyway.
"""

from __future__ import annotations

import logging
import os
import threading

__all__ = ["apply", "num_threads", "uses_global_pool"]

logger = logging.getLogger(__name__)

_lock = threading.Lock()
_state: dict[str, object] = {}


def physical_cores() -> int:
    """Physical cores this process may run on (logical CPUs when the topology is unknown)."""
    try:
        cpus = sorted(os.sched_getaffinity(0))
    except (AttributeError, OSError):  # pragma: no cover - not Linux
        return os.cpu_count() or 1
    cores = set()
    for cpu in cpus:
        base = f"/sys/devices/system/cpu/cpu{cpu}/topology/"
        try:
            with open(base + "physical_package_id") as f:
                package = f.read().strip()
            with open(base + "core_id") as f:
                core = f.read().strip()
        except OSError:
            return len(cpus) or 1
        cores.add((package, core))
    return len(cores) or 1


def num_threads() -> int:
    """The pool size: ``PYONNX_NUM_THREADS`` (an int >= 1; 0: the physical cores), default 1.

    Raises:
        ValueError: ``PYONNX_NUM_THREADS`` is not a non-negative integer.
    """
    raw = os.environ.get("PYONNX_NUM_THREADS", "").strip()
    if not raw:
        return 1
    try:
        n = int(raw)
    except ValueError:
        n = -1
    if n < 0:
        raise ValueError(f"PYONNX_NUM_THREADS must be a non-negative integer (0: one thread per "
                         f"physical core), got {raw!r}")
    return n or physical_cores()


def uses_global_pool() -> bool:
    """Whether pyonnx's sessions share onnxruntime's global pool (decided on first use)."""
    _ensure()
    return bool(_state["global"])


def apply(so) -> None:
    """Sets ``so``'s threading for a pyonnx session (the global pool, or one thread)."""
    if uses_global_pool():
        so.use_per_session_threads = False
    else:
        so.intra_op_num_threads = 1
        so.inter_op_num_threads = 1


def _ensure() -> None:
    if "global" in _state:
        return
    with _lock:
        if "global" in _state:
            return
        n = num_threads()
        use = n > 1
        if use:
            from onnxruntime.capi import _pybind_state

            _install_compat()
            _pybind_state.set_global_thread_pool_sizes(n, 1)
            logger.debug("onnxruntime global thread pool: %d intra-op threads", n)
        _state["global"] = use
        _state["threads"] = n


def _install_compat() -> None:
    """Makes sessions created without ``use_per_session_threads = False`` use the global pool
    instead of failing (see the module docstring)."""
    from onnxruntime.capi import onnxruntime_inference_collection as collection

    cls = collection.InferenceSession
    original = cls._create_inference_session
    if getattr(original, "_pyonnx_global_pool", False):
        return
    from onnxruntime.capi import _pybind_state

    warned = []

    def create(self, *args, **kwargs):
        so = self._sess_options
        if so is None:
            so = _pybind_state.SessionOptions()
            self._sess_options = so
        if so.use_per_session_threads:
            if not warned:
                warned.append(True)
                logger.info("pyonnx uses onnxruntime's global thread pool (PYONNX_NUM_THREADS); "
                            "onnxruntime sessions made afterwards share it (set "
                            "PYONNX_NUM_THREADS=1 to give each session its own threads)")
            so.use_per_session_threads = False
        return original(self, *args, **kwargs)

    create._pyonnx_global_pool = True  # type: ignore[attr-defined]
    create.__wrapped__ = original  # type: ignore[attr-defined]
    cls._create_inference_session = create
