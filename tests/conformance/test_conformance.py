"""`gewb conformance`: discovery, the oracle's inputs, light-random's rewrite, the report and exit
status. The slow tests run whole suites through parse -> HostExecutor."""
from __future__ import annotations

import os
import re

import numpy as np
import onnx
import pytest
from onnx import numpy_helper
from onnx.backend.test.runner import Runner
from onnx.reference import ReferenceEvaluator

from ge_core.executor import ExecutionError
from ge_core.parser import ParseError, parse_onnx
from workbench.cli import main
from workbench.conformance.light_random import randomise_weights
from workbench.conformance.runner import CaseResult, SuiteReport, run_suite, summary
from workbench.conformance.suites import DATA_DIR, SUITES, dummy_feeds, light_models
from workbench.conformance.vias import VIAS

SUMMARY = re.compile(r"(\d+) passed, (\d+) failed, (\d+) skipped")


def _light_model(name: str = "test_squeezenet") -> onnx.ModelProto:
    return onnx.load(dict((n, p) for n, p, _, _ in light_models())[name])


def _reference(model, feeds):
    """A correct via: onnx's own reference evaluator."""
    return ReferenceEvaluator(model).run(None, feeds)


def _off_by_one(model, feeds):
    return [out + 1 for out in _reference(model, feeds)]


@pytest.mark.parametrize("suite, count", [("light", 9), ("light-random", 9),
                                          ("pytorch-converted", 82), ("pytorch-operator", 35),
                                          ("simple", 23)])
def test_discovery_finds_every_case_in_order(suite, count):
    names = [c.name for c in SUITES[suite].discover(0)]
    assert len(names) == count
    assert names == sorted(names)


@pytest.mark.parametrize("random", [False, True])
def test_dummy_input_is_what_the_onnx_runner_generates(random):
    model = _light_model()
    feeds = dummy_feeds(model, seed=3, random=random)
    (x,) = [i for i in model.graph.input if i.name in feeds]  # the one non-initializer input
    theirs = Runner.generate_dummy_data(x, seed=3, random=random)
    assert feeds[x.name].dtype == theirs.dtype
    np.testing.assert_array_equal(feeds[x.name], theirs)


def test_light_tolerances_come_from_data_json():
    (densenet,) = [c for c in SUITES["light"].discover(0) if c.name == "test_densenet121"]
    data = densenet.load()
    assert (data.rtol, data.atol) == (0.002, 1e-7)
    assert data.model == os.path.join(DATA_DIR, "light", "light_densenet121.onnx")


def test_light_random_replaces_every_constant_of_shape_by_a_weight_of_its_shape():
    model = _light_model()
    out = randomise_weights(model, seed=0)
    onnx.checker.check_model(out)
    assert not [n for n in out.graph.node if n.op_type == "ConstantOfShape"]
    shapes = {t.name: list(numpy_helper.to_array(t)) for t in model.graph.initializer}
    weights = {t.name: list(t.dims) for t in out.graph.initializer}
    replaced = [n for n in model.graph.node if n.op_type == "ConstantOfShape"]
    assert replaced  # the input model is left as it was
    for node in replaced:
        assert weights[node.output[0]] == shapes[node.input[0]]
        assert node.input[0] not in weights  # the shape tensor nobody reads any more is gone


def test_light_random_is_deterministic_for_a_seed():
    model = _light_model()
    first, again, other = (randomise_weights(model, s).SerializeToString() for s in (0, 0, 1))
    assert first == again
    assert first != other


def test_summary_lists_failures_and_skips_then_counts():
    report = SuiteReport("x", [CaseResult("x/a", "PASS", 0.1),
                               CaseResult("x/b", "FAIL", 0.2, "output 0: shape (2,)"),
                               CaseResult("x/c", "SKIP", 0.0, "unsupported op")])
    assert summary([report]) == ["FAIL x/b: output 0: shape (2,)",
                                 "SKIP x/c: unsupported op",
                                 "1 passed, 1 failed, 1 skipped"]


def test_a_correct_via_passes_with_exit_status_0(monkeypatch, capsys):
    monkeypatch.setitem(VIAS, "reference", _reference)
    assert main(["conformance", "--suite", "pytorch-operator", "--via", "reference",
                 "-k", "operator_add"]) == 0
    out = capsys.readouterr().out.splitlines()
    assert SUMMARY.fullmatch(out[-1]).groups() == ("6", "0", "0")


def test_wrong_numbers_are_listed_as_failures_with_exit_status_1(monkeypatch, capsys):
    monkeypatch.setitem(VIAS, "off-by-one", _off_by_one)
    assert main(["conformance", "--suite", "pytorch-operator", "--via", "off-by-one",
                 "-k", "operator_add"]) == 1
    out = capsys.readouterr().out.splitlines()
    case_lines = [line for line in out if line.startswith("pytorch-operator/")]
    assert len(case_lines) == 6 and all(" FAIL " in line for line in case_lines)
    failures = [line for line in out if line.startswith("FAIL ")]
    assert len(failures) == 6 and all("values off" in line for line in failures)
    assert out[-1] == "0 passed, 6 failed, 0 skipped"


def test_an_error_inside_a_case_is_its_one_line_fail_reason(monkeypatch):
    def broken(model, feeds):
        raise ExecutionError("node Exp_0 (Exp): boom\n  with a second line")
    monkeypatch.setitem(VIAS, "broken", broken)
    [result] = run_suite("pytorch-operator", via="broken", keyword="operator_exp").results
    assert (result.status, result.reason) == ("FAIL", "ExecutionError: node Exp_0 (Exp): boom")


def test_a_parse_error_is_a_skip_in_simple_and_a_failure_elsewhere(monkeypatch):
    node = onnx.helper.make_node("NoSuchOp", ["x"], ["y"])
    x = onnx.helper.make_tensor_value_info("x", onnx.TensorProto.FLOAT, [1])
    with pytest.raises(ParseError) as refused:
        parse_onnx(onnx.helper.make_model(onnx.helper.make_graph([node], "m", [x], [x])))
    message = str(refused.value)

    def refuses(model, feeds):
        raise refused.value
    monkeypatch.setitem(VIAS, "refuses", refuses)
    [skipped] = run_suite("simple", via="refuses", keyword="single_relu").results
    assert (skipped.status, skipped.reason) == ("SKIP", message)
    [failed] = run_suite("pytorch-operator", via="refuses", keyword="operator_exp").results
    assert (failed.status, failed.reason) == ("FAIL", f"ParseError: {message}")


@pytest.mark.parametrize("flag, valid", [("--suite", "light-random"), ("--via", "host")])
def test_an_unknown_name_is_one_line_listing_the_valid_ones(flag, valid, capsys):
    assert main(["conformance", flag, "nope"]) == 2
    err = capsys.readouterr().err.splitlines()
    assert len(err) == 1 and "'nope'" in err[0] and valid in err[0]


@pytest.mark.slow
@pytest.mark.parametrize("suite", ["light", "light-random", "pytorch-converted",
                                   "pytorch-operator"])
def test_suite_passes_on_the_host_executor(suite):
    report = run_suite(suite)
    assert report.count("PASS") == len(report.results), "\n".join(summary([report]))


@pytest.mark.slow
def test_simple_has_no_failures_on_the_host_executor():
    report = run_suite("simple")
    assert not report.failed, "\n".join(summary([report]))
