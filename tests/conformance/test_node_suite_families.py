"""The ONNX node suite's own cases (onnx.backend.test.case.node: models, inputs and the expected
outputs onnx's reference code computes, with the suite's rtol/atol) for the op families of issue
13's second part, through the host executor and through the device path GE takes (the
conformance via ``device``: sunk when every shape is static and everything lives on the device,
hybrid otherwise).

Only the case modules of these families are imported: collect_testcases() would build all 1,884
cases (~14 s). A case is out of this part's scope, and skipped with the reason, when it needs an
op no family here covers (the expanded Attention bodies use Range) or control flow on the
device; anything else that fails, fails. The device run of the expanded function bodies (their
primitives, not these kernels) is slow-marked.
"""
from __future__ import annotations

import importlib
import re

import onnx
import pytest
from onnx import numpy_helper
from onnx.backend.test.case.test_case import TestCase

from workbench.conformance.runner import PASS, run_case
from workbench.conformance.suites import Case, CaseData, DataSet
from workbench.conformance.vias import VIAS

FAMILIES = {
    "narrow_dtypes": {"Cast", "CastLike"},
    "quantization": {"QuantizeLinear", "DequantizeLinear", "DynamicQuantizeLinear",
                     "QLinearConv", "QLinearMatMul", "MatMulInteger", "ConvInteger"},
    "recurrent": {"RNN", "GRU", "LSTM"},
    "attention": {"Attention", "LinearAttention", "RotaryEmbedding", "FlexAttention"},
    "ai_onnx_ml": {"LabelEncoder", "TreeEnsemble", "ArrayFeatureExtractor", "Binarizer"},
    "strings": {"StringNormalizer", "StringConcat", "StringSplit", "RegexFullMatch"},
    "sequences": {"SequenceConstruct", "SequenceAt", "SequenceInsert", "SequenceErase",
                  "SequenceLength", "SequenceEmpty", "SplitToSequence", "ConcatFromSequence",
                  "SequenceMap", "Optional", "OptionalHasElement", "OptionalGetElement"},
    "scan": {"Scan"},
    "training": {"Momentum", "Adagrad", "Adam"},  # ai.onnx.preview.training
}
OURS = set().union(*FAMILIES.values())
CASE_MODULES = ["cast", "castlike", "quantizelinear", "dequantizelinear", "dynamicquantizelinear",
                "qlinearconv", "qlinearmatmul", "matmulinteger", "convinteger", "rnn", "gru",
                "lstm", "attention", "linear_attention", "rotaryembedding", "flexattention",
                "ai_onnx_ml.array_feature_extractor", "ai_onnx_ml.binarizer",
                "ai_onnx_ml.label_encoder", "ai_onnx_ml.tree_ensemble", "stringnormalizer",
                "string_concat", "string_split", "regex_full_match", "sequence_map",
                "sequenceinsert", "splittosequence", "optionalgetelement",
                "optionalhaselement", "identity", "if_", "loop", "scan", "momentum", "adagrad",
                "adam"]
UNSUPPORTED = re.compile(r"\(op ([\w.:]+)\): unsupported op")
CONTROL_FLOW_ON_DEVICE = ("owns subgraphs: control flow", "v2 lowers no control flow")


def _node_cases() -> list[TestCase]:
    # Importing a case module runs its exports, which append to the suite's case list.
    node = importlib.import_module("onnx.backend.test.case.node")
    for module in CASE_MODULES:
        importlib.import_module(f"onnx.backend.test.case.node.{module}")
    return list(node._NodeTestCases)


def _is_sequence(value: onnx.ValueInfoProto) -> bool:
    return value.type.WhichOneof("value") in ("sequence_type", "optional_type")


EXPANDED = re.compile(r"_expanded(_ver\d+)?$")


def family_of(case: TestCase, by_name: dict[str, TestCase]) -> str | None:
    """The family a case tests: that of its one op (an expanded case's: its twin's), or
    sequences for any case that feeds or returns a sequence or optional (Identity's, If's,
    Loop's)."""
    graph = by_name.get(EXPANDED.sub("", case.name), case).model.graph
    if any(_is_sequence(v) for v in (*graph.input, *graph.output)):
        return "sequences"
    if len(graph.node) != 1:
        return None
    return next((f for f, members in FAMILIES.items() if graph.node[0].op_type in members),
                None)


def _cases(family: str, expanded: bool) -> list[TestCase]:
    cases = _node_cases()
    by_name = {c.name: c for c in cases}
    return [c for c in cases if family_of(c, by_name) == family
            and bool(EXPANDED.search(c.name)) == expanded]


def _as_value(v: object) -> object:
    # The suite keeps the narrow types' tensors as TensorProtos; sequences as lists.
    if isinstance(v, onnx.TensorProto):
        return numpy_helper.to_array(v)
    return [_as_value(x) for x in v] if isinstance(v, list) else v


def _case(tc: TestCase) -> Case:
    names = [i.name for i in tc.model.graph.input]
    data = CaseData(tc.model, [DataSet(dict(zip(names, map(_as_value, ins))),
                                       [_as_value(o) for o in outs])
                               for ins, outs in tc.data_sets], tc.rtol, tc.atol)
    return Case("node", tc.name, lambda: data)


def _out_of_scope(reason: str, via: str) -> str | None:
    missing = UNSUPPORTED.search(reason)
    if missing and missing.group(1).split("::")[-1] not in OURS:  # ai.onnx.ml::LabelEncoder
        return f"needs {missing.group(1)}"
    if via == "device" and any(s in reason for s in CONTROL_FLOW_ON_DEVICE):
        return "control flow on the device"
    return None


def check_family(family: str, via: str, expanded: bool = False) -> None:
    cases = _cases(family, expanded)
    failed, passed, skipped = [], 0, {}
    for tc in cases:
        result = run_case(_case(tc), VIAS[via])
        if result.status == PASS:
            passed += 1
        elif (gap := _out_of_scope(result.reason, via)) is not None:
            skipped[tc.name] = gap
        else:
            failed.append(f"{tc.name}: {result.reason}")
    assert not failed, failed
    assert passed > 0 or not cases, skipped


@pytest.mark.parametrize("via", ["host", "device"])
@pytest.mark.parametrize("family", list(FAMILIES))
def test_family_cases(family: str, via: str) -> None:
    check_family(family, via)


@pytest.mark.parametrize("family", list(FAMILIES))
def test_expanded_family_cases_on_host(family: str) -> None:
    check_family(family, "host", expanded=True)


@pytest.mark.slow
@pytest.mark.parametrize("family", list(FAMILIES))
def test_expanded_family_cases_on_device(family: str) -> None:
    check_family(family, "device", expanded=True)


def test_the_families_cover_the_suites_cases_of_their_ops() -> None:
    # Counted from the installed onnx's suite: a family losing its cases must show.
    cases = _node_cases()
    by_name = {c.name: c for c in cases}
    counts: dict[str | None, int] = {}
    for c in cases:
        family = family_of(c, by_name)
        counts[family] = counts.get(family, 0) + 1
    assert {f: counts.get(f, 0) for f in FAMILIES} == {
        "narrow_dtypes": 172, "quantization": 45, "recurrent": 18, "attention": 252,
        "ai_onnx_ml": 8, "strings": 20, "sequences": 34, "scan": 4, "training": 7}
