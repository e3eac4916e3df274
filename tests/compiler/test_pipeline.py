"""The compile pipeline: stages, determinism, thread-pool merge order, dumps, the equivalence
check, stepping, and the acceptance runs on the light models."""
from collections import Counter
from contextlib import nullcontext
from pathlib import Path

import numpy as np
import onnx
import pytest

from ge_core.compiler import CompileOptions, CompilePipeline, compile_graph, pass_lists
from ge_core.graph import ComputeGraph, dump_graph
from ge_core.graph.attr_names import ENGINE
from ge_core.parser import parse_onnx
from ge_core.passes import GraphPass
from ge_core.passes.ge_pass import positions_only
from ge_core.passes.pass_utils import const_value
from npu_emu.base.trace import TraceBus, TraceRecorder
from npu_emu.world import World
from workbench.conformance.runner import run_suite

SAMPLE = Path(__file__).resolve().parents[2] / "sample_models" / "tiny_cnn.onnx"
LIGHT = Path(onnx.__file__).parent / "backend" / "test" / "data" / "light"
MODELS = sorted(p.stem.removeprefix("light_") for p in LIGHT.glob("light_*.onnx"))


def compiled(path=SAMPLE, **options):
    graph = parse_onnx(path)
    return compile_graph(graph, CompileOptions(dump=options.pop("dump", None), **options))


def test_stages_run_in_ge_order():
    result = compiled()
    assert [s.stage for s in result.stages] == [
        "Prepare", "OptimizeOriginalGraph", "EnginePlacer", "Partition", "OptimizeSubgraph",
        "MergeSubgraph", "OptimizeStage2"]
    types = Counter(n.type for n in result.graph)
    # Identity removed, Conv+BN folded, Conv+Relu fused on AI Core
    assert types["Identity"] == 0 and types["BatchNormalization"] == 0
    assert types["FusedConv"] == 2 and types["Relu"] == 0


def test_compiling_twice_gives_the_identical_graph():
    assert dump_graph(compiled().graph) == dump_graph(compiled().graph)


def test_thread_pool_merges_in_subgraph_order():
    pooled = compiled(max_workers=16)
    sequential = compiled(max_workers=1)
    assert dump_graph(pooled.graph) == dump_graph(sequential.graph)
    assert [(r.stage, r.name, r.graph, r.changed) for r in pooled.passes] == \
        [(r.stage, r.name, r.graph, r.changed) for r in sequential.passes]


def test_the_merge_places_the_nodes_the_engines_made_as_ges_merge_subgraph_does():
    """GE's EnginePartitioner::MergeSubGraph runs the placer on the merged graph: the FusedConvs
    the AI Core's passes made have an engine when stage 3 begins, the others keep theirs."""
    graph = parse_onnx(SAMPLE)
    pipeline = CompilePipeline(graph, CompileOptions(dump=None))
    placed = {}
    for step in pipeline.steps():
        if step.kind == "stage" and step.name == "EnginePlacer":
            placed = {(n.name, n.type): n.op_desc.get_attr(ENGINE) for n in graph.all_nodes()}
        if step.kind == "stage" and step.name == "MergeSubgraph":
            break
    engines = {(n.name, n.type): n.op_desc.get_attr(ENGINE) for n in graph.all_nodes()}
    fused = {key for key in engines if key[1] == "FusedConv"}
    assert fused and not fused & set(placed)   # made after placement ...
    assert all(engines[key] == "AIcoreEngine" for key in fused)   # ... placed at the merge
    assert all(engines.values())
    assert all(engines[key] == engine for key, engine in placed.items() if key in engines)


def test_steps_visit_stages_passes_and_nodes_and_end_where_run_ends():
    graph = parse_onnx(SAMPLE)
    pipeline = CompilePipeline(graph, CompileOptions(dump=None))
    steps = list(pipeline.steps())
    kinds = Counter(s.kind for s in steps)
    assert kinds["stage"] == 7 and kinds["pass"] == len(pipeline.result.passes)
    assert kinds["node"] > len(graph)  # every node pass visits every node
    assert dump_graph(graph) == dump_graph(compiled().graph)


def test_the_trace_of_a_compile_is_deterministic():
    digests = []
    for _ in range(2):
        bus, rec = TraceBus(), TraceRecorder()
        bus.subscribe(rec)
        with World(bus=bus).entered():
            compile_graph(parse_onnx(SAMPLE), CompileOptions(dump=None))
        digests.append(rec.digest())
        assert len(rec.events) > 100
    assert digests[0] == digests[1]


@pytest.mark.parametrize("path", [SAMPLE, LIGHT / "light_shufflenet.onnx"], ids=["tiny_cnn",
                                                                                 "shufflenet"])
def test_a_stepped_compile_records_the_trace_and_graph_of_a_free_run(path):
    """A free run's GEPass yields nothing at its visits; a stepped one yields at each, or only
    at its positions under positions_only (the debugger's way): the same walk every way."""
    seen, kinds = [], []
    for mode in ("free", "stepped", "positions"):
        bus, rec = TraceBus(), TraceRecorder()
        bus.subscribe(rec)
        with World(bus=bus).entered(), \
                positions_only() if mode == "positions" else nullcontext():
            graph = parse_onnx(path)
            pipeline = CompilePipeline(graph, CompileOptions(dump=None))
            steps = list(pipeline.steps()) if mode != "free" else []
            if mode == "free":
                pipeline.run()
        seen.append((rec.digest(), dump_graph(graph), [(r.name, r.graph, r.changed, r.detail)
                                                       for r in pipeline.result.passes]))
        kinds.append(Counter(s.kind for s in steps))
        visits = sum(e.kind == "NodeVisited" for e in rec.events)
    assert seen[0] == seen[1] == seen[2]
    assert kinds[1]["node"] > len(graph)
    # a pattern fusion's walk still yields at each match; GEPass's at no visit
    assert kinds[1]["node"] - kinds[2]["node"] == visits > len(graph)
    assert kinds[2]["stage"] == kinds[1]["stage"] == 7
    assert kinds[2]["position"] == kinds[1]["position"]


class BreakWeights(GraphPass):
    """A deliberately wrong pass: scales one weight."""
    name = "BreakWeightsPass"

    def run(self, graph: ComputeGraph) -> bool:
        node = graph.find_node("fc.w")
        if node is None:
            return False
        node.op_desc.attrs["value"].data = const_value(node) * 2
        node.op_desc.set_attr("value", node.op_desc.get_attr("value"))
        return True


def test_equivalence_check_names_the_first_pass_that_changes_outputs(monkeypatch):
    stage1 = pass_lists.original_graph_passes
    monkeypatch.setattr(pass_lists, "original_graph_passes",
                        lambda: stage1()[:2] + [BreakWeights()] + stage1()[2:])
    result = compiled(check_equivalence=True)
    first = result.equivalence.first
    assert first is not None and first.pass_name == "BreakWeightsPass"
    assert first.stage == "OptimizeOriginalGraph" and first.tensor == "prob"


def test_equivalence_check_inside_an_engine_subgraph(monkeypatch):
    class BreakConv(GraphPass):
        name = "BreakConvPass"

        def run(self, graph):
            node = next((n for n in graph if n.type in ("Conv", "FusedConv")), None)
            if node is None:
                return False
            node.op_desc.set_attr("strides", [2, 2])
            return True

    engine = pass_lists.engine_passes
    monkeypatch.setattr(pass_lists, "engine_passes",
                        lambda e: engine(e) + ([BreakConv()] if e == "AIcoreEngine" else []))
    pipeline = CompilePipeline(parse_onnx(SAMPLE),
                               CompileOptions(dump=None, check_equivalence=True))
    pipeline.run()   # nothing infers shapes after the merge (GE's OptimizeStage2 does not)
    first = pipeline.result.equivalence.first
    assert first.pass_name == "BreakConvPass" and first.stage == "OptimizeSubgraph"
    assert "AIcoreEngine" in first.graph


def test_resnet50_folds_every_constant_of_shape_and_every_conv_bn():
    graph = parse_onnx(LIGHT / "light_resnet50.onnx")
    before = Counter(n.type for n in graph)
    result = compile_graph(graph, CompileOptions(dump=None))
    after = Counter(n.type for n in graph)
    assert before["ConstantOfShape"] == 239 and after["ConstantOfShape"] == 0
    assert before["BatchNormalization"] == 53 and after["BatchNormalization"] == 0
    assert after["Conv"] + after["FusedConv"] == 53
    assert result.nodes_before == 686 and len(graph) < 200


def test_stage2_fuses_the_residual_joins_the_engines_kept_apart():
    # ResNet-50's Conv -> Sum -> Relu: Sum on the Vector engine, so the three meet after the merge
    graph = parse_onnx(LIGHT / "light_resnet50.onnx")
    result = compile_graph(graph, CompileOptions(dump=None))
    runs = [r for r in result.passes if r.name == "ConvEltwiseReluFusionPass"]
    assert [r.stage for r in runs] == ["OptimizeStage2"] and runs[0].changed
    types = Counter(n.type for n in graph)
    assert types["Sum"] == 0 and types["Relu"] == 0
    joins = [n for n in graph if n.type == "FusedConv" and len(n.in_data_anchors) == 4]
    assert len(joins) == 16
    assert {n.op_desc.get_attr(ENGINE) for n in joins} == {"AIcoreEngine"}
    # a model without the three ops keeps its pass table
    assert "ConvEltwiseReluFusionPass" not in {r.name for r in compiled().passes}


@pytest.mark.slow
@pytest.mark.parametrize("model", MODELS)
def test_every_light_model_keeps_its_outputs_through_every_pass(model):
    result = compiled(LIGHT / f"light_{model}.onnx", check_equivalence=True)
    assert result.equivalence.checks > 0
    assert result.equivalence.first is None, str(result.equivalence.first)
    assert not result.warnings


@pytest.mark.slow
def test_optimised_light_models_pass_conformance():
    report = run_suite("light", via="optimized")
    assert report.count("PASS") == 9, [r.reason for r in report.failed]


@pytest.mark.parametrize("case", ["test_loop13_seq", "test_loop16_seq_none"])
def test_the_equivalence_check_compares_sequences_and_optionals_element_by_element(case):
    """A Loop's scan output of tensors of growing shapes: numpy made one array of the sequence
    ("setting an array element with a sequence"), an internal error of `gewb compile
    --check-equivalence`."""
    from workbench.conformance import node_cases
    (test,) = [t for t in node_cases.testcases() if t.name == case]
    result = compiled(node_cases.load(test)[0], check_equivalence=True)
    assert result.equivalence.checks > 0
    assert result.equivalence.first is None, str(result.equivalence.first)


def test_the_equivalence_compare_says_where_two_sequences_differ():
    from ge_core.compiler.pass_equivalence import compare
    a, b = np.zeros(2, np.float32), np.ones((2, 3), np.float32)
    assert compare([a, b], [a, b.copy()], 1e-4, 1e-5) is None
    assert compare([a, b], [a, b + 1], 1e-4, 1e-5) == \
        "element 1: max abs error 1 (values up to 1)"
    assert compare([a], [a, b], 1e-4, 1e-5) == "a sequence of 1 -> 2"
    assert compare([a], a, 1e-4, 1e-5) == "a sequence -> a tensor"
    assert compare(None, None, 1e-4, 1e-5) is None
    assert compare(None, a, 1e-4, 1e-5) == "an empty optional -> a tensor"
