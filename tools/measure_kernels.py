"""Measures which dtypes onnxruntime's CPU provider has kernels for, per ONNX op.

Writes ``pyonnx/frontend/graph/ort_kernels.py``: for each op, the numpy dtype names a 1-node
model of that op and dtype runs with. The frontend consults the table to compute in a dtype
that has a kernel (and cast back) instead of emitting a model onnxruntime refuses.

Run: ``python tools/measure_kernels.py`` (about a minute).
"""

from __future__ import annotations

import pathlib
import sys

import numpy as np
import onnx
import onnxruntime as ort
from onnx import TensorProto, helper

OPSET = 21
DTYPES = ["bool", "int8", "int16", "int32", "int64", "uint8", "uint16", "uint32", "uint64",
          "float16", "float32", "float64"]

# op → (number of same-dtype inputs, extra attributes, output dtype rule)
UNARY = ["Abs", "Neg", "Sign", "Exp", "Log", "Sqrt", "Reciprocal", "Sin", "Cos", "Tan", "Asin",
         "Acos", "Atan", "Sinh", "Cosh", "Tanh", "Asinh", "Acosh", "Atanh", "Floor", "Ceil",
         "Round", "IsNaN", "IsInf", "Not", "BitwiseNot", "Erf", "Relu", "Sigmoid", "Identity",
         "NonZero", "Softmax", "LogSoftmax"]
BINARY = ["Add", "Sub", "Mul", "Div", "Pow", "Mod", "Equal", "Less", "LessOrEqual", "Greater",
          "GreaterOrEqual", "And", "Or", "Xor", "BitwiseAnd", "BitwiseOr", "BitwiseXor",
          "BitShift", "Max", "Min", "MatMul", "PRelu"]
REDUCE = ["ReduceSum", "ReduceProd", "ReduceMax", "ReduceMin", "ReduceMean", "ReduceL2",
          "ReduceSumSquare", "ReduceLogSumExp", "ArgMax", "ArgMin", "CumSum", "TopK"]
OTHER = ["Where", "Gather", "GatherND", "GatherElements", "ScatterND", "ScatterElements",
         "Concat", "Slice", "Reshape", "Transpose", "Expand", "Tile", "Compress", "Unique",
         "Einsum", "Gemm", "Trilu", "ReverseSequence", "Pad", "Clip", "Range", "Cast",
         "ConstantOfShape", "Squeeze", "Unsqueeze", "Mod_fmod"]


def _model(op: str, dtype: str) -> tuple[onnx.ModelProto, dict[str, np.ndarray]]:
    et = helper.np_dtype_to_tensor_dtype(np.dtype(dtype))
    x = np.array([[1, 0], [1, 1]], dtype=dtype)
    i64 = TensorProto.INT64
    inputs = [helper.make_tensor_value_info("x", et, [2, 2])]
    feeds = {"x": x}
    attrs: dict = {}
    extra: list = []
    node_inputs = ["x"]
    if op in BINARY or op in ("Where",):
        inputs.append(helper.make_tensor_value_info("y", et, [2, 2]))
        feeds["y"] = np.ones((2, 2), dtype)  # a zero divisor would fail Div/Mod on ints
        node_inputs = ["x", "y"]
        if op == "BitShift":
            attrs["direction"] = "LEFT"
        if op == "Where":
            inputs.insert(0, helper.make_tensor_value_info("c", TensorProto.BOOL, [2, 2]))
            feeds["c"] = np.ones((2, 2), bool)
            node_inputs = ["c", "x", "y"]
    elif op == "Mod_fmod":
        inputs.append(helper.make_tensor_value_info("y", et, [2, 2]))
        feeds["y"] = np.ones((2, 2), dtype)
        node_inputs = ["x", "y"]
        attrs["fmod"] = 1
    elif op in ("ReduceSum", "ReduceProd", "ReduceMax", "ReduceMin", "ReduceMean", "ReduceL2",
                "ReduceSumSquare", "ReduceLogSumExp"):
        extra.append(helper.make_tensor("axes", i64, [1], [1]))
        node_inputs = ["x", "axes"]
    elif op in ("CumSum",):
        extra.append(helper.make_tensor("axes", i64, [], [1]))
        node_inputs = ["x", "axes"]
    elif op == "TopK":
        extra.append(helper.make_tensor("k", i64, [1], [1]))
        node_inputs = ["x", "k"]
    elif op in ("Gather", "GatherElements"):
        extra.append(helper.make_tensor("i", i64, [2, 2], [0, 1, 1, 0]))
        node_inputs = ["x", "i"]
    elif op == "GatherND":
        extra.append(helper.make_tensor("i", i64, [1, 2], [0, 1]))
        node_inputs = ["x", "i"]
    elif op == "ScatterND":
        extra.append(helper.make_tensor("i", i64, [1, 2], [0, 1]))
        inputs.append(helper.make_tensor_value_info("u", et, [1]))
        feeds["u"] = x.reshape(-1)[:1].copy()
        node_inputs = ["x", "i", "u"]
    elif op == "ScatterElements":
        extra.append(helper.make_tensor("i", i64, [1, 1], [1]))
        inputs.append(helper.make_tensor_value_info("u", et, [1, 1]))
        feeds["u"] = x[:1, :1].copy()
        node_inputs = ["x", "i", "u"]
    elif op == "Concat":
        node_inputs = ["x", "x"]
        attrs["axis"] = 0
    elif op == "Slice":
        extra += [helper.make_tensor("s", i64, [1], [0]), helper.make_tensor("e", i64, [1], [1])]
        node_inputs = ["x", "s", "e"]
    elif op == "Reshape":
        extra.append(helper.make_tensor("s", i64, [1], [4]))
        node_inputs = ["x", "s"]
    elif op == "Expand":
        extra.append(helper.make_tensor("s", i64, [3], [2, 2, 2]))
        node_inputs = ["x", "s"]
    elif op == "Tile":
        extra.append(helper.make_tensor("s", i64, [2], [2, 1]))
        node_inputs = ["x", "s"]
    elif op == "Compress":
        extra.append(helper.make_tensor("m", TensorProto.BOOL, [2], [1, 0]))
        node_inputs = ["x", "m"]
        attrs["axis"] = 0
    elif op == "Unique":
        attrs["sorted"] = 1
    elif op == "Einsum":
        node_inputs = ["x", "x"]
        attrs["equation"] = "ij,jk->ik"
    elif op == "Gemm":
        node_inputs = ["x", "x"]
    elif op == "ReverseSequence":
        extra.append(helper.make_tensor("l", i64, [2], [2, 2]))
        node_inputs = ["x", "l"]
    elif op == "Pad":
        extra.append(helper.make_tensor("p", i64, [4], [0, 1, 0, 1]))
        node_inputs = ["x", "p"]
    elif op == "Clip":
        inputs += [helper.make_tensor_value_info(n, et, []) for n in ("lo", "hi")]
        feeds.update(lo=np.array(0, dtype), hi=np.array(1, dtype))
        node_inputs = ["x", "lo", "hi"]
    elif op == "Range":
        inputs = [helper.make_tensor_value_info(n, et, []) for n in "abc"]
        feeds = {"a": np.array(0, dtype), "b": np.array(1, dtype), "c": np.array(1, dtype)}
        node_inputs = ["a", "b", "c"]
    elif op == "Cast":
        attrs["to"] = TensorProto.FLOAT
    elif op == "ConstantOfShape":
        inputs = [helper.make_tensor_value_info("x", i64, [1])]
        feeds = {"x": np.array([2], np.int64)}
        attrs["value"] = helper.make_tensor("v", et, [1], np.zeros(1, dtype).tolist()
                                            if dtype != "float16" else [0])
    elif op in ("Squeeze", "Unsqueeze"):
        if op == "Squeeze":
            inputs = [helper.make_tensor_value_info("x", et, [1, 2])]
            feeds = {"x": x[:1].copy()}
        extra.append(helper.make_tensor("a", i64, [1], [0]))
        node_inputs = ["x", "a"]
    real_op = op.split("_")[0]
    node = helper.make_node(real_op, node_inputs, ["out"] + (["idx"] if op == "TopK" else []),
                            **attrs)
    graph = helper.make_graph([node], "g", inputs, [helper.make_value_info("out", onnx.TypeProto())],
                              initializer=extra)
    model = helper.make_model(graph, opset_imports=[helper.make_opsetid("", OPSET)])
    model.ir_version = 10
    return model, feeds


def supported(op: str, dtype: str) -> bool:
    try:
        model, feeds = _model(op, dtype)
        so = ort.SessionOptions()
        so.log_severity_level = 4
        sess = ort.InferenceSession(model.SerializeToString(), so, providers=["CPUExecutionProvider"])
        sess.run(None, feeds)
        return True
    except Exception:
        return False


def main() -> None:
    table = {}
    for op in UNARY + BINARY + REDUCE + OTHER:
        table[op] = [d for d in DTYPES if supported(op, d)]
        print(f"{op:18s} {' '.join(table[op])}", file=sys.stderr)
    out = pathlib.Path(__file__).resolve().parent.parent / "pyonnx/frontend/graph/ort_kernels.py"
    lines = [
        '"""Which dtypes onnxruntime\'s CPU provider runs, per ONNX op (opset %d).' % OPSET,
        "",
        f"Generated by tools/measure_kernels.py with onnxruntime {ort.__version__}; do not edit.",
        "``Mod_fmod`` is Mod with fmod=1.",
        '"""',
        "",
        "CPU_KERNELS: dict[str, frozenset[str]] = {",
    ]
    for op, dts in table.items():
        lines.append(f"    {op!r}: frozenset({dts!r}),")
    lines.append("}")
    out.write_text("\n".join(lines) + "\n")


if __name__ == "__main__":
    main()
