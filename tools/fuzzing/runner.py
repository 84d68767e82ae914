"""Running one program under numpy (the oracle) and pyonnx, and classifying the outcome.

Classes: pass, refused (pyonnx.ConversionError), wrong-value, wrong-dtype, wrong-shape,
wrong-mutation, crash (any other exception from pyonnx), timeout, and invalid (numpy itself
raised: a generator bug, counted apart).
"""

from __future__ import annotations

import re
import signal
import traceback
from dataclasses import dataclass, field

import numpy as np

from fuzzing.compare import compare, precision_floor
from fuzzing.program import Program, load, run_numpy

BUGS = ("wrong-value", "wrong-dtype", "wrong-shape", "wrong-mutation", "crash", "timeout")
CLASSES = ("pass", "refused") + BUGS + ("invalid",)


class Timeout(BaseException):
    """Raised by the alarm: a BaseException so that pyonnx's handlers do not swallow it."""


@dataclass
class Outcome:
    cls: str
    detail: str = ""
    group: str = ""           # refusals and crashes: the message with names and numbers blanked
    expected: list = field(default_factory=list)
    got: list = field(default_factory=list)


def _alarm(signum, frame):
    raise Timeout()


class alarm:
    """``with alarm(sec):`` raises Timeout after ``sec`` seconds (main thread of a process)."""

    def __init__(self, sec: float):
        self.sec = sec

    def __enter__(self):
        self.old = signal.signal(signal.SIGALRM, _alarm)
        signal.setitimer(signal.ITIMER_REAL, self.sec)

    def __exit__(self, *exc):
        signal.setitimer(signal.ITIMER_REAL, 0)
        signal.signal(signal.SIGALRM, self.old)
        return False


def group_of(msg: str) -> str:
    """A refusal's or crash's message reduced to its construct: first line, no location, names
    and numbers blanked, so that one cause makes one group."""
    lines = [ln for ln in msg.splitlines() if ln.strip()]
    first = lines[0] if lines else msg
    first = re.sub(r"^.*?:\d+:\d+: (error: )?", "", first)
    first = re.sub(r"'[^']*'", "'…'", first)
    first = re.sub(r"`[^`]*`", "`…`", first)
    first = re.sub(r"\b\d+\b", "N", first)
    first = re.sub(r"\b(u?int\d+|float\d+|bool)\b", "DTYPE", first)
    first = re.sub(r"x = x \S+ \.\.\.", "x = x OP ...", first)
    first = re.sub(r"\b(t|v|a|i|k|L|h)\d+\b", "NAME", first)
    return first[:160]


def crash_group(exc: BaseException) -> str:
    tb = traceback.extract_tb(exc.__traceback__)
    inner = [fr for fr in tb if "pyonnx" in fr.filename]
    where = f"{inner[-1].filename.split('pyonnx/')[-1]}:{inner[-1].name}" if inner else "?"
    return f"{type(exc).__name__} in {where}: {group_of(str(exc))[:100]}"


def is_runtime_refusal(e: BaseException) -> bool:
    """A model that fails on purpose where numpy's result type depends on the data: a run-time
    check whose node name starts "refused_" (a loop that changes a value's kind ran 0 times),
    or a check output that raises pyonnx's own ExecutionError (not numpy's exception class,
    and not an onnxruntime failure: graph/path_weak.py's "depends on the path taken")."""
    import pyonnx
    if not isinstance(e, pyonnx.ExecutionError):
        return False
    return "refused_" in str(e) or (type(e) is pyonnx.ExecutionError
                                    and "onnxruntime" not in str(e))


def run(prog: Program, timeout: float = 20.0) -> Outcome:
    import pyonnx
    try:
        fn = load(prog.source)
    except SyntaxError as e:
        return Outcome("invalid", f"SyntaxError: {e}")
    expected, computed = [], set()
    for k in range(2):
        args = prog.args(k)
        try:
            out = run_numpy(fn, args, computed)
        except Exception as e:  # noqa: BLE001
            return Outcome("invalid", f"numpy raised {type(e).__name__}: {e}")
        expected.append((out, args))
    got = []
    try:
        with alarm(timeout):
            compiled = pyonnx.compile(fn)
            for k in range(2):
                args = prog.args(k)
                with np.errstate(all="ignore"):
                    out = compiled(*args)
                got.append((out, args))
    except Timeout:
        return Outcome("timeout", f"more than {timeout} s", "timeout")
    except pyonnx.ConversionError as e:
        return Outcome("refused", str(e), group_of(str(e)))
    except Exception as e:  # noqa: BLE001 - anything else from pyonnx is a crash
        if is_runtime_refusal(e):
            return Outcome("refused", str(e), group_of(str(e)))
        return Outcome("crash", f"{type(e).__name__}: {e}", crash_group(e),
                       [w for w, _ in expected])
    floor = precision_floor(prog.source, prog.args(0), computed)
    for k in range(2):
        (want, want_args), (out, args) = expected[k], got[k]
        bad = compare(want, out, f"input set {k}: result", floor)
        if bad is None:
            for i, (wa, ga) in enumerate(zip(want_args, args)):
                bad = compare(wa, ga, f"input set {k}: argument {i} after the call", floor)
                if bad:
                    bad = ("wrong-mutation", bad[1])
                    break
        if bad:
            group = re.sub(r"^input set \d: |\[\d+\]|got .*", "", bad[1])
            return Outcome(bad[0], bad[1], f"{bad[0]}: {group}", [w for w, _ in expected],
                           [g for g, _ in got])
    return Outcome("pass")
