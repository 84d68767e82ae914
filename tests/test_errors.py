"""Every refused construct raises ConversionError at its own line and column, with a caret."""

from __future__ import annotations

import inspect

import numpy as np
import pytest

import pyonnx
from tests import refused_kernels as k

SOURCE_LINES = inspect.getsource(k).splitlines()
FILE = inspect.getsourcefile(k)


def marked(name: str) -> tuple[int, int, str]:
    """(line, 0-based column of the first non-blank character, text) of ``# <- name``."""
    for i, line in enumerate(SOURCE_LINES, start=1):
        if line.rstrip().endswith(f"# <- {name}") or f"# <- {name} " in line:
            code = line.split("#")[0]
            return i, len(code) - len(code.lstrip()), line
    raise LookupError(name)


CASES = [
    # (function, marker, expected column: "stmt" = first char of the line, or a substring
    #  whose position on that line is the column, and words the message must contain)
    (k.uses_with, "with", "stmt", ["with", "files"]),
    (k.uses_try, "try", "stmt", ["try"]),
    (k.uses_yield, "yield", "yield", ["yield"]),
    (k.uses_class, "class", "stmt", ["class"]),
    (k.uses_global, "global", "stmt", ["global"]),
    (k.uses_lambda, "lambda", "f(v)", ["recursive"]),
    (k.uses_eval, "eval", "eval", ["eval"]),
    (k.uses_exec, "exec", "exec", ["exec"]),
    (k.uses_print, "print", "print", ["print"]),
    (k.uses_time, "time", "time.time", ["time"]),
    (k.uses_tobytes, "tobytes", "x.tobytes", ["tobytes"]),
    (k.uses_fstring, "fstring", "f\"value", ["string formatting"]),
    (k.uses_import, "import", "stmt", ["import"]),
    (k.recursive, "recursion", "recursive(x - 1)", ["recursive"]),
    (k.calls_bad_helper, "helper_print", "print", ["print"]),
    (k.uses_undefined, "undefined", "not_defined_anywhere", ["not defined"]),
    (k.uses_before_assignment, "unbound", "z +", ["before it is assigned"]),
    (k.uses_nested_def, "nested_def", "inner(v)", ["recursive"]),
    (k.uses_match, "match", "stmt", ["match"]),
    (k.uses_setattr, "setattr", "x.shape", ["attribute"]),
    (k.raises_static, "raise", "stmt", ["ValueError", "x must be 1-D"]),
    (k.bad_inplace_dtype, "inplace", "x += 1.5", ["same_kind"]),
    (k.branch_undefined, "branch_undefined", "y", ["'y'", "'if' branch", "line 140",
                                                    "not in the 'else' branch"]),
    (k.possibly_undefined, "possibly_undefined", "last", ["'last'", "loop at line 146",
                                                          "0 times"]),
    (k.read_before_loop_assignment, "read_before_loop", "prev", ["'prev'", "before it is assigned",
                                                                  "first iteration"]),
    (k.dtype_changes_in_branches, "branch_dtypes", "stmt", ["'y'", "float32", "int64",
                                                          ".astype"]),
    (k.dtype_narrows_in_loop, "loop_dtypes", "stmt", ["'s'", "float64", "int64", "loop"]),
    (k.uses_resize, "resize", "y.resize", ["writes into the array", "item assignment"]),
]


@pytest.mark.parametrize("fn, marker, col_hint, words", CASES, ids=[c[1] for c in CASES])
def test_refused_construct_location(fn, marker, col_hint, words):
    x = np.arange(6, dtype=np.int64).reshape(2, 3)
    compiled = pyonnx.compile(fn)
    with pytest.raises(pyonnx.ConversionError, match=r"\d+:\d+: error: ") as info:
        compiled(x)
    err = info.value
    line, stmt_col, text = marked(marker)
    col = stmt_col if col_hint == "stmt" else text.index(col_hint)
    assert err.filename == FILE
    assert (err.lineno, err.col) == (line, col), str(err)
    rendered = str(err)
    assert rendered.startswith(f"{FILE}:{line}:{col + 1}: error: ")
    assert text.rstrip() in rendered and " " * (4 + col) + "^" in rendered
    for w in words:
        assert w in err.message, err.message


def test_star_args_parameter_is_converted():
    f = pyonnx.compile(k.uses_star_args)
    assert np.array_equal(f(np.ones(2), np.zeros(2)), np.ones(2))


def test_ambiguous_truth_value_matches_numpy():
    with pytest.raises(pyonnx.ConversionError, match=r"\d+:\d+: error: ") as info:
        # With fixed dimensions the size is known to be 6 at conversion time.
        pyonnx.compile(k.ambiguous_truth).to_onnx(pyonnx.spec("float64", (2, 3)))
    assert "ambiguous" in info.value.message
    assert info.value.lineno == marked("ambiguous")[0]


def test_lambda_function_converts():
    # (refused until frontend/source.py found a lambda in its file: tests/test_compile_lambda.py)
    assert np.array_equal(pyonnx.compile(lambda x: x + 1)(np.ones(2)), np.full(2, 2.0))
