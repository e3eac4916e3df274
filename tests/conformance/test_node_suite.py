"""`gewb conformance --suite node`: the node cases the installed onnx generates
(``collect_testcases``), their feeds and expected outputs, the range check of random outputs,
and a first case of each op family added for them through host and device. The slow tests run
the whole suite and hold its pass counts at or above the ones measured."""
from __future__ import annotations

import numpy as np
import onnx
import pytest
from onnx import helper

from ge_core.ops import get_op_def
from workbench.cli import main
from workbench.conformance import node_cases, random_outputs
from workbench.conformance.runner import run_case, run_suite, suite_names, summary
from workbench.conformance.suites import SUITES
from workbench.conformance.vias import VIAS

# The op families (ge_core/ops modules) written for the node suite.
NODE_SUITE_FAMILIES = frozenset({"activation", "bitwise", "conv_variants", "cumulative", "image",
                                 "indexing", "loss", "matrix", "normalization", "random",
                                 "signal"})


@pytest.fixture(scope="module")
def cases():
    return {c.name: c for c in SUITES["node"].discover(0)}


def test_discovery_lists_every_generated_case_once_in_order(cases):
    names = [t.name for t in node_cases.testcases()]
    assert list(cases) == names == sorted(set(names))
    assert len(names) > 1800 and "test_abs" in cases and "test_resize_tf_crop_and_resize" in cases


def test_node_is_one_of_all():
    assert "node" in suite_names("all")


def test_a_case_feeds_its_graph_inputs_by_name_with_the_suites_tolerances(cases):
    data = cases["test_gather_elements_negative_indices"].load()
    model = data.model
    assert isinstance(model, onnx.ModelProto) and model.graph.node[0].op_type == "GatherElements"
    (ds,) = data.data_sets
    assert list(ds.feeds) == [x.name for x in model.graph.input]
    assert ds.feeds["indices"].dtype == np.int64 and len(ds.expected) == 1
    assert (data.rtol, data.atol, data.random) == (1e-3, 1e-7, False)


def test_tensor_protos_in_a_case_become_arrays(cases):
    # Cast's float16 cases hand their data over as TensorProtos.
    (ds,) = cases["test_cast_FLOAT_to_FLOAT16"].load().data_sets
    assert all(isinstance(v, np.ndarray) for v in [*ds.feeds.values(), *ds.expected])
    assert ds.expected[0].dtype == np.float16


@pytest.mark.parametrize("name, random", [("test_bernoulli", True),
                                          ("test_bernoulli_seed_expanded", True),
                                          ("test_training_dropout_mask", True),
                                          ("test_dropout_default_mask", False),
                                          ("test_abs", False)])
def test_random_cases_are_the_ones_that_draw(cases, name, random):
    assert cases[name].load().random is random


def _bernoulli_model() -> onnx.ModelProto:
    node = helper.make_node("Bernoulli", ["p"], ["y"])
    graph = helper.make_graph([node], "b", [helper.make_tensor_value_info("p", 1, [6])],
                              [helper.make_tensor_value_info("y", 1, [6])])
    return helper.make_model(graph)


@pytest.mark.parametrize("got, verdict", [
    (np.array([1, 1, 0, 0, 0, 1], np.float32), None),             # another draw
    (np.array([1, 1, 0, 0, 0], np.float32), "output 0: shape (5,), expected (6,)"),
    (np.array([1, 1, 0, 0, 0, 1], np.float64), "output 0: dtype float64, expected float32"),
    (np.array([1, 2, 0, 0, 0, 1], np.float32),
     "output 0: 1 of 6 values outside the draw's range [0, 1]"),
])
def test_a_random_output_is_judged_by_shape_dtype_and_range(got, verdict):
    want = np.array([0, 1, 1, 0, 1, 0], np.float32)
    feeds = {"p": np.full(6, 0.5, np.float32)}
    assert random_outputs.mismatch(_bernoulli_model(), feeds, [got], [want]) == verdict


def test_a_training_dropout_keeps_each_value_scaled_or_drops_it(cases):
    data = cases["test_training_dropout_mask"].load()
    (ds,) = data.data_sets
    x, ratio = ds.feeds["x"], float(ds.feeds["r"])
    y, mask = ds.expected
    assert random_outputs.mismatch(data.model, ds.feeds, [x / (1 - ratio) * mask, mask],
                                   ds.expected) is None
    wrong = random_outputs.mismatch(data.model, ds.feeds, [x * mask, mask], ds.expected)
    assert wrong.startswith("output 0:") and "neither 0 nor x / (1 - ratio)" in wrong


def test_the_cli_runs_node_cases_through_a_via(capsys):
    assert main(["conformance", "--suite", "node", "--via", "host", "-k", "node/test_tril_"]) == 0
    out = capsys.readouterr().out.splitlines()
    assert out[-1] == "8 passed, 0 failed, 0 skipped"


def _first_case_per_op(cases) -> dict[str, object]:
    """For each op of the families written for the node suite, its first one-node case (bfloat16
    storage is another helper's)."""
    first: dict[str, object] = {}
    for name, case in cases.items():
        model = case.load().model
        if len(model.graph.node) != 1 or "bfloat16" in name:
            continue
        op = model.graph.node[0].op_type
        op_def = get_op_def(op)
        if op_def is not None and op_def.family in NODE_SUITE_FAMILIES:
            first.setdefault(op, case)
    return first


@pytest.mark.parametrize("via", ["host", "device"])
def test_each_new_op_passes_its_first_node_case(cases, via):
    first = _first_case_per_op(cases)
    assert len(first) >= 50
    failed = [(op, r.reason) for op, case in sorted(first.items())
              if (r := run_case(case, VIAS[via])).status != "PASS"]
    assert not failed, failed


# Measured with the kernels of issue 13's op families; a lower count is a regression.
PASS_FLOORS = {"host": 1439, "device": 1412}


@pytest.mark.slow
@pytest.mark.parametrize("via", sorted(PASS_FLOORS))
def test_node_suite_pass_count_stays_at_its_floor(via):
    report = run_suite("node", via)
    assert report.count("PASS") >= PASS_FLOORS[via], "\n".join(summary([report]))
