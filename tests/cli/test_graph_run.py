"""`gewb graph --run` on inputs and outputs the host cannot make or summarise plainly (issue 15):
string and bf16 inputs, inputs of 2^62 elements are one line; a broadcast output of 4e12
elements is summarised from the data under it, exactly."""
from __future__ import annotations

import numpy as np
import pytest
from onnx import TensorProto, helper

from onnx_cases import one_op, save
from workbench.cli import main


@pytest.mark.parametrize("elem, dims, reason", [
    (TensorProto.STRING, [2], "input 'x' is str[2]: no random value can be made of that type"),
    (TensorProto.BFLOAT16, [2], "input 'x' is bf16[2]"),
    (TensorProto.FLOAT, [2**62], "brings the inputs to 18,446,744,073,709,551,616 bytes, more "
                                 "than the 2,147,483,648 bytes of device memory"),
    # a string is a host object, 8 bytes at least (the host was asked for 8 TiB of them)
    (TensorProto.STRING, [2**40], "brings the inputs to 8,796,093,022,208 bytes, more "
                                  "than the 2,147,483,648 bytes of device memory"),
])
def test_inputs_no_run_can_have_are_one_line(elem, dims, reason, tmp_path, capsys):
    model = save(one_op("Identity", [("x", elem, dims)], ["y"]), tmp_path, "m")
    code = main(["graph", model, "--run"])
    err = capsys.readouterr().err
    if code == 0:   # a dtype the host learned to make (strings as digits): then it ran
        assert elem in (TensorProto.BFLOAT16, TensorProto.STRING)
        return
    assert code == 2 and reason in err and len(err.strip().splitlines()) == 1


def test_a_huge_broadcast_output_is_summarised_from_its_data(tmp_path, capsys):
    """Expand of one float to [2e6, 2e6]: min, max, mean and std are those of the one value the
    4e12-element view repeats (numpy computes them on the source for comparison)."""
    shape = helper.make_tensor("s", TensorProto.INT64, [2], [2_000_000, 2_000_000])
    model = save(one_op("Expand", [("x", TensorProto.FLOAT, [1])], ["y"], (shape,)), tmp_path,
                 "expand")
    assert main(["graph", model, "--run"]) == 0
    x = np.random.default_rng(0).random([1]).astype(np.float32).astype(np.float64)
    line = f"  y: f32[2000000,2000000] min {x.min():.5g} max {x.max():.5g} mean {x.mean():.5g} " \
           f"std {x.std():.5g}"
    assert line in capsys.readouterr().out.splitlines()


def test_a_string_output_is_summarised_on_the_host_and_refused_by_a_static_build(tmp_path,
                                                                                 capsys):
    """graph --run and exec (which loads it hybrid) summarise it; a sink build refuses it."""
    words = helper.make_tensor("w", TensorProto.STRING, [2], [b"a", b"b"])
    model = save(one_op("Identity", [], ["y"], (words,)), tmp_path, "words")
    assert main(["graph", model, "--run"]) == 0
    assert "  y: str[2] 2 elements" in capsys.readouterr().out.splitlines()
    assert main(["exec", model]) == 0
    assert "  y: str[2] 2 elements" in capsys.readouterr().out.splitlines()
    assert main(["exec", model, "--mode", "sink"]) == 2
    err = capsys.readouterr().err
    assert "node y (Const) output 0 is str[2]: only host memory holds it" in err
    assert len(err.strip().splitlines()) == 1


def test_random_inputs_cost_their_own_bytes_and_keep_one_draws_values(tmp_path):
    """A 48 MB uint8 input and a 24 MB float16 one: the values are those of one draw of each
    whole input (the seeded inputs every run and test sees), and making them peaks near their
    own 72 MB, where the int64 and float64 draws cast afterwards took 8x and 4x (a 2 GB
    uint8 input, which fits the device, asked the host for 16 GB)."""
    import tracemalloc

    from ge_core.executor import random_feeds
    from ge_core.parser import parse_onnx
    n = 48 << 20
    graph = helper.make_graph(
        [helper.make_node("Identity", ["a"], ["y"]), helper.make_node("Identity", ["b"], ["z"])],
        "big", [helper.make_tensor_value_info("a", TensorProto.UINT8, [n]),
                helper.make_tensor_value_info("b", TensorProto.FLOAT16, [n // 4])],
        [helper.make_tensor_value_info(o, TensorProto.UNDEFINED, None) for o in "yz"])
    model = helper.make_model(graph, opset_imports=[helper.make_opsetid("", 13)])
    graph = parse_onnx(save(model, tmp_path, "big"))
    tracemalloc.start()
    feeds = random_feeds(graph)
    peak = tracemalloc.get_traced_memory()[1]
    tracemalloc.stop()
    assert peak < (n + n // 2) * 1.2
    rng = np.random.default_rng(0)
    np.testing.assert_array_equal(feeds["a"], rng.integers(0, 4, n).astype(np.uint8))
    np.testing.assert_array_equal(feeds["b"], rng.random(n // 4).astype(np.float16))
