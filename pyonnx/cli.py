"""The ``pyonnx`` command line: convert a Python function to an ONNX file, or print a model.

Input: ``path/to/module.py:func`` (the module is imported from its file, its directory put on
``sys.path`` so its own imports work) plus input specs (``--input x=float32[N,3]``, or string
annotations ``def f(x: "float32[N,3]")``) and static values (``--static axis=1``); or, for
``show``, an existing ``.onnx`` file. Output: the model file and a one-line summary
(``convert``), or the model in ONNX text form (``show``).

Exit status: 0 on success, 1 when the function cannot be converted (the compiler-style
``file:line:col: error:`` message with its caret, no traceback) or the module fails to import,
2 for bad arguments (click's usage error).
"""

from __future__ import annotations

import ast
import importlib.util
import inspect
import os
import sys
from typing import Any

import click

__all__ = ["main"]

_EPILOG_CONVERT = """\b
Examples:
  pyonnx convert kernels.py:softmax --input x=float32[N,10] -o softmax.onnx
  pyonnx convert kernels.py:scale --input x=float64[N,3] --input k=int64[]
  pyonnx convert kernels.py:moments --input x=float32[B,N] --static axis=1
  pyonnx convert kernels.py:norm          # inputs from annotations:
                                          # def norm(x: "float32[N,3]"): ...
\b
Input specs: DTYPE[DIMS]: float32[N,3] (N symbolic, 3 fixed), int64[] (0-d),
  float64[?,?] (unnamed dims). DTYPE is a numpy dtype name: bool, int8..int64,
  uint8..uint64, float16, float32, float64, complex64, complex128 (a complex
  input or output is a real tensor with a trailing dimension of 2: real, imag).
"""

_EPILOG_SHOW = """\b
Examples:
  pyonnx show model.onnx
  pyonnx show kernels.py:softmax --input x=float32[N,10]
  pyonnx show kernels.py:softmax --input x=float32[N,10] --format text
  pyonnx show model.onnx --format dot | dot -Tsvg > model.svg
"""


@click.group(context_settings={"help_option_names": ["-h", "--help"]})
@click.version_option(package_name="pyonnx", prog_name="pyonnx")
def main() -> None:
    """Compile numpy-style Python functions to ONNX models.

    pyonnx reads a function's source and emits one ONNX model computing what numpy
    would: same values, dtypes and shapes. TARGET is path/to/module.py:function.
    """


def _target_options(f):
    f = click.option("--opset", type=int, default=None,
                     help="ONNX opset to emit (default: pyonnx's, 21).")(f)
    f = click.option("--static", "statics", multiple=True, metavar="NAME=VALUE",
                     help="A value fixed at conversion time, as a Python literal "
                          "(axis=1, shape=(2,3), mode='max'). Repeatable.")(f)
    f = click.option("--input", "-i", "inputs", multiple=True, metavar="NAME=SPEC",
                     help="An input tensor: NAME=DTYPE[DIMS], e.g. x=float32[N,3] or k=int64[]. "
                          "Repeatable; overrides an annotation.")(f)
    return f


@main.command(epilog=_EPILOG_CONVERT)
@click.argument("target", metavar="TARGET")
@_target_options
@click.option("-o", "--output", type=click.Path(dir_okay=False), default=None,
              help="Where to write the model (default: FUNCTION.onnx).")
def convert(target: str, inputs: tuple[str, ...], statics: tuple[str, ...], opset: int | None,
            output: str | None) -> None:
    """Convert TARGET (module.py:function) to an ONNX file.

    Each parameter of the function is an input tensor (from --input or a string
    annotation), a static value (--static), or keeps its default (a static value
    too). Prints one line:
    the file, its inputs and outputs, node count and size.
    """
    model = _model_for(target, inputs, statics, opset)
    path = output or f"{target.rpartition(':')[2].split('.')[-1]}.onnx"
    data = model.SerializeToString()
    with open(path, "wb") as fh:
        fh.write(data)
    click.echo(f"wrote {path}: {_summary(model)}; {_size(len(data))}")


@main.command(epilog=_EPILOG_SHOW)
@click.argument("target", metavar="TARGET")
@_target_options
@click.option("--format", "fmt", type=click.Choice(["onnx", "text", "html", "dot"]),
              default="onnx", show_default=True,
              help="onnx: ONNX text; text/html: nodes grouped by Python source line; dot: "
                   "graphviz")
def show(target: str, inputs: tuple[str, ...], statics: tuple[str, ...],
         opset: int | None, fmt: str) -> None:
    """Print a model in ONNX text form, or grouped by source line (--format).

    TARGET is a .onnx file, or module.py:function converted as by `pyonnx convert`.
    """
    import onnx

    if target.endswith(".onnx") and ":" not in os.path.basename(target):
        if inputs or statics or opset is not None:
            raise click.UsageError("--input/--static/--opset apply to a function, not to an "
                                   ".onnx file")
        try:
            model = onnx.load(target)
        except FileNotFoundError:
            raise click.BadParameter(f"no such file: {target}", param_hint="TARGET") from None
        except Exception as e:  # a damaged or non-ONNX file
            raise click.ClickException(f"cannot read {target} as an ONNX model: {e}") from None
    else:
        model = _model_for(target, inputs, statics, opset)
    if fmt == "onnx":
        click.echo(onnx.printer.to_text(model))
        return
    from pyonnx.show import Listing

    listing = Listing(model, model.graph.name)
    click.echo({"text": listing.text, "html": listing.html, "dot": listing.dot}[fmt]())


@main.group()
def cache() -> None:
    """The disk cache of converted models (compile(cache=True); folder: PYONNX_CACHE_DIR,
    default ~/.cache/pyonnx)."""


@cache.command("info")
def cache_info() -> None:
    """Print the cache folder, its entries and their size."""
    from pyonnx import cache as disk

    i = disk.info()
    click.echo(f"{i['path']}: {i['entries']} entries, {_size(i['bytes'])}")


@cache.command("clear")
def cache_clear() -> None:
    """Delete every cached model."""
    from pyonnx import cache as disk

    n = disk.clear()
    click.echo(f"removed {n} entries from {disk.cache_dir()}")


# ---------------------------------------------------------------------------- helpers
def _model_for(target: str, inputs: tuple[str, ...], statics: tuple[str, ...],
               opset: int | None):
    """Loads TARGET's function and converts it with the given inputs; exits 1 on a
    ConversionError (printed as the compiler-style message) and 2 on bad arguments."""
    import pyonnx
    from pyonnx.api import DEFAULT_OPSET, CompiledFunction

    if opset is not None:
        import onnx.defs

        newest = onnx.defs.onnx_opset_version()
        if not 1 <= opset <= newest:
            raise click.BadParameter(f"{opset} is not an ONNX opset (1..{newest} with onnx "
                                     f"{onnx.__version__})", param_hint="--opset")
    obj = _load_function(target)
    if isinstance(obj, CompiledFunction):
        fn, static_names, opset = obj.fn, set(obj.static_argnames), opset or obj.opset
    elif inspect.isfunction(obj):
        fn, static_names = obj, set()
    else:
        raise click.BadParameter(f"{target} is a {type(obj).__name__}, not a Python function",
                                 param_hint="TARGET")
    params = inspect.signature(fn).parameters
    specs = _parse_inputs(inputs, params)
    values = _parse_statics(statics, params)
    both = set(specs) & set(values)
    if both:
        raise click.UsageError(f"{', '.join(sorted(both))} given both as --input and --static")
    kwargs: dict[str, Any] = {}
    for name, p in params.items():
        if name in specs:
            kwargs[name] = specs[name]
        elif name in values:
            kwargs[name] = values[name]
        elif (annotated := _annotation_spec(p)) is not None:
            kwargs[name] = annotated
        elif p.default is not inspect.Parameter.empty:
            # A default is a value fixed in the model, not an input (a Python int default
            # would otherwise become a 0-d input).
            values[name] = p.default
        else:
            raise click.UsageError(
                f"no spec for parameter '{name}' of {fn.__qualname__}: pass --input "
                f"{name}=DTYPE[DIMS] (e.g. {name}=float32[N]), --static {name}=VALUE, or "
                f"annotate it: def {fn.__name__}({name}: \"float32[N]\", ...)")
    compiled = pyonnx.compile(fn, static_argnames=sorted(static_names | set(values)),
                              opset=opset or DEFAULT_OPSET)
    try:
        return compiled.to_onnx(**kwargs)
    except pyonnx.PyonnxError as e:
        click.echo(str(e), err=True)
        sys.exit(1)


def _load_function(target: str) -> Any:
    path, sep, attr = target.rpartition(":")
    if not sep or not path or not attr:
        raise click.BadParameter(f"expected path/to/module.py:function, got {target!r}",
                                 param_hint="TARGET")
    if not os.path.isfile(path):
        raise click.BadParameter(f"no such file: {path}", param_hint="TARGET")
    path = os.path.abspath(path)
    directory, stem = os.path.split(path)
    stem = os.path.splitext(stem)[0]
    # The module's own imports (siblings in its directory) must resolve.
    if directory not in sys.path:
        sys.path.insert(0, directory)
    # Named after the file, unless that would shadow an imported module (a file named
    # numpy.py); registered before running it so dataclasses and inspect find the module.
    name = stem if stem not in sys.modules else f"_pyonnx_cli_{stem}"
    spec = importlib.util.spec_from_file_location(name, path)
    if spec is None or spec.loader is None:
        raise click.BadParameter(f"cannot import {path} as a Python module", param_hint="TARGET")
    module = importlib.util.module_from_spec(spec)
    sys.modules[name] = module
    try:
        spec.loader.exec_module(module)
    except Exception as e:
        raise click.ClickException(f"importing {path} failed: {type(e).__name__}: {e}") from None
    obj: Any = module
    for part in attr.split("."):
        if not hasattr(obj, part):
            names = sorted(n for n, v in vars(module).items()
                           if inspect.isfunction(v) and v.__module__ == name)
            raise click.BadParameter(f"{os.path.basename(path)} has no {attr!r}; its functions: "
                                     f"{', '.join(names) or 'none'}", param_hint="TARGET")
        obj = getattr(obj, part)
    return obj


def _split(text: str, option: str) -> tuple[str, str]:
    name, sep, value = text.partition("=")
    name = name.strip()
    if not sep or not name.isidentifier():
        raise click.BadParameter(f"expected NAME=VALUE, got {text!r}", param_hint=option)
    return name, value.strip()


def _check_param(name: str, params, option: str) -> None:
    if name not in params:
        raise click.BadParameter(f"the function has no parameter '{name}' (parameters: "
                                 f"{', '.join(params) or 'none'})", param_hint=option)


def _parse_inputs(inputs: tuple[str, ...], params) -> dict[str, Any]:
    from pyonnx.specs import parse_spec

    out = {}
    for text in inputs:
        name, value = _split(text, "--input")
        _check_param(name, params, "--input")
        try:
            out[name] = parse_spec(value)
        except ValueError as e:
            raise click.BadParameter(str(e), param_hint="--input") from None
    return out


def _parse_statics(statics: tuple[str, ...], params) -> dict[str, Any]:
    out = {}
    for text in statics:
        name, value = _split(text, "--static")
        _check_param(name, params, "--static")
        try:
            out[name] = ast.literal_eval(value)
        except (ValueError, SyntaxError):
            raise click.BadParameter(
                f"{value!r} is not a Python literal; quote strings (--static {name}=\"'text'\")",
                param_hint="--static") from None
    return out


def _annotation_spec(p: inspect.Parameter):
    """A TensorSpec from a parameter's annotation, if it is one or a string that parses as one.

    Under ``from __future__ import annotations`` every annotation is a string, and a string
    annotation is the string of its source (``'"float32[N]"'``, quotes included).
    """
    from pyonnx.specs import TensorSpec, parse_spec

    ann = p.annotation
    if isinstance(ann, TensorSpec):
        return ann
    if not isinstance(ann, str):
        return None
    text = ann.strip()
    if len(text) >= 2 and text[0] == text[-1] and text[0] in "'\"":
        try:
            text = ast.literal_eval(text)
        except (ValueError, SyntaxError):
            return None
    try:
        return parse_spec(text)
    except ValueError:
        return None


def _summary(model) -> str:
    import onnx

    def count(graph: onnx.GraphProto) -> int:  # nodes of subgraphs (If, Loop bodies) too
        return sum(1 + sum(count(g) for a in node.attribute for g in [*a.graphs, a.g]
                           if a.type in (onnx.AttributeProto.GRAPH, onnx.AttributeProto.GRAPHS)
                           and g.ByteSize())
                   for node in graph.node)

    def describe(v: onnx.ValueInfoProto) -> str:
        t = v.type.tensor_type
        dtype = onnx.helper.tensor_dtype_to_np_dtype(t.elem_type).name
        dims = ",".join(d.dim_param or (str(d.dim_value) if d.HasField("dim_value") else "?")
                        for d in t.shape.dim)
        return f"{v.name}: {dtype}[{dims}]"

    ins = ", ".join(describe(v) for v in model.graph.input) or "none"
    outs = ", ".join(describe(v) for v in model.graph.output)
    n = count(model.graph)
    return f"inputs {ins}; outputs {outs}; {n} node{'s' if n != 1 else ''}"


def _size(n: int) -> str:
    return f"{n} bytes" if n < 1024 else f"{n / 1024:.1f} KiB"


if __name__ == "__main__":  # pragma: no cover
    main()
