"""Mutations of a valid ONNX model into the ways real files go wrong: a node missing an input or
an output, a cycle, an attribute of the wrong kind or missing, a dim of 0, -1 or 2^62, an
unknown or undefined dtype, a truncated initializer, an op or domain nobody knows, If/Loop
without their graphs, non-UTF-8 names, flipped or cut bytes.

A mutation is (name, a, b, c): three ints the generator draws, each mutation reading them
modulo whatever it indexes, so every draw is a valid instruction and cases stay small data.
"""
from __future__ import annotations

import functools
import glob
import os
from pathlib import Path
from typing import Callable

import onnx
from onnx import TensorProto, helper

ROOT = Path(__file__).resolve().parents[2]
DATA = Path(onnx.__file__).parent / "backend" / "test" / "data"


def seed_models() -> list[Path]:
    """Small valid models: the bundled sample, then the onnx wheel's simple and operator ones."""
    found = [ROOT / "sample_models" / "tiny_cnn.onnx"]
    for suite in ("simple", "pytorch-operator", "pytorch-converted"):
        found += sorted(Path(p) for p in glob.glob(str(DATA / suite / "*" / "model.onnx"))
                        if os.path.getsize(p) < 64 * 1024)
    return found


@functools.cache
def node_seeds() -> tuple[bytes, ...]:
    """The node suite's models, serialised: every ONNX op, one small model each. ONNX's own
    inference killed the process on attributes of ops no other seed has (GatherND's batch_dims,
    Split's num_outputs). onnx's case generators make them on the first call (about 13 s)."""
    from workbench.conformance import node_cases
    return tuple(t.model.SerializeToString() for t in node_cases.testcases())


BIG = (0, -1, -2, -5, 1, 2, 3, 7, 2**31 - 1, 2**31, 2**32 - 1, 2**40, 2**62, -(2**62),
       2**63 - 1)
DTYPES = (0, 1, 2, 3, 6, 7, 8, 9, 10, 11, 16, 17, 19, 21, 23, 25, 99, -1)
OPS = ("Add", "Conv", "Gemm", "If", "Loop", "Scan", "Split", "Reshape", "Cast", "Concat",
       "MaxPool", "Slice", "Gather", "NoSuchOp", "", "Constant", "Identity", "Expand", "Tile")
ATTR_NAMES = ("strides", "pads", "axis", "perm", "to", "kernel_shape", "dilations", "group",
              "axes", "split", "body", "then_branch", "else_branch", "value", "transB",
              "num_outputs", "mode", "auto_pad")


def _pick(seq: list, i: int):
    return seq[i % len(seq)] if seq else None


def _all_nodes(model: onnx.ModelProto) -> list[onnx.NodeProto]:
    return list(model.graph.node)


def drop_input(m: onnx.ModelProto, a: int, b: int, c: int) -> None:
    node = _pick(_all_nodes(m), a)
    if node is not None and node.input:
        del node.input[b % len(node.input)]


def drop_output(m: onnx.ModelProto, a: int, b: int, c: int) -> None:
    node = _pick(_all_nodes(m), a)
    if node is not None and node.output:
        del node.output[b % len(node.output)]


def add_input(m: onnx.ModelProto, a: int, b: int, c: int) -> None:
    node = _pick(_all_nodes(m), a)
    names = [v for n in m.graph.node for v in n.output] + ["", "no_such_value"]
    if node is not None:
        node.input.insert(b % (len(node.input) + 1), _pick(names, c))


def make_cycle(m: onnx.ModelProto, a: int, b: int, c: int) -> None:
    """Feed a node from its own output or a later node's: the graph stops being a DAG."""
    nodes = _all_nodes(m)
    if not nodes:
        return
    i = a % len(nodes)
    later = [v for n in nodes[i:] for v in n.output]
    if nodes[i].input and later:
        nodes[i].input[b % len(nodes[i].input)] = _pick(later, c)


def drop_node(m: onnx.ModelProto, a: int, b: int, c: int) -> None:
    if m.graph.node:
        del m.graph.node[a % len(m.graph.node)]


def _attr_value(name: str, kind: int, b: int) -> onnx.AttributeProto:
    big = BIG[b % len(BIG)]
    values: list[Callable[[], onnx.AttributeProto]] = [
        lambda: helper.make_attribute(name, big),
        lambda: helper.make_attribute(name, float(big) / 3),
        lambda: helper.make_attribute(name, "garbage"),
        lambda: helper.make_attribute(name, [big, big]),
        lambda: helper.make_attribute(name, [0.5, 1.5]),
        lambda: helper.make_attribute(name, ["a", "b"]),
        lambda: onnx.AttributeProto(name=name, type=onnx.AttributeProto.INTS),   # empty list
        lambda: helper.make_attribute(name, helper.make_tensor("t", TensorProto.FLOAT, [1], [1.0])),
        lambda: helper.make_attribute(name, helper.make_graph([], "empty", [], [])),
        lambda: onnx.AttributeProto(name=name, type=onnx.AttributeProto.UNDEFINED),
    ]
    return values[kind % len(values)]()


def set_attr(m: onnx.ModelProto, a: int, b: int, c: int) -> None:
    node = _pick(_all_nodes(m), a)
    if node is None:
        return
    names = [at.name for at in node.attribute] + list(ATTR_NAMES)
    name = _pick(names, b)
    kept = [at for at in node.attribute if at.name != name]
    del node.attribute[:]
    node.attribute.extend(kept + [_attr_value(name, c, b // 7)])


def drop_attr(m: onnx.ModelProto, a: int, b: int, c: int) -> None:
    node = _pick(_all_nodes(m), a)
    if node is not None and node.attribute:
        del node.attribute[b % len(node.attribute)]


def _value_infos(m: onnx.ModelProto) -> list[onnx.ValueInfoProto]:
    return list(m.graph.input) + list(m.graph.output) + list(m.graph.value_info)


def set_dim(m: onnx.ModelProto, a: int, b: int, c: int) -> None:
    vi = _pick(_value_infos(m), a)
    if vi is None or not vi.type.HasField("tensor_type"):
        return
    dims = vi.type.tensor_type.shape.dim
    if not dims:
        dims.add().dim_value = 1
    d = dims[b % len(dims)]
    choice = c % (len(BIG) + 3)
    if choice < len(BIG):
        d.dim_value = BIG[choice]
    elif choice == len(BIG):
        d.dim_param = "batch"
    elif choice == len(BIG) + 1:
        d.ClearField("dim_value")
        d.ClearField("dim_param")
    else:
        vi.type.tensor_type.ClearField("shape")


def set_dtype(m: onnx.ModelProto, a: int, b: int, c: int) -> None:
    dtype = DTYPES[b % len(DTYPES)]
    if c % 2 and m.graph.initializer:
        m.graph.initializer[a % len(m.graph.initializer)].data_type = dtype
        return
    vi = _pick(_value_infos(m), a)
    if vi is not None and vi.type.HasField("tensor_type"):
        vi.type.tensor_type.elem_type = dtype


def cut_initializer(m: onnx.ModelProto, a: int, b: int, c: int) -> None:
    if not m.graph.initializer:
        return
    t = m.graph.initializer[a % len(m.graph.initializer)]
    if c % 2:
        t.dims[:] = [BIG[b % len(BIG)] if i == 0 else d for i, d in enumerate(t.dims)] or [7]
    elif t.raw_data:
        t.raw_data = t.raw_data[: b % max(1, len(t.raw_data))]
    else:
        for field in ("float_data", "int32_data", "int64_data", "double_data"):
            values = getattr(t, field)
            if values:
                del values[b % len(values):]


def set_op(m: onnx.ModelProto, a: int, b: int, c: int) -> None:
    node = _pick(_all_nodes(m), a)
    if node is not None:
        node.op_type = _pick(list(OPS), b)
        if c % 3 == 0:
            node.domain = _pick(["ai.onnx.ml", "com.microsoft", "bogus.domain", ""], c // 3)


def set_opset(m: onnx.ModelProto, a: int, b: int, c: int) -> None:
    if m.opset_import:
        m.opset_import[0].version = _pick([0, 1, 6, 7, 9, 11, 13, 17, 21, 99, -1], a)


def drop_graph_io(m: onnx.ModelProto, a: int, b: int, c: int) -> None:
    ios = m.graph.output if c % 2 else m.graph.input
    if ios:
        del ios[a % len(ios)]


MUTATIONS: dict[str, Callable[[onnx.ModelProto, int, int, int], None]] = {
    f.__name__: f for f in (drop_input, drop_output, add_input, make_cycle, drop_node, set_attr,
                            drop_attr, set_dim, set_dtype, cut_initializer, set_op, set_opset,
                            drop_graph_io)}
BYTE_MUTATIONS = ("flip_byte", "truncate", "bad_utf8_name")


def _bytes_mutation(data: bytes, model: onnx.ModelProto, name: str, a: int, b: int) -> bytes:
    if not data:
        return data
    if name == "flip_byte":
        i = a % len(data)
        return data[:i] + bytes([(data[i] + 1 + b % 255) % 256]) + data[i + 1:]
    if name == "truncate":
        return data[: a % len(data)]
    # bad_utf8_name: overwrite the first byte of a node or value name with 0xff (length kept)
    names = [n.name for n in model.graph.node if n.name] + [v for n in model.graph.node
                                                            for v in n.output if v]
    name_bytes = _pick(names, a)
    if not name_bytes:
        return data
    raw = name_bytes.encode()
    return data.replace(raw, b"\xff" + raw[1:], 1)


def mutate(seed: Path | bytes, mutations: list[tuple[str, int, int, int]]) -> bytes:
    """The seed model (a file, or a serialised model) with ``mutations`` applied, serialised."""
    model = onnx.load_from_string(seed) if isinstance(seed, bytes) else onnx.load(str(seed))
    byte_level = []
    for name, a, b, c in mutations:
        if name in MUTATIONS:
            MUTATIONS[name](model, a, b, c)
        else:
            byte_level.append((name, a, b))
    data = model.SerializeToString()
    for name, a, b in byte_level:
        data = _bytes_mutation(data, model, name, a, b)
    return data
