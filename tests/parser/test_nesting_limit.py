"""A model nested past protobuf's recursion limit (a 100-deep chain of If bodies) is refused
naming that limit, not as "truncated or corrupt" (issue 23). The model is written as wire
bytes: onnx's helpers cannot build it, protobuf refuses to copy such a message."""
from pathlib import Path

import pytest
from onnx import TensorProto, helper

from ge_core.parser import ParseError, parse_onnx


def _field(number: int, payload: bytes) -> bytes:
    """A length-delimited protobuf field."""
    def varint(n: int) -> bytes:
        out = b""
        while n > 0x7F:
            out, n = out + bytes([n & 0x7F | 0x80]), n >> 7
        return out + bytes([n])
    return varint(number << 3 | 2) + varint(len(payload)) + payload


def _nested_ifs(depth: int) -> bytes:
    output = helper.make_tensor_value_info("y", TensorProto.FLOAT, [1]).SerializeToString()
    graph = helper.make_graph([helper.make_node("Identity", ["x"], ["y"])], "body", [],
                              [helper.make_tensor_value_info("y", TensorProto.FLOAT, [1])]
                              ).SerializeToString()
    for i in range(depth):   # GraphProto.node(1) > NodeProto.attribute(5) > AttributeProto.g(6)
        attribute = _field(1, b"then_branch") + _field(6, graph) + bytes([20 << 3, 5])
        node = _field(1, b"c") + _field(2, b"y") + _field(4, b"If") + _field(5, attribute)
        graph = _field(1, node) + _field(2, f"g{i}".encode()) + _field(12, output)
    return bytes([1 << 3, 8]) + _field(7, graph)   # ir_version 8, graph


def test_a_100_deep_if_names_protobufs_nesting_limit(tmp_path: Path):
    path = tmp_path / "deep.onnx"
    path.write_bytes(_nested_ifs(100))
    with pytest.raises(ParseError) as err:
        parse_onnx(path)
    message = str(err.value)
    assert "nest deeper than protobuf's limit of 100" in message
    assert "truncated" not in message
